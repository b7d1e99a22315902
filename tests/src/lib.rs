//! Test support for Maru: a running `maru serve` on a fresh data folder ([`server`]) and a
//! scriptable fake OpenAI-compatible model server ([`fake_openai`]).

pub mod demo;
pub mod fake_openai;
pub mod llama;
pub mod pdf;
pub mod server;

/// Polls until `f` holds, or panics with `what` after 20 s.
pub async fn eventually<F: std::future::Future<Output = bool>>(what: &str, f: impl FnMut() -> F) {
    eventually_within(what, 20, f).await
}

/// The same with a deadline of `secs` (a real model server on a loaded machine).
pub async fn eventually_within<F: std::future::Future<Output = bool>>(what: &str, secs: u64, mut f: impl FnMut() -> F) {
    for _ in 0..secs * 100 {
        if f().await {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("{what} did not happen within {secs} s");
}

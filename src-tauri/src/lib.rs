//! Maru: a local chatbot for the user's own OpenAI-compatible model server.
//!
//! This crate is the shell: the `maru` command (`main.rs`) and the desktop window (`desktop`,
//! behind the `desktop` feature). Everything else is in crates the compiler keeps below it:
//! `maru-server` (the HTTP API) → `maru-core` (chats, prompts, files, memory) → `maru-store` →
//! `maru-llm` → `maru-error`. Their modules are re-exported here under their usual names.

pub use maru_core::{api, app, attachments, backup, chat, error, llm, logging, memory, paths, prompt, sharing, store, tools};
pub use maru_server as server;

#[cfg(feature = "desktop")]
pub mod desktop;

/// The runtime the command and the window run Maru on: one thread for the async work, beside
/// tokio's blocking pool, which does the database, file and extraction work. The turn bench
/// serves on it too, as `maru serve` does.
///
/// One async thread because Maru's async work is passing bytes on, moments at a time, for one
/// user. With a thread per core, every token handed from the model server's connection to the
/// window's stream woke a second thread to take it; the wake-up took the first thread's core, and
/// with a model server computing on the others the token then waited 0.5 to 4 ms for one. On one
/// thread the stream's task runs next, on the thread that already has a core.
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().on_thread_start(ask_short_slices).build()
}

/// Asks the kernel for short time slices on this thread (Linux 6.12 and later; older kernels and
/// other systems leave it as it is). Maru's threads run for moments at a time, but a token is
/// passed on only when one of them gets a core: with a model server computing on every core of
/// this machine, a thread with the default slice waited behind it 1.4 ms and more, and every
/// token reached the window that much later. A short slice changes when a thread runs, not how
/// much CPU it gets.
fn ask_short_slices() {
    #[cfg(target_os = "linux")]
    // SAFETY: sched_setattr reads a sched_attr of the size it is told, for the calling thread.
    unsafe {
        let tid = libc::gettid();
        let mut attr: libc::sched_attr = std::mem::zeroed();
        attr.size = std::mem::size_of::<libc::sched_attr>() as u32;
        attr.sched_policy = libc::SCHED_OTHER as u32;
        // The thread's nice value stays: sched_setattr sets it too.
        attr.sched_nice = libc::getpriority(libc::PRIO_PROCESS, tid as libc::id_t);
        // The shortest the kernel grants: 0.1 ms.
        attr.sched_runtime = 100_000;
        if libc::syscall(libc::SYS_sched_setattr, 0, &attr as *const libc::sched_attr, 0u32) != 0 {
            tracing::debug!("short time slices not granted: {}", std::io::Error::last_os_error());
        }
    }
}

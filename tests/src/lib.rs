//! Test support for Maru: a running `maru serve` on a fresh data folder ([`server`]) and a
//! scriptable fake OpenAI-compatible model server ([`fake_openai`]).

pub mod demo;
pub mod fake_openai;
pub mod llama;
pub mod pdf;
pub mod server;

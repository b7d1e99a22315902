//! Shared by the tests that run the real `maru` binary (each uses some of it).
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// `maru serve` on `data`, a free port and the token "t": the process and its base URL.
pub fn serve(data: &std::path::Path) -> (Child, String) {
    serve_with(data, &[])
}

/// The same with more arguments.
pub fn serve_with(data: &std::path::Path, extra: &[&std::ffi::OsStr]) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_maru"))
        .args(["serve", "--port", "0", "--token", "t"])
        .args(extra)
        .arg("--data-dir")
        .arg(data)
        .env("MARU_NO_DEMO", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("maru serve starts");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let url = lines.by_ref().map_while(Result::ok).find_map(|l| l.strip_prefix("Open ").map(str::to_string)).expect("it prints its URL");
    (child, url.split("/#").next().unwrap().to_string())
}

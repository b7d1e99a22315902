//! Restoring a backup from the API: `maru serve` answers, closes, keeps the data it had beside
//! the folder, and comes back on the same address and token with the backup's data.

#![cfg(unix)]

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

/// Kills `maru serve` when the test ends, failed assertions included.
struct Serving(std::process::Child);

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

async fn project_names(http: &reqwest::Client, base: &str) -> Vec<String> {
    let res = http.get(format!("{base}/api/projects")).bearer_auth("t").send().await.unwrap();
    res.json::<Vec<Value>>().await.unwrap().iter().map(|p| p["name"].as_str().unwrap().to_string()).collect()
}

async fn restore(http: &reqwest::Client, base: &str, bytes: Vec<u8>) -> (reqwest::StatusCode, Value) {
    let form = reqwest::multipart::Form::new().part("file", reqwest::multipart::Part::bytes(bytes).file_name("maru-backup.zip"));
    let res = http.post(format!("{base}/api/restore")).bearer_auth("t").multipart(form).send().await.unwrap();
    (res.status(), res.json().await.unwrap())
}

#[tokio::test]
async fn a_restore_from_the_api_comes_back_on_the_backup_and_keeps_the_data_it_replaced() {
    let home = tempfile::tempdir().unwrap();
    let data = home.path().join("maru");
    let port = free_port().to_string();
    let mut child = Serving(
        Command::new(env!("CARGO_BIN_EXE_maru"))
            .args(["serve", "--port", &port, "--token", "t", "--data-dir"])
            .arg(&data)
            .env("MARU_NO_DEMO", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("maru serve starts"),
    );
    // Its stdout stays open for the whole test: Maru prints again when it comes back.
    let (opened, mut opens) = tokio::sync::mpsc::unbounded_channel();
    let stdout = child.0.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Some(url) = line.strip_prefix("Open ") {
                let _ = opened.send(url.split("/#").next().unwrap().to_string());
            }
        }
    });
    let base = tokio::time::timeout(Duration::from_secs(20), opens.recv()).await.unwrap().expect("it prints its URL");
    let http = reqwest::Client::new();
    let create = |name: &str| http.post(format!("{base}/api/projects")).bearer_auth("t").json(&json!({ "name": name })).send();
    create("Before the backup").await.unwrap();
    let backup = http.get(format!("{base}/api/backup")).bearer_auth("t").send().await.unwrap().bytes().await.unwrap().to_vec();
    create("After the backup").await.unwrap();

    let (st, v) = restore(&http, &base, b"not a zip".to_vec()).await;
    assert_eq!((st.as_u16(), v["code"].as_str()), (400, Some("not_a_backup")), "a file that is not a backup is refused: {v}");
    assert!(v["message"].as_str().unwrap().starts_with("the uploaded file is not"), "naming what the user sent, not a spool: {v}");
    assert!(project_names(&http, &base).await.contains(&"After the backup".to_string()), "and changes nothing");

    let (st, v) = restore(&http, &base, backup).await;
    assert_eq!(st.as_u16(), 200, "{v}");
    assert_eq!(v["projects"], 2, "the answer says what came back (Default and one more): {v}");
    let kept = std::path::PathBuf::from(v["kept_as"].as_str().unwrap());
    let back =
        tokio::time::timeout(Duration::from_secs(30), opens.recv()).await.expect("Maru comes back").expect("and prints its URL again");
    assert_eq!(back, base, "on the same address");
    let names = project_names(&http, &base).await;
    assert!(names.contains(&"Before the backup".to_string()), "the token still works and the backup's data is open: {names:?}");
    assert!(!names.contains(&"After the backup".to_string()), "the data folder now holds the backup: {names:?}");
    assert!(kept.join("maru.db").is_file(), "the data it replaced is kept whole, in {}", kept.display());
    assert_eq!(kept.parent(), data.parent(), "beside the data folder");
    assert!(child.0.try_wait().unwrap().is_none(), "the same process serves on (a terminal or service manager keeps it)");
}

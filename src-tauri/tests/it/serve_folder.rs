//! `maru serve --folder DIR` links a project to the folder: one named after it the first time,
//! the same one every later time.

#![cfg(unix)]

use crate::support;

use serde_json::Value;

async fn projects(base: &str) -> Vec<Value> {
    let res = reqwest::Client::new().get(format!("{base}/api/projects")).bearer_auth("t").send().await.unwrap();
    res.json::<Vec<Value>>().await.unwrap()
}

#[tokio::test]
async fn serve_with_a_folder_links_one_project_to_it() {
    let data = tempfile::tempdir().unwrap();
    let tree = tempfile::tempdir().unwrap();
    let folder = tree.path().join("garden-notes");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("AGENTS.md"), "Plants by their Latin names.").unwrap();
    let real = std::fs::canonicalize(&folder).unwrap().to_string_lossy().into_owned();
    for run in 0..2 {
        let (mut child, base) = support::serve_with(data.path(), &["--folder".as_ref(), folder.as_os_str()]);
        let linked: Vec<Value> = projects(&base).await.into_iter().filter(|p| p["folder"] == real.as_str()).collect();
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(linked.len(), 1, "run {run}: exactly one project follows the folder, never a second copy: {linked:?}");
        assert_eq!(linked[0]["name"], "garden-notes", "it is named after the folder");
    }
}

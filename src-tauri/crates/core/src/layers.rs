//! The core's modules only use modules below them. A module that reached upward (the turn into
//! the API's context, logging into the API for a folder helper) makes every later change drag the
//! layer above along; this test reads the sources and names any such import. Between crates the
//! compiler does it: the server and the window above the core, the store, the client and the
//! error type below it.

use std::path::Path;

/// Top to bottom. A module may use its own layer and those after it, never those before.
/// Every module of this crate is listed (the test fails on one it does not know), so none
/// escapes the check.
const LAYERS: &[&[&str]] = &[
    &["lib", "layers", "api"],
    &["chat"],
    &["app"],
    &["attachments", "memory", "backup", "imports", "sharing"],
    &["prompt", "tools"],
    &["store", "llm", "logging", "paths", "secrets", "error"],
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

fn top_module(path: &Path, src: &Path) -> String {
    let rel = path.strip_prefix(src).unwrap();
    let first = rel.components().next().unwrap().as_os_str().to_string_lossy().to_string();
    first.trim_end_matches(".rs").to_string()
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn arrows_only_point_down() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![];
    rust_files(&src, &mut files);
    let mut upward = vec![];
    for file in files {
        let module = top_module(&file, &src);
        let own = layer_of(&module).unwrap_or_else(|| panic!("{module} is in no layer: add it to LAYERS"));
        let text = std::fs::read_to_string(&file).unwrap();
        for (n, line) in text.lines().enumerate() {
            for (at, _) in line.match_indices("crate::") {
                let used: String = line[at + 7..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if let Some(theirs) = layer_of(&used) {
                    if theirs < own {
                        upward.push(format!("{}:{}: {module} uses {used}", file.strip_prefix(&src).unwrap().display(), n + 1));
                    }
                }
            }
        }
    }
    assert!(upward.is_empty(), "imports that point up a layer (move the shared part down instead):\n{}", upward.join("\n"));
}

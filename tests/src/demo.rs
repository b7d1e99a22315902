//! A stand-in for llama.cpp's server, to test how Maru starts and stops the demo model without
//! building llama.cpp: a Python script that answers `/health` and `/v1/models` on the `--port` it
//! is given.

use std::path::{Path, PathBuf};

const SCRIPT: &str = r#"#!/usr/bin/env python3
import http.server, sys
port = int(sys.argv[sys.argv.index("--port") + 1])
class Health(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        models = self.path == "/v1/models"
        self.send_response(200 if self.path == "/health" or models else 404)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        if models:
            self.wfile.write(b'{"object":"list","data":[{"id":"SmolLM2-135M-demo","object":"model"}]}')
        else:
            self.wfile.write(b'{"status":"ok"}')
    def log_message(self, *args):
        pass
http.server.HTTPServer(("127.0.0.1", port), Health).serve_forever()
"#;

/// Writes the stand-in (and an empty model file) into `dir`; returns (server, model).
pub fn fake_llama_server(dir: &Path) -> (PathBuf, PathBuf) {
    script(dir, "llama-server", SCRIPT)
}

/// A server program that exits at once, as a broken build would.
pub fn broken_llama_server(dir: &Path) -> (PathBuf, PathBuf) {
    script(dir, "broken-llama-server", "#!/bin/sh\necho 'error: cannot load model' >&2\nexit 1\n")
}

fn script(dir: &Path, name: &str, text: &str) -> (PathBuf, PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let server = dir.join(name);
    std::fs::write(&server, text).expect("write the stand-in server");
    std::fs::set_permissions(&server, std::fs::Permissions::from_mode(0o755)).expect("make it executable");
    let model = dir.join("model.gguf");
    std::fs::write(&model, b"GGUF").expect("write a model file");
    (server, model)
}

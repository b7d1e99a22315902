#!/usr/bin/env bash
# Starts Maru: the desktop window when there is a display, else `maru serve` for a browser.
# Run through `make run`, which builds the web UI first.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/maru/target}"

# The demo model a first run offers when no model server answers: llama.cpp's server with SmolLM2,
# built and cached once (the tests use the same). MARU_NO_DEMO=1 skips it.
if [ "${MARU_NO_DEMO:-}" != 1 ]; then
  echo "== preparing the demo model (once; cached in ~/.cache/maru)" >&2
  tests/real-server/setup.sh >/dev/null || echo "the demo model could not be prepared; connect your own model server in Settings" >&2
fi

if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ "${MARU_HEADLESS:-}" != 1 ]; then
  scripts/deps.sh desktop
  # The window's build lives apart from the headless one (see scripts/test.sh).
  export CARGO_TARGET_DIR="$HOME/.cache/maru/target-desktop"
  exec cargo run -p maru --release -- "$@"
fi
scripts/deps.sh run
exec cargo run -p maru --no-default-features --release -- serve "$@"

#!/usr/bin/env bash
# Tests in the real window: builds Maru with the desktop window, starts Xvfb (and a D-Bus session
# when there is none, for the single-instance hand-over), tauri-driver over WebKitWebDriver, and
# runs window.test.mjs (or the script named: `run.sh figures.mjs` prints the app's figures).
# Screenshots land in tests/desktop/out/.
# Env: CARGO_TARGET_DIR (default ~/.cache/maru/target-desktop), MARU_DESKTOP_BIN (skip the build).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cd "$repo"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/maru/target-desktop}"

scripts/deps.sh desktop
if [[ -z "${MARU_DESKTOP_BIN:-}" ]]; then
  # The window's page is built into the binary: the UI first.
  if [[ ! -f ui/dist/index.html ]] || [[ -n "$(find ui/src ui/index.html ui/package-lock.json -newer ui/dist/index.html -print -quit)" ]]; then
    npm ci --prefix ui --no-audit --no-fund
    npm run build --prefix ui
  fi
  echo "== building maru with the desktop window (target dir $CARGO_TARGET_DIR)" >&2
  nice -n 10 cargo build -p maru
  export MARU_DESKTOP_BIN="$CARGO_TARGET_DIR/debug/maru"
fi
# `npm install`, not `ci`: the lock has only the Linux build of tauri-driver, the registry here has no others.
(cd "$here" && npm install --no-audit --no-fund)

work="$(mktemp -d)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# -displayfd makes Xvfb pick a free display and write its number once it accepts clients.
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$work/display" 2>"$work/xvfb.log" &
pids+=($!)
for _ in $(seq 1 100); do [[ -s "$work/display" ]] && break; sleep 0.1; done
[[ -s "$work/display" ]] || { echo "Xvfb did not start" >&2; cat "$work/xvfb.log" >&2; exit 1; }
export DISPLAY=":$(tr -d '[:space:]' <"$work/display")"

# The window's own folders (its remembered size, the Downloads folder) stay inside this run.
mkdir -p "$work/config" "$work/downloads"
printf 'XDG_DOWNLOAD_DIR="%s"\n' "$work/downloads" >"$work/config/user-dirs.dirs"
export XDG_CONFIG_HOME="$work/config" MARU_TEST_DOWNLOADS="$work/downloads"

port="$(node -e 'const s=require("net").createServer().listen(0,()=>{console.log(s.address().port);s.close()})')"
native="$(node -e 'const s=require("net").createServer().listen(0,()=>{console.log(s.address().port);s.close()})')"
run_tests() {
  "$here/node_modules/.bin/tauri-driver" --port "$port" --native-port "$native" >"$work/driver.log" 2>&1 &
  local driver=$!
  for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$port/status" >/dev/null 2>&1 && break; sleep 0.1; done
  local rc=0
  if [[ "$script" == *.test.mjs ]]; then
    TAURI_DRIVER_URL="http://127.0.0.1:$port" node --test --test-concurrency=1 "$here/$script" || rc=$?
  else
    TAURI_DRIVER_URL="http://127.0.0.1:$port" node "$here/$script" || rc=$?
  fi
  kill "$driver" 2>/dev/null || true
  [[ $rc -eq 0 ]] || tail -n 40 "$work/driver.log" >&2
  return $rc
}
export -f run_tests
script="${1:-window.test.mjs}"
export here port native work script
if [[ -z "${DBUS_SESSION_BUS_ADDRESS:-}" ]] && command -v dbus-run-session >/dev/null; then
  dbus-run-session -- bash -c run_tests
else
  run_tests
fi

#!/usr/bin/env bash
# Desktop smoke test: builds Maru with the window, opens it under Xvfb, checks that the window's
# server answers /api/health and saves a screenshot. Exits 0 only if both worked.
# Usage: scripts/desktop-smoke.sh [screenshot.png]   (default: /tmp/maru-desktop.png)
# Env: CARGO_TARGET_DIR (default ~/.cache/maru/target-desktop, kept apart from the headless
# builds), CARGO_BUILD_JOBS, MARU_SMOKE_TIMEOUT (seconds to wait for the server, default 60),
# MARU_SMOKE_SETTLE (seconds to let the page render before the screenshot, default 5).
set -euo pipefail
cd "$(dirname "$0")/.."
shot="$(realpath -m "${1:-/tmp/maru-desktop.png}")"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/maru/target-desktop}"
timeout_s="${MARU_SMOKE_TIMEOUT:-60}"
settle_s="${MARU_SMOKE_SETTLE:-5}"

scripts/deps.sh desktop

echo "== building maru with the desktop window (target dir $CARGO_TARGET_DIR)" >&2
nice -n 10 cargo build -p maru
bin="$CARGO_TARGET_DIR/debug/maru"

work="$(mktemp -d)"
xvfb_pid=""
app_pid=""
cleanup() {
  [ -n "$app_pid" ] && kill "$app_pid" 2>/dev/null && wait "$app_pid" 2>/dev/null || true
  [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null && wait "$xvfb_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# -displayfd makes Xvfb pick a free display and write its number once it accepts clients.
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$work/display" 2>"$work/xvfb.log" &
xvfb_pid=$!
for _ in $(seq 1 100); do
  [ -s "$work/display" ] && break
  sleep 0.1
done
if ! [ -s "$work/display" ]; then
  echo "FAIL: Xvfb did not start" >&2
  cat "$work/xvfb.log" >&2
  exit 1
fi
export DISPLAY=":$(tr -d '[:space:]' <"$work/display")"
echo "== Xvfb on $DISPLAY" >&2

# A known token lets this script call /api; the app otherwise makes a fresh one per start.
token="$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"
MARU_TOKEN="$token" "$bin" --data-dir "$work/data" >"$work/app.out" 2>"$work/app.err" &
app_pid=$!

origin=""
healthy=""
for _ in $(seq 1 $((timeout_s * 5))); do
  if ! kill -0 "$app_pid" 2>/dev/null; then
    echo "FAIL: maru exited early" >&2
    break
  fi
  if [ -z "$origin" ]; then
    origin="$(sed -n 's/^Maru window serving \(http:[^ ]*\).*/\1/p' "$work/app.out" | head -n1)"
  fi
  if [ -n "$origin" ] && curl -fsS -m 2 -H "Authorization: Bearer $token" "$origin/api/health" >"$work/health.json" 2>/dev/null; then
    healthy=1
    break
  fi
  sleep 0.2
done
if [ -z "$healthy" ]; then
  echo "FAIL: no answer from /api/health (origin: ${origin:-never printed})" >&2
  tail -n 40 "$work/app.out" "$work/app.err" >&2 || true
  exit 1
fi
echo "== $origin/api/health: $(cat "$work/health.json")" >&2

sleep "$settle_s"
if ! kill -0 "$app_pid" 2>/dev/null; then
  echo "FAIL: maru exited before the screenshot" >&2
  tail -n 40 "$work/app.err" >&2 || true
  exit 1
fi
mkdir -p "$(dirname "$shot")"
rm -f "$shot"
import -window root "$shot"
if ! [ -s "$shot" ]; then
  echo "FAIL: the screenshot $shot is empty" >&2
  exit 1
fi
colours="$(identify -format '%k' "$shot")"
echo "== screenshot $shot ($(identify -format '%wx%h' "$shot"), $colours colours)" >&2
# A bare Xvfb root is one flat colour: anything more means a window was drawn.
if [ "$colours" -le 1 ]; then
  echo "FAIL: the screenshot shows no window" >&2
  exit 1
fi
echo "desktop smoke test passed"

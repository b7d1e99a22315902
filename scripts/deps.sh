#!/usr/bin/env bash
# Installs what Maru needs to build and test on Debian 12, skipping what is already there.
# Usage: scripts/deps.sh [run|test|desktop]
set -euo pipefail
need=(pkg-config build-essential libssl-dev)
# the Tauri window: WebKitGTK and friends; for its tests Xvfb, ImageMagick, WebKitWebDriver and a D-Bus session.
desktop=(libwebkit2gtk-4.1-dev libsoup-3.0-dev libjavascriptcoregtk-4.1-dev librsvg2-dev
         libayatana-appindicator3-dev libssl-dev xvfb xauth imagemagick curl webkit2gtk-driver dbus)
case "${1:-run}" in
  # chromium drives the browser tests (a Korean font, so Korean text is measured as a user sees
  # it); python3-venv hosts the test model server's build tools; procps's pgrep finds tool servers.
  # All tiers test the one build with the window (scripts/test.sh), so its packages come too.
  test) need+=(chromium fonts-nanum python3-venv curl sqlite3 procps "${desktop[@]}") ;;
  desktop) need+=("${desktop[@]}") ;;
esac
missing=()
for p in "${need[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if ! command -v cargo >/dev/null; then
  echo "Rust is missing: install it from https://rustup.rs and run this again" >&2
  exit 1
fi
if ! command -v npm >/dev/null; then
  echo "Node.js 20 and npm are missing: install them and run this again" >&2
  exit 1
fi

#!/usr/bin/env bash
# Builds the installable packages: a .deb and, when its tools can be fetched, an AppImage.
# Run through `make package`; the files land in dist/ at the top of the checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/maru/target-desktop}"
# The same Tauri version as the app's crate; fetched from the npm registry once.
cli=(npx --yes @tauri-apps/cli@2.12.5)

scripts/deps.sh desktop
npm ci --prefix ui --no-audit --no-fund
npm run build --prefix ui

cd src-tauri
echo "== building the release binary and the .deb" >&2
"${cli[@]}" build --ci --bundles deb
out="$CARGO_TARGET_DIR/release/bundle"
echo "== building the AppImage" >&2
# The AppImage bundler downloads linuxdeploy from GitHub on first use.
if ! "${cli[@]}" build --ci --bundles appimage; then
  echo "no AppImage: its tools (linuxdeploy) could not be fetched; the .deb is built" >&2
fi
cd ..
mkdir -p dist
find "$out" -maxdepth 2 \( -name '*.deb' -o -name '*.AppImage' \) -exec cp {} dist/ \;
ls -l dist/ "$CARGO_TARGET_DIR/release/maru"

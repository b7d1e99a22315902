#!/usr/bin/env bash
# Browser end-to-end tests: builds the UI if needed, installs playwright-core, runs the tests (chat, memory, long chat, keyboard, smaller fixes, Korean, exports, reply versions, the header's fit, following a reply, the model server's settings, a reply's tool calls, attachments and undo, tool servers and their calls' approval, skills, several model servers, restoring a backup, tool servers from an mcp.json, a project's settings (folder, instructions files, files as a tree), the model picker, the / menu and the sidebar that collapses, sharing with other apps)
# against `maru serve` (MARU_BIN, default ~/.cache/maru/target/debug/maru) and Debian's Chromium.
# Screenshots land in tests/e2e/out/.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

export MARU_BIN="${MARU_BIN:-$HOME/.cache/maru/target/debug/maru}"
if [[ ! -x "$MARU_BIN" ]]; then
  echo "e2e: no maru binary at $MARU_BIN; build it with" >&2
  echo "  CARGO_TARGET_DIR=\$HOME/.cache/maru/target cargo build -p maru --no-default-features" >&2
  exit 1
fi
if [[ ! -x "${CHROMIUM:-/usr/bin/chromium}" ]]; then
  echo "e2e: Chromium is missing; install it with: apt-get install -y chromium" >&2
  exit 1
fi

# The UI: built when missing or older than its sources.
ui="$repo/ui"
if [[ ! -f "$ui/dist/index.html" ]] || [[ -n "$(find "$ui/src" "$ui/index.html" "$ui/package-lock.json" -newer "$ui/dist/index.html" -print -quit)" ]]; then
  echo "== building the UI" >&2
  npm ci --prefix "$ui" --no-audit --no-fund
  npm run build --prefix "$ui"
fi

echo "== e2e dependencies" >&2
(cd "$here" && npm ci --no-audit --no-fund)

echo "== browser end-to-end test" >&2
cd "$here"
exec node --test --test-concurrency=1 chat.test.mjs memory.test.mjs longchat.test.mjs keyboard.test.mjs fixes.test.mjs korean.test.mjs exports.test.mjs versions.test.mjs header.test.mjs follow.test.mjs settings.test.mjs replies.test.mjs toolservers.test.mjs skills.test.mjs servers.test.mjs restore.test.mjs mcpimport.test.mjs project.test.mjs finding.test.mjs sharing.test.mjs

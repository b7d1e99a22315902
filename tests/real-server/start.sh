#!/usr/bin/env bash
# Start llama-server with SmolLM2 on a free loopback port, wait until it is
# ready, and print (for `eval`):
#   MARU_TEST_LLAMA_URL=http://127.0.0.1:<port>/v1
#   MARU_TEST_LLAMA_PID=<pid>
# Extra arguments are passed on to llama-server. Stop it with kill <pid>.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="${MARU_CACHE_DIR:-$HOME/.cache/maru}"
LOG="$CACHE/llama-server.log"

eval "$(bash "$HERE/setup.sh")"

PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"

# --jinja: use the model's own chat template (needed for tools).
"$LLAMA_SERVER" -m "$SMOLLM_GGUF" --host 127.0.0.1 --port "$PORT" -c 4096 --jinja "$@" \
    </dev/null >"$LOG" 2>&1 &
PID=$!

# /health answers 503 while the model loads and 200 once it is ready.
if ! python3 - "$PORT" "$PID" <<'EOF'
import os, sys, time, urllib.request
port, pid = sys.argv[1], int(sys.argv[2])
deadline = time.time() + 60
while time.time() < deadline:
    try:
        os.kill(pid, 0)
    except OSError:
        sys.exit("llama-server exited")
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
            if r.status == 200:
                sys.exit(0)
    except OSError:
        pass
    time.sleep(0.25)
sys.exit("llama-server not healthy after 60 s")
EOF
then
    kill "$PID" 2>/dev/null || true
    tail -n 30 "$LOG" >&2
    exit 1
fi

echo "llama-server ready on port $PORT (pid $PID, log $LOG)" >&2
echo "MARU_TEST_LLAMA_URL=http://127.0.0.1:$PORT/v1"
echo "MARU_TEST_LLAMA_PID=$PID"

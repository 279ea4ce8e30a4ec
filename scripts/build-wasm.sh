#!/usr/bin/env bash
# Builds pkg/ with wasm-pack in release mode. wasm-opt comes from npm's binaryen 132, first on
# PATH (Debian's wasm-opt 108 corrupts the externref table of release builds).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
wasm-pack --quiet build --release --target web --mode no-install --no-pack 2>&1 | grep -v '^\[INFO\]' >&2 || true
test -f pkg/checkpoint_lab_bg.wasm || { echo "build-wasm: wasm-pack produced no pkg/" >&2; exit 1; }

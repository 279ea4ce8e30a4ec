#!/usr/bin/env bash
# Builds pkg/ with wasm-pack in release mode, then adds the <checkpoint-lab> element, its styles,
# the settings table it builds its controls from and its TypeScript declarations, so pkg/ alone is
# everything a lesson page needs. wasm-opt comes from npm's binaryen 132, first on PATH (Debian's
# wasm-opt 108 corrupts release builds).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
# opt-level "s" for the browser build: 6% smaller gzipped at the same speed there (opt-level "z"
# is 8% smaller again but 50% slower); native builds keep opt-level 3.
CARGO_PROFILE_RELEASE_OPT_LEVEL=s wasm-pack --quiet build --release --target web --mode no-install -- --no-default-features 2>&1 | grep -v '^\[INFO\]' >&2 || true
test -f pkg/checkpoint_lab_bg.wasm || { echo "build-wasm: wasm-pack produced no pkg/" >&2; exit 1; }
cp www/element.js pkg/checkpoint-lab.js
cp www/checkpoint-lab.css pkg/checkpoint-lab.css
cp www/checkpoint-lab.d.ts pkg/checkpoint-lab.d.ts
cp www/settings.js pkg/settings.js
node -e '
  const fs = require("fs");
  const pkg = JSON.parse(fs.readFileSync("pkg/package.json", "utf8"));
  pkg.files = [...new Set([...(pkg.files || []), "checkpoint-lab.js", "checkpoint-lab.css", "checkpoint-lab.d.ts", "settings.js"])];
  pkg.exports = { ".": { types: "./checkpoint-lab.d.ts", default: "./checkpoint-lab.js" }, "./engine": "./checkpoint_lab.js" };
  fs.writeFileSync("pkg/package.json", JSON.stringify(pkg, null, 2) + "\n");
'

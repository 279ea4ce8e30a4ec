#!/usr/bin/env bash
# Builds pkg/: the lab's WebAssembly module in two parts and the exercises' module, then adds the
# <checkpoint-lab> element, its styles, the settings table it builds its controls from, its
# exercise panel and its TypeScript declarations, so pkg/ alone is everything a lesson page needs.
# wasm-opt comes from npm's binaryen 132, first on PATH (Debian's wasm-opt 108 corrupts release
# builds).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
# opt-level 3, as natively: against opt-level "s", 6.6% larger gzipped (322 KB against 302 KB)
# but the engine's share of a slider change is 16% shorter in the browser (BENCHMARKS.md).
# Two modules from the one crate (src/web): the lab, whose first part draws the first chart and
# whose second the page loads once that chart is drawn; and the exercises, which the element loads
# only where a page shows exercises.
rm -rf pkg target/split target/pkg-lab target/pkg-exercises/checkpoint_lab_exercises_bg.wasm
mkdir -p pkg
# The lab, in two parts sharing one memory (src/web/split.rs): linked with its relocations kept,
# cut by wasm-split-cli at the functions marked wasm_split(rest), the first part finished by
# wasm-bindgen (keeping the table and globals the second part imports), each part optimised.
cargo rustc --quiet --release --lib --crate-type cdylib --target wasm32-unknown-unknown --no-default-features --features split \
  -- -C link-arg=--emit-relocs
wasm-split-cli target/wasm32-unknown-unknown/release/checkpoint_lab.wasm target/split --out-name checkpoint_lab
test -f target/split/split_rest.wasm || { echo "build-wasm: wasm-split-cli produced no second part" >&2; exit 1; }
wasm-bindgen --target web --keep-lld-exports --out-dir target/pkg-lab target/split/checkpoint_lab.wasm
WASM_OPT_FEATURES=(--enable-bulk-memory --enable-nontrapping-float-to-int --enable-reference-types --enable-multivalue
  --enable-sign-ext --enable-mutable-globals --strip-debug --strip-producers)
wasm-opt -O3 "${WASM_OPT_FEATURES[@]}" target/pkg-lab/checkpoint_lab_bg.wasm -o pkg/checkpoint_lab_bg.wasm
wasm-opt -O3 "${WASM_OPT_FEATURES[@]}" target/split/split_rest.wasm -o pkg/checkpoint_lab_rest_bg.wasm
# The first part loads the second through pkg/checkpoint_lab_rest.js (www/lab-rest.js).
grep -q '"./__wasm_split.js"' target/pkg-lab/checkpoint_lab.js || { echo "build-wasm: the glue imports no second part" >&2; exit 1; }
sed 's#^\(import .* from \)"\./__wasm_split\.js"#\1"./checkpoint_lab_rest.js"#' target/pkg-lab/checkpoint_lab.js > pkg/checkpoint_lab.js
grep -q '^import .* from "./checkpoint_lab_rest.js"' pkg/checkpoint_lab.js || { echo "build-wasm: the glue's import of the second part was not rewritten" >&2; exit 1; }
cp target/pkg-lab/checkpoint_lab{.d.ts,_bg.wasm.d.ts} pkg/
cp www/lab-rest.js pkg/checkpoint_lab_rest.js
cp README.md pkg/README.md
printf '*\n' > pkg/.gitignore
wasm-pack --quiet build --release --target web --mode no-install --out-dir target/pkg-exercises --out-name checkpoint_lab_exercises \
  -- --no-default-features --features exercises 2>&1 | grep -v '^\[INFO\]' >&2 || true
test -f target/pkg-exercises/checkpoint_lab_exercises_bg.wasm || { echo "build-wasm: wasm-pack produced no exercises module" >&2; exit 1; }
cp target/pkg-exercises/checkpoint_lab_exercises{.js,.d.ts,_bg.wasm,_bg.wasm.d.ts} pkg/
cp www/element.js pkg/checkpoint-lab.js
cp www/checkpoint-lab.css pkg/checkpoint-lab.css
cp www/checkpoint-lab.d.ts pkg/checkpoint-lab.d.ts
cp www/settings.js pkg/settings.js
cp www/exercise-panel.js pkg/exercise-panel.js
cp www/first-picture.svg www/first-picture-dark.svg pkg/
cp LICENSE-MIT LICENSE-APACHE pkg/
# The package's scripts are minified (the sources, with their comments, are www/ and src/): a page
# loads a third fewer bytes before its first chart (BENCHMARKS.md).
for js in checkpoint-lab.js settings.js exercise-panel.js checkpoint_lab.js checkpoint_lab_rest.js checkpoint_lab_exercises.js; do
  esbuild --log-level=warning --minify --format=esm "pkg/$js" --outfile="pkg/$js" --allow-overwrite
done
# The package's entry is the element; the raw engine is "checkpoint-lab/engine", the exercises'
# checks "checkpoint-lab/exercises". The element module
# defines <checkpoint-lab> when imported, so it is a side effect bundlers must keep.
node -e '
  const fs = require("fs");
  const version = fs.readFileSync("Cargo.toml", "utf8").match(/^version = "([^"]+)"/m)[1];
  const pkg = { name: "checkpoint-lab", version };
  pkg.description = "An interactive lesson component on restarting a stream: checkpoints, crash, replay and four sink designs, simulated in WebAssembly.";
  pkg.license = "MIT OR Apache-2.0";
  pkg.type = "module";
  pkg.main = "checkpoint-lab.js";
  pkg.module = "checkpoint-lab.js";
  pkg.types = "checkpoint-lab.d.ts";
  pkg.sideEffects = ["./checkpoint-lab.js", "./snippets/*"];
  pkg.exports = {
    ".": { types: "./checkpoint-lab.d.ts", default: "./checkpoint-lab.js" },
    "./engine": { types: "./checkpoint_lab.d.ts", default: "./checkpoint_lab.js" },
    "./exercises": { types: "./checkpoint_lab_exercises.d.ts", default: "./checkpoint_lab_exercises.js" },
    "./settings.js": "./settings.js",
    "./checkpoint-lab.css": "./checkpoint-lab.css",
    "./checkpoint_lab_bg.wasm": "./checkpoint_lab_bg.wasm",
    "./checkpoint_lab_rest.js": "./checkpoint_lab_rest.js",
    "./checkpoint_lab_rest_bg.wasm": "./checkpoint_lab_rest_bg.wasm",
    "./checkpoint_lab_exercises_bg.wasm": "./checkpoint_lab_exercises_bg.wasm",
    "./first-picture.svg": "./first-picture.svg",
    "./first-picture-dark.svg": "./first-picture-dark.svg",
    "./package.json": "./package.json",
  };
  pkg.files = [
    "checkpoint-lab.js", "checkpoint-lab.css", "checkpoint-lab.d.ts", "settings.js", "exercise-panel.js",
    "checkpoint_lab.js", "checkpoint_lab.d.ts", "checkpoint_lab_bg.wasm", "checkpoint_lab_bg.wasm.d.ts",
    "checkpoint_lab_rest.js", "checkpoint_lab_rest_bg.wasm",
    "checkpoint_lab_exercises.js", "checkpoint_lab_exercises.d.ts", "checkpoint_lab_exercises_bg.wasm",
    "checkpoint_lab_exercises_bg.wasm.d.ts", "first-picture.svg", "first-picture-dark.svg",
    "LICENSE-MIT", "LICENSE-APACHE", "README.md",
  ];
  fs.writeFileSync("pkg/package.json", JSON.stringify(pkg, null, 2) + "\n");
'

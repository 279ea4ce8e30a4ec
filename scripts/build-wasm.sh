#!/usr/bin/env bash
# Builds pkg/ with wasm-pack in release mode, then adds the <checkpoint-lab> element, its styles,
# the settings table it builds its controls from, its exercise panel and its TypeScript
# declarations, so pkg/ alone is everything a lesson page needs. wasm-opt comes from npm's
# binaryen 132, first on PATH (Debian's wasm-opt 108 corrupts release builds).
# With --test-hooks it also builds target/pkg-hooks/: pkg/ with a lab that can panic on purpose
# (feature test-hooks), for the end-to-end test that proves a panic does not poison the page.
set -euo pipefail
cd "$(dirname "$0")/.."
test_hooks=false
[ "${1:-}" = "--test-hooks" ] && test_hooks=true
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
# opt-level 3, as natively: against opt-level "s", 6.6% larger gzipped (322 KB against 302 KB)
# but the engine's share of a slider change is 16% shorter in the browser (BENCHMARKS.md).
# Three modules from the one crate (src/web): the lab, with the engine; the first chart, which
# the element loads before the lab where a page's HTML holds no picture of the first frame; and
# the exercises' checks, which the element loads only where a page shows exercises and which run
# the lab's engine rather than carrying one. The last two are built for size (profile small,
# wasm-opt -Oz).
rm -f pkg/checkpoint_lab_bg.wasm target/pkg-exercises/checkpoint_lab_exercises_bg.wasm target/pkg-first/checkpoint_lab_first_bg.wasm
wasm-pack --quiet build --release --target web --mode no-install -- --no-default-features --features lab 2>&1 | grep -v '^\[INFO\]' >&2 || true
test -f pkg/checkpoint_lab_bg.wasm || { echo "build-wasm: wasm-pack produced no pkg/" >&2; exit 1; }
# Builds one module for size into target/pkg-NAME and copies it into pkg/ as checkpoint_lab_NAME.
small_module() {
  local name=$1 feature=$2
  wasm-pack --quiet build --profile small --no-opt --target web --mode no-install --out-dir "target/pkg-$name" --out-name "checkpoint_lab_$name" \
    -- --no-default-features --features "$feature" 2>&1 | grep -v '^\[INFO\]' >&2 || true
  test -f "target/pkg-$name/checkpoint_lab_${name}_bg.wasm" || { echo "build-wasm: wasm-pack produced no $name module" >&2; exit 1; }
  wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --strip-debug --strip-producers \
    "target/pkg-$name/checkpoint_lab_${name}_bg.wasm" -o "pkg/checkpoint_lab_${name}_bg.wasm"
  cp "target/pkg-$name/checkpoint_lab_$name"{.js,.d.ts,_bg.wasm.d.ts} pkg/
}
small_module first first-chart
small_module exercises exercises
cp www/checkpoint-lab.css pkg/checkpoint-lab.css
cp www/checkpoint-lab.d.ts pkg/checkpoint-lab.d.ts
cp www/settings.js pkg/settings.js
cp www/exercise-panel.js pkg/exercise-panel.js
cp www/first-picture.svg www/first-picture-dark.svg pkg/
cp LICENSE-MIT LICENSE-APACHE pkg/
# The component manifest and VS Code's HTML custom data, from the declarations' generated block
# (the settings table) and the element's lists.
node scripts/custom-elements.mjs pkg
# The package's README is for lesson authors (install, embed, events, types, toolchains), not the
# repository's, which is about building and testing the project.
cp www/package-README.md pkg/README.md
# The lesson page's "What the sink sees twice" runs its query in SQLite compiled to WebAssembly
# (sql.js, pinned exactly in package.json), which the page loads only when the student reaches that
# section (www/dedupe-sql.js): its script and wasm as npm ships them, with their licence. These are
# the page's files, not the package's (package.json's "files" leaves pkg/sql/ out).
mkdir -p pkg/sql
cp node_modules/sql.js/dist/sql-wasm.js node_modules/sql.js/dist/sql-wasm.wasm pkg/sql/
cp node_modules/sql.js/LICENSE pkg/sql/LICENSE
# The package's scripts are minified (the sources, with their comments, are www/ and src/): the
# element is about half the bytes gzipped (BENCHMARKS.md, "Kept"). The element is www/element.js
# bundled with the files it is split into (the view, the scheduler, the engine's loader, the API);
# the glue, the settings and the modules loaded on demand stay files of their own. The element's
# styles (www/checkpoint-lab.css) go into it as a string, so they are in force from its first
# frame (www/lab-view.js); pkg/checkpoint-lab.css is the same text, for a page that writes the
# first screen into its HTML.
esbuild --log-level=warning --bundle --minify --format=esm --loader:.css=text www/element.js --outfile=pkg/checkpoint-lab.js \
  --external:./checkpoint_lab.js --external:./settings.js --external:./checkpoint_lab_first.js \
  --external:./checkpoint_lab_exercises.js --external:./exercise-panel.js
for js in settings.js exercise-panel.js checkpoint_lab.js checkpoint_lab_exercises.js checkpoint_lab_first.js; do
  esbuild --log-level=warning --minify --format=esm "pkg/$js" --outfile="pkg/$js" --allow-overwrite
done
# The lesson page (index.html) loads its own script and the element as one file: a cold load asks
# for fewer files before its first chart, and the browser sends a fresh page's requests one after
# another (BENCHMARKS.md). The modules the element loads on demand stay files of their own; this
# file is the repository's page, not part of the package.
esbuild --log-level=warning --bundle --minify --format=esm --loader:.css=text www/page.js --outfile=pkg/lesson-page.js \
  --external:./checkpoint_lab_first.js --external:./checkpoint_lab_exercises.js --external:./exercise-panel.js
# The package's entry is the element; the raw engine is "checkpoint-lab/engine", the exercises'
# checks "checkpoint-lab/exercises". The element module
# defines <checkpoint-lab> when imported, so it is a side effect bundlers must keep.
node -e '
  const fs = require("fs");
  const pkg = JSON.parse(fs.readFileSync("pkg/package.json", "utf8"));
  pkg.name = "checkpoint-lab";
  pkg.description = "An interactive lesson component on restarting a stream: checkpoints, crash, replay and four sink designs, simulated in WebAssembly.";
  pkg.license = "MIT OR Apache-2.0";
  pkg.type = "module";
  pkg.main = "checkpoint-lab.js";
  pkg.module = "checkpoint-lab.js";
  pkg.types = "checkpoint-lab.d.ts";
  // Only the element module has an effect on import (it defines <checkpoint-lab>).
  pkg.sideEffects = ["./checkpoint-lab.js"];
  // The main entry reads its wasm from a file in Node with process.getBuiltinModule (20.16).
  pkg.engines = { node: ">=20.16" };
  // The component manifest (custom-elements.json), read by IDEs and documentation tools.
  pkg.customElements = "custom-elements.json";
  // The entry points for TypeScript projects that resolve modules the Node 10 way, which
  // ignores "exports".
  pkg.typesVersions = { "*": {
    engine: ["./checkpoint_lab.d.ts"], exercises: ["./checkpoint_lab_exercises.d.ts"], "first-chart": ["./checkpoint_lab_first.d.ts"],
  } };
  pkg.exports = {
    ".": { types: "./checkpoint-lab.d.ts", default: "./checkpoint-lab.js" },
    "./engine": { types: "./checkpoint_lab.d.ts", default: "./checkpoint_lab.js" },
    "./exercises": { types: "./checkpoint_lab_exercises.d.ts", default: "./checkpoint_lab_exercises.js" },
    "./first-chart": { types: "./checkpoint_lab_first.d.ts", default: "./checkpoint_lab_first.js" },
    "./settings.js": "./settings.js",
    "./checkpoint-lab.css": "./checkpoint-lab.css",
    "./checkpoint_lab_bg.wasm": "./checkpoint_lab_bg.wasm",
    "./checkpoint_lab_exercises_bg.wasm": "./checkpoint_lab_exercises_bg.wasm",
    "./checkpoint_lab_first_bg.wasm": "./checkpoint_lab_first_bg.wasm",
    "./first-picture.svg": "./first-picture.svg",
    "./first-picture-dark.svg": "./first-picture-dark.svg",
    "./custom-elements.json": "./custom-elements.json",
    "./vscode.html-custom-data.json": "./vscode.html-custom-data.json",
    "./package.json": "./package.json",
  };
  pkg.files = [
    "checkpoint-lab.js", "checkpoint-lab.css", "checkpoint-lab.d.ts", "settings.js", "exercise-panel.js",
    "checkpoint_lab.js", "checkpoint_lab.d.ts", "checkpoint_lab_bg.wasm", "checkpoint_lab_bg.wasm.d.ts",
    "checkpoint_lab_exercises.js", "checkpoint_lab_exercises.d.ts", "checkpoint_lab_exercises_bg.wasm",
    "checkpoint_lab_exercises_bg.wasm.d.ts", "checkpoint_lab_first.js", "checkpoint_lab_first.d.ts",
    "checkpoint_lab_first_bg.wasm", "checkpoint_lab_first_bg.wasm.d.ts", "first-picture.svg", "first-picture-dark.svg",
    "custom-elements.json", "vscode.html-custom-data.json", "LICENSE-MIT", "LICENSE-APACHE", "README.md",
  ];
  fs.writeFileSync("pkg/package.json", JSON.stringify(pkg, null, 2) + "\n");
'
if $test_hooks; then
  wasm-pack --quiet build --release --no-opt --target web --mode no-install --out-dir target/pkg-hooks-lab \
    -- --no-default-features --features lab,test-hooks 2>&1 | grep -v '^\[INFO\]' >&2 || true
  test -f target/pkg-hooks-lab/checkpoint_lab_bg.wasm || { echo "build-wasm: wasm-pack produced no test-hooks lab" >&2; exit 1; }
  rm -rf target/pkg-hooks
  cp -r pkg target/pkg-hooks
  cp target/pkg-hooks-lab/checkpoint_lab.js target/pkg-hooks-lab/checkpoint_lab_bg.wasm target/pkg-hooks/
fi

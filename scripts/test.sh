#!/usr/bin/env bash
# Runs every test: rustfmt, clippy (native and wasm32, warnings denied), native cargo tests,
# wasm-bindgen tests in headless Chrome and Firefox, the end-to-end tests in Chromium against the
# release build, and the page, embedding and hostile-host, exercise, student and stress suites again in
# Firefox. Installs whatever is missing first.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

scripts/setup.sh

step() { printf '\n== %s\n' "$1"; }
# Runs a command, keeps its output, and prints its summary lines.
run() {
  local name=$1; shift
  if ! "$@" >"$log/$name" 2>&1; then
    cat "$log/$name"
    echo "FAILED: $name"
    exit 1
  fi
  grep -E '^test result:|^# (pass|fail) ' "$log/$name" || true
}

step "rustfmt"
run fmt cargo fmt --check
step "clippy (native)"
run clippy cargo clippy --all-targets --locked -- -D warnings
step "clippy (wasm32)"
run clippy-wasm cargo clippy --target wasm32-unknown-unknown --no-default-features --features lab,exercises,first-chart,test-hooks --lib --bins --tests --locked -- -D warnings
# Each of the three modules alone, as scripts/build-wasm.sh builds them.
run clippy-wasm-lab cargo clippy --target wasm32-unknown-unknown --no-default-features --features lab --lib --locked -- -D warnings
run clippy-wasm-exercises cargo clippy --target wasm32-unknown-unknown --no-default-features --features exercises --lib --locked -- -D warnings
run clippy-wasm-first-chart cargo clippy --target wasm32-unknown-unknown --no-default-features --features first-chart --lib --locked -- -D warnings
step "cargo test (native)"
run native cargo test --locked
step "wasm-bindgen tests, headless Chrome"
run chrome wasm-pack test --headless --chrome --mode no-install -- --locked --no-default-features --features lab,exercises,first-chart --test web
step "wasm-bindgen tests, headless Firefox"
run firefox wasm-pack test --headless --firefox --mode no-install -- --locked --no-default-features --features lab,exercises,first-chart --test web
step "end-to-end tests (Chromium against the release build), the npm package, the TypeScript declarations"
scripts/build-wasm.sh --test-hooks
run e2e node --test --test-reporter=tap tests/e2e/*.test.mjs
step "end-to-end tests in Firefox (WebDriver BiDi through geckodriver): the page, embedding and hostile-host, exercise, student and stress suites"
run e2e-firefox env E2E_BROWSER=firefox node --test --test-reporter=tap tests/e2e/page.test.mjs tests/e2e/embed.test.mjs tests/e2e/exercise.test.mjs tests/e2e/student.test.mjs tests/e2e/stress.test.mjs

cat "$log"/* | awk '
  /^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
  /^# pass [0-9]+$/ { p += $3 }
  /^# fail [0-9]+$/ { f += $3 }
  END { printf "\ntests: %d passed, %d failed\n", p, f }'

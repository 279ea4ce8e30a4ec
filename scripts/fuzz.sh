#!/usr/bin/env bash
# Fuzzes the input parsers with cargo-fuzz (libFuzzer, nightly Rust): the JSON config, the
# exercise files and their check language, their depth and size limits (nesting thousands deep),
# and the command-line flags.
#   scripts/fuzz.sh [RUNS] [TARGET...]     (default 10,000,000 runs of each target)
# A crash stops the run and leaves its input in fuzz/artifacts/TARGET/; turn it into a test.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
runs=${1:-10000000}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(config_json exercise_json exercise_depth cli_args)
rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
command -v cargo-fuzz >/dev/null || cargo install --locked cargo-fuzz --version 0.13.2
for target in "${targets[@]}"; do
  mkdir -p "fuzz/corpus/$target"
  start=$(date +%s)
  cargo +nightly fuzz run "$target" "fuzz/corpus/$target" -- -runs="$runs" -max_len=4096 -print_final_stats=1 2>&1 |
    grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|==.*ERROR|SUMMARY|Done)' || true
  echo "$target: $runs runs in $(( $(date +%s) - start )) s"
done

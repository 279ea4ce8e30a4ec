#!/usr/bin/env bash
# Checks the Flink export against Flink itself: installs PyFlink (Flink 1.20) into target/pyflink
# from the Python package index, then starts a local mini cluster with the configuration
# `checkpoint-lab export --engine flink` prints for a handful of settings, and runs a small job on
# each, after checking every key is one Flink declares. Fails if Flink refuses one of them, or
# accepts a deliberately broken control (a heartbeat timeout below the interval, a misspelt key). Needs Python 3 and Java 11 or 17; takes a few minutes. Not part of
# scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
FLINK_VERSION=1.20.5
venv=target/pyflink
if ! "$venv/bin/python" -c "import pyflink" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "apache-flink==$FLINK_VERSION"
fi
cargo build --release --locked --quiet --bin checkpoint-lab
cli=target/release/checkpoint-lab
checkpoints="file://$PWD/target/pyflink/checkpoints"

# One JSON case from an export: its key: value lines, with the checkpoint directory made local.
case_json() {
  local name=$1 accept=$2; shift 2
  "$cli" export --engine flink "$@" | python3 -c '
import json, sys
name, accept, checkpoints = sys.argv[1], sys.argv[2] == "true", sys.argv[3]
pairs = []
for line in sys.stdin:
    line = line.strip()
    if not line or line.startswith("#"):
        continue
    key, value = line.split(": ", 1)
    pairs.append([key, checkpoints if key == "execution.checkpointing.dir" else value])
print(json.dumps({"name": name, "accept": accept, "pairs": pairs}))
' "$name" "$accept" "$checkpoints"
}

{
  echo "["
  case_json "the lesson's scenario" true; echo ","
  case_json "a task failure, exponential backoff" true --failure task --restart-strategy exponential-delay; echo ","
  case_json "Flink's heartbeat defaults" true --heartbeat-interval 10s --heartbeat-timeout 50s; echo ","
  case_json "a 100 ms heartbeat, a 2 min timeout" true --heartbeat-interval 100ms --heartbeat-timeout 2m; echo ","
  case_json "at least once, incremental" true --checkpointing-mode at-least-once --snapshots incremental; echo ","
  case_json "unaligned every 5 s, a 5 s fixed delay" true --alignment unaligned --interval 5s --restart-delay 5s; echo ","
  case_json "a slow backoff" true --restart-strategy exponential-delay --backoff-initial 10s --backoff-multiplier 3 --backoff-max 1h --backoff-jitter 0
  echo ","
  # An export that opens with warnings (an hourly interval past the transaction timeout): its
  # warnings are comments, and the keys still load.
  case_json "an hourly interval with the transactional sink, warned" true --interval 1h --sink transactional 2>/dev/null
  echo ","
  case_json "a 1 MB/s store: a raised checkpoint timeout" true --store-write 1MB/s --sink transactional 2>/dev/null
  echo ","
  # The control: the lesson's export with the timeout below the interval, which Flink must refuse.
  case_json "control: heartbeat timeout below its interval" false | sed 's/"heartbeat.timeout", "10000"/"heartbeat.timeout", "5000"/'
  echo ","
  case_json "control: a misspelt key" false | sed 's/restart-strategy.fixed-delay.delay/restart-strategy.fixed-delay.dealy/'
  echo "]"
} > target/pyflink/cases.json

JAVA_HOME=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")} \
  "$venv/bin/python" scripts/check_flink_export.py < target/pyflink/cases.json 2> target/pyflink/stderr.log |
  { grep -v '^[0-9]*> ' || true; } # the job's own printed records

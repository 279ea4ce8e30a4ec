"""Starts a local Flink mini cluster (PyFlink) with each exported configuration given as JSON
on stdin, runs a three-record job on it, and fails if Flink refuses a configuration it should
accept or accepts one it should refuse. Used by scripts/check-flink-export.sh."""
import json
import sys

from pyflink.common import Configuration, WatermarkStrategy
from pyflink.datastream import StreamExecutionEnvironment
from pyflink.datastream.connectors.number_seq import NumberSequenceSource


# The option classes that declare the keys the export writes.
OPTION_CLASSES = [
    "org.apache.flink.configuration.CheckpointingOptions",
    "org.apache.flink.configuration.RestartStrategyOptions",
    "org.apache.flink.configuration.HeartbeatManagerOptions",
    "org.apache.flink.configuration.StateBackendOptions",
    "org.apache.flink.streaming.api.environment.ExecutionCheckpointingOptions",
]


def known_keys():
    """Every key declared by Flink's option classes: Flink ignores a key it does not know, so a
    misspelt one would otherwise pass."""
    from pyflink.java_gateway import get_gateway

    jvm = get_gateway().jvm
    keys = set()
    for name in OPTION_CLASSES:
        for field in jvm.java.lang.Class.forName(name).getFields():
            if field.getType().getName() == "org.apache.flink.configuration.ConfigOption":
                keys.add(field.get(None).key())
    return keys


def run(pairs):
    config = Configuration()
    for key, value in pairs:
        config.set_string(key, value)
    env = StreamExecutionEnvironment.get_execution_environment(config)
    source = NumberSequenceSource(1, 3)
    env.from_source(source, WatermarkStrategy.no_watermarks(), "sequence").print()
    env.execute("export-check")


def main():
    failed = 0
    known = known_keys()
    for case in json.load(sys.stdin):
        unknown = [key for key, _ in case["pairs"] if key not in known]
        if unknown:
            accepted, why = False, "keys Flink does not know: " + ", ".join(unknown)
        else:
            try:
                run(case["pairs"])
                accepted, why = True, ""
            except Exception as error:  # Flink's refusal arrives as a Py4J error
                accepted = False
                causes = [l.strip() for l in str(error).splitlines() if "Exception:" in l]
                why = causes[-1][:300] if causes else str(error).splitlines()[0][:300]
        verdict = "accepted" if accepted else f"refused: {why}"
        ok = accepted == case["accept"]
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {case['name']}: {verdict}", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

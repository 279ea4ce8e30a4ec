//! Hostile input: every command-line flag rejects garbage with an error whose first line names
//! the flag, and exit code 2; a scenario too big for the memory budget is refused before anything is allocated; and
//! settings the model cannot honour are reported plainly, never a panic or a hang.
#![cfg(feature = "cli")]

use std::process::Command;

use checkpoint_lab::engine::{Config, MEMORY_BUDGET_BYTES};
use checkpoint_lab::lesson;

fn cli(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_checkpoint-lab")).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// Bad values for each flag: (flag, value).
const BAD: &[(&str, &str)] = &[
    ("--partitions", "0"),
    ("--partitions", "many"),
    ("--partitions", "-3"),
    ("--rate", "0"),
    ("--rate", "1e99"),
    ("--window", "7"),
    ("--window", "0s"),
    ("--emit-every", "7s"),
    ("--interval", "0s"),
    ("--interval", "forever"),
    ("--interval", "5h"),
    ("--alignment", "sideways"),
    ("--mode", "continuous"),
    ("--snapshots", "partial"),
    ("--backpressure", "1h"),
    ("--record-size", "lots"),
    ("--state-size", "2XB"),
    ("--state-size", "0B"),
    ("--store-write", "1GB"),
    ("--store-write", "0B/s"),
    ("--store-read", "fast"),
    ("--sync-pause", "-1s"),
    ("--detection", "never"),
    ("--restart-delay", "2d"),
    ("--capacity", "0"),
    ("--start-time", "25:00:00"),
    ("--start-offset", "x"),
    ("--start-checkpoint", "-1"),
    ("--crash-at", "10:61:00"),
    ("--crash-at", "09:59:59"),
    ("--crash-at", "yesterday"),
    ("--horizon", "0s"),
    ("--horizon", "2d"),
    ("--products", "0"),
    ("--retry-rate", "0.9"),
    ("--retry-rate", "NaN"),
    ("--retention", "0s"),
    ("--latency-sla", "1ms"),
    ("--seed", "-1"),
];

#[test]
fn every_flag_rejects_garbage_with_an_error_naming_it_and_exit_code_2() {
    for (flag, value) in BAD {
        let (code, stdout, stderr) = cli(&["simulate", flag, value]);
        assert_eq!(code, 2, "{flag} {value}: exit code (stderr {stderr:?})");
        assert!(stdout.is_empty(), "{flag} {value}: nothing on stdout");
        let first = stderr.lines().next().unwrap_or_default();
        assert!(first.starts_with("error:"), "{flag} {value}: an error line first, got {stderr:?}");
        assert!(first.contains(flag), "{flag} {value}: the first line names the flag: {stderr:?}");
        assert!(!stderr.contains("panicked"), "{flag} {value}: {stderr}");
    }
    let (code, _, stderr) = cli(&["simulate", "--no-such-flag"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--no-such-flag"));
    let (code, _, stderr) = cli(&["sink-rows", "--design", "spreadsheet"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--design"));
}

#[test]
fn clap_errors_print_whole_and_no_arguments_print_the_usage() {
    // A missing required flag is named.
    let (code, _, stderr) = cli(&["sink-rows"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--design"), "{stderr}");
    // The values a choice accepts are listed.
    let (code, _, stderr) = cli(&["simulate", "--alignment", "sideways"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("aligned") && stderr.contains("unaligned"), "{stderr}");
    // A typo gets clap's suggestion.
    let (code, _, stderr) = cli(&["simulate", "--intervall", "5s"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--interval"), "{stderr}");
    // No arguments: the usage, naming both commands.
    let (code, _, stderr) = cli(&[]);
    assert_eq!(code, 2);
    assert!(stderr.contains("Usage") && stderr.contains("simulate") && stderr.contains("sink-rows"), "{stderr}");
}

#[test]
fn a_reader_that_stops_early_ends_the_command_quietly() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    for args in [&["simulate", "--format", "json"][..], &["sink-rows", "--design", "append-only"][..]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_checkpoint-lab"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
        assert!(!first.is_empty());
        // The pipe's reading end is closed here, like `| head -1`.
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"), "{args:?}");
    }
}

#[test]
fn every_command_prints_table_json_and_csv() {
    let (code, stdout, _) = cli(&["simulate", "--format", "csv"]);
    assert_eq!(code, 0);
    let mut lines = stdout.lines();
    assert_eq!(lines.next(), Some("time,seconds,offset,what"));
    assert!(stdout.contains("10:00:45,45,1090000,\"crash at offset 1,090,000"), "{stdout}");
    let (code, stdout, _) = cli(&["sink-rows", "--design", "upsert", "--format", "json"]);
    assert_eq!(code, 0);
    let rows: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 200);
    assert_eq!(rows[0]["window_start"], "10:00:00");
    assert_eq!(rows[0]["window_start_ms"], 36_000_000);
    let (code, stdout, _) = cli(&["sink-rows", "--design", "upsert", "--format", "table"]);
    assert_eq!(code, 0);
    assert_eq!(stdout.lines().count(), 201);
    let (code, _, stderr) = cli(&["simulate", "--json", "--format", "csv"]);
    assert_eq!(code, 2, "two formats at once are refused: {stderr}");
}

#[test]
fn range_errors_say_the_allowed_range() {
    let (_, _, stderr) = cli(&["simulate", "--interval", "0s"]);
    assert_eq!(stderr.trim(), "error: --interval must be between 100 ms and 1 h (got 0 ms)");
    let (_, _, stderr) = cli(&["simulate", "--crash-at", "09:59:59"]);
    assert!(stderr.contains("between 10:00:00.001 and 10:09:59.999"), "{stderr}");
}

#[test]
fn the_cli_prints_the_table_json_and_csv() {
    let (code, stdout, _) = cli(&["simulate"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("10:00:45") && stdout.contains("30,000 events since checkpoint 42"));
    let (code, stdout, _) = cli(&["simulate", "--json", "--interval", "5s"]);
    assert_eq!(code, 0);
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["interval_replay_events"], 10_000);
    let (code, stdout, _) = cli(&["sink-rows", "--design", "dedupe-view", "--csv"]);
    assert_eq!(code, 0);
    let mut lines = stdout.lines();
    assert_eq!(lines.next(), Some("product_id,window_start,order_count,emitted_at"));
    assert_eq!(lines.count(), 200, "one row per (product, window): 100 products, two windows");
    let (code, stdout, _) = cli(&["simulate", "--mode", "micro-batch", "--crash-at", "10:00:45.200"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("micro-batch every 30 s"), "{stdout}");
    assert!(stdout.contains("batch 42 committed again with the same offsets (1,000,000 to 1,060,000)"), "{stdout}");
}

#[test]
fn a_scenario_over_the_memory_budget_is_refused_up_front() {
    let config = Config {
        rate_per_s: 1_000_000,
        capacity_per_s: 2_000_000,
        horizon_ms: 24 * 3_600_000,
        products: 100_000,
        ..Config::default()
    };
    assert!(config.estimated_memory_bytes() > MEMORY_BUDGET_BYTES);
    let err = lesson::simulate(&config).unwrap_err();
    assert_eq!(err.field, "horizon_ms");
    assert!(err.message.contains("budget"), "{}", err.message);
    let (code, _, stderr) =
        cli(&["simulate", "--rate", "1000000", "--capacity", "2000000", "--horizon", "24h", "--products", "100000"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--horizon") && stderr.contains("budget"), "{stderr}");
}

#[test]
fn settings_the_model_cannot_honour_are_reported_plainly() {
    // Capacity at the input rate: the backlog never shrinks.
    let report = lesson::simulate(&Config { capacity_per_s: 2_000, ..Config::default() }).unwrap();
    assert!(report.caught_up_at.is_none());
    assert!(report.caught_up_reason.as_deref().unwrap().contains("capacity"));
    assert!(report.warnings.iter().any(|w| w.contains("never catches up")));
    // A crash at the very last millisecond: the restore has not finished.
    let report = lesson::simulate(&Config { crash_at_ms: Some(36_599_999), ..Config::default() }).unwrap();
    assert!(report.restored_at.is_none());
    assert!(report.caught_up_reason.as_deref().unwrap().contains("restore"));
}

#[test]
fn the_chart_command_draws_each_chart_as_svg_and_names_a_bad_flag() {
    // Each chart, as the page draws it: an SVG document of the size asked for, with its text.
    for (name, needle) in [
        ("pipeline", "checkpoint store"),
        ("replay", "Consumer lag and replay"),
        ("latency", "staleness"),
        ("tradeoff", "Choosing the interval"),
        ("checkpoints", "checkpoint"),
        ("sink-window", "append-only"),
    ] {
        let (code, stdout, stderr) = cli(&["chart", "--name", name, "--width", "900", "--height", "360"]);
        assert_eq!(code, 0, "{name}: {stderr}");
        assert!(
            stdout.starts_with(r#"<svg width="900" height="360" viewBox="0 0 900 360""#),
            "{name}: {}",
            &stdout[..80]
        );
        assert!(stdout.trim_end().ends_with("</svg>"), "{name}");
        assert!(stdout.contains(needle), "{name} shows {needle:?}");
    }
    // The pipeline at a scenario time the student picks, under the scenario's settings.
    let (code, stdout, _) = cli(&["chart", "--name", "pipeline", "--cursor", "10:00:50", "--interval", "10s"]);
    assert_eq!(code, 0);
    // Five seconds after the crash the log has grown by 5 s × 2,000 events/s the readers lag behind.
    assert!(stdout.contains("10:00:50") && stdout.contains("down since 10:00:45"), "{stdout}");
    assert!(stdout.contains("lag 10,000 events"), "{stdout}");
    // The dark theme paints a dark background; the light one a white one.
    let (_, dark, _) = cli(&["chart", "--name", "replay", "--theme", "dark"]);
    let (_, light, _) = cli(&["chart", "--name", "replay"]);
    assert!(light.contains(r##"fill="#FFFFFF""##) && !dark.contains(r##"fill="#FFFFFF""##));
    // A narrow chart is drawn compact, with the short title.
    let (_, narrow, _) = cli(&["chart", "--name", "replay", "--width", "400"]);
    assert!(narrow.contains(checkpoint_lab::charts::replay::SHORT_TITLE), "{narrow}");
    // Bad values: exit code 2, nothing on stdout, the first line names the flag.
    for args in [
        &["chart", "--name", "pipeline", "--cursor", "09:00:00"][..],
        &["chart", "--name", "pipeline", "--cursor", "later"][..],
        &["chart", "--name", "pipeline", "--width", "50"][..],
        &["chart", "--name", "pipeline", "--height", "99999"][..],
        &["chart", "--name", "pie"][..],
        &["chart", "--name", "replay", "--theme", "sepia"][..],
    ] {
        let (code, stdout, stderr) = cli(args);
        let flag = args[args.len() - 2];
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stdout.is_empty(), "{args:?}");
        let first = stderr.lines().next().unwrap_or_default();
        assert!(first.starts_with("error:") && first.contains(flag), "{args:?}: {stderr}");
    }
    let (_, _, stderr) = cli(&["chart", "--name", "pipeline", "--cursor", "10:20:00"]);
    assert_eq!(
        stderr.trim(),
        "error: --cursor must lie between 10:00:00 and 10:10:00, the scenario's start and end (got 10:20:00)"
    );
}

//! The command line: run a scenario and print its crash timeline table, the report as JSON or the
//! crash table as CSV, or print what a reader of one sink sees (CSV, JSON or a table). Every flag
//! comes from the settings table. `parse` is separate from `main` so the flag parsing can be
//! tested and fuzzed without running anything.

use std::fmt::Write as _;
use std::io::Write;
use std::process::ExitCode;

use crate::engine::clock::ClockTime;
use crate::engine::config::FieldValue;
use crate::engine::config::{from_map, to_map};
use crate::engine::settings::{self, Setting, Unit, SETTINGS};
use crate::engine::sinks::CSV_HEADER;
use crate::engine::units::{format_bytes, format_count, format_duration_ms};
use crate::engine::{self, Config, Mode, SinkDesign};
use crate::lesson::Report;
use clap::{Arg, ArgAction, Command};

fn value_name(unit: Unit) -> &'static str {
    match unit {
        Unit::Count | Unit::EventsPerS | Unit::Seed => "N",
        Unit::DurationMs => "DURATION",
        Unit::Bytes => "SIZE",
        Unit::BytesPerS => "BANDWIDTH",
        Unit::ClockMs => "HH:MM:SS",
        Unit::Share => "SHARE",
        Unit::Factor => "FACTOR",
        Unit::Choice(_) => "CHOICE",
    }
}

/// One flag per setting, from the settings table: its help, allowed range and default.
fn scenario_arg(setting: &'static Setting) -> Arg {
    let default = to_map(&Config::default()).remove(setting.key).unwrap_or_default();
    let accepts = match setting.unit {
        Unit::Choice(choices) => choices.iter().map(|c| c.flag_value).collect::<Vec<_>>().join("|"),
        _ => format!("{}..{}", setting.text(&setting.min.into()), setting.text(&setting.max.into())),
    };
    let none = if setting.optional { ", or none" } else { "" };
    Arg::new(setting.key)
        .long(setting.flag)
        .value_name(value_name(setting.unit))
        .allow_hyphen_values(true)
        .help(format!("{} [{accepts}{none}] [default: {}]", setting.help, setting.text(&default)))
        .value_parser(move |text: &str| setting.parse_text(text))
}

fn command() -> Command {
    let scenario: Vec<Arg> = SETTINGS.iter().map(scenario_arg).collect();
    let format = |what: &str, default: &str| {
        [
            Arg::new("format")
                .long("format")
                .value_parser(FORMATS.map(|(name, _)| name))
                .help(format!("{what} [default: {default}]")),
            Arg::new("json")
                .long("json")
                .action(ArgAction::SetTrue)
                .conflicts_with_all(["format", "csv"])
                .help("The same as --format json."),
            Arg::new("csv")
                .long("csv")
                .action(ArgAction::SetTrue)
                .conflicts_with("format")
                .help("The same as --format csv."),
        ]
    };
    Command::new("checkpoint-lab")
        .version(env!("CARGO_PKG_VERSION"))
        .about("Simulate restarting a stream: checkpoints, crash, replay and sinks")
        .subcommand_required(true)
        .arg_required_else_help(true)
        .subcommand(
            Command::new("simulate")
                .about("Run a scenario; print the crash timeline table, the whole report as JSON, or the crash table as CSV.")
                .args(scenario.clone())
                .args(format("table: the crash timeline and figures; json: the report; csv: the crash table", "table")),
        )
        .subcommand(
            Command::new("export")
                .about("Print the settings as Flink configuration or Spark code: the lesson page's export panel.")
                .args(scenario.clone())
                .arg(
                    Arg::new("engine")
                        .long("engine")
                        .required(true)
                        .value_parser(["flink", "spark"])
                        .help("The engine to write the settings for."),
                )
                .arg(
                    Arg::new("sink")
                        .long("sink")
                        .default_value("append-only")
                        .value_parser(SinkDesign::ALL.map(SinkDesign::cli_name))
                        .help("The sink design the export describes."),
                ),
        )
        .subcommand(
            Command::new("sink-rows")
                .about("Print what a reader of one sink sees at the end of the horizon.")
                .args(scenario)
                .args(format("csv: product_id,window_start,order_count,emitted_at; json: an array of rows; table: aligned columns", "csv"))
                .arg(
                    Arg::new("design")
                        .long("design")
                        .required(true)
                        .value_parser(SinkDesign::ALL.map(SinkDesign::cli_name))
                        .help("The sink design to read."),
                )
        )
}

/// The command-line flag for a config field, so range errors name what the user typed.
fn flag_of(field: &str) -> String {
    settings::by_key(field).map_or_else(|| "a setting".to_string(), |s| format!("--{}", s.flag))
}

/// The crash timeline table and the headline figures, as `simulate` prints them.
fn table(report: &Report) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    macro_rules! say {
        () => { out.push('\n') };
        ($($arg:tt)*) => {{ let _ = writeln!(out, $($arg)*); }};
    }
    let config = &report.config;
    let (cycle, kind, done) = match config.mode {
        Mode::Barrier => {
            ("checkpoint", format!("{:?}, {:?}", config.alignment, config.snapshots), "checkpoints completed")
        }
        Mode::MicroBatch => ("micro-batch", "state store deltas".to_string(), "batches committed"),
    };
    say!(
        "Checkpoint Lab: {} partitions, {} events/s, {cycle} every {} ({kind}), {} of state",
        config.partitions,
        format_count(config.rate_per_s),
        format_duration_ms(config.interval_ms),
        format_bytes(config.state_bytes as f64)
    );
    say!();
    if report.crash_table.is_empty() {
        say!("No crash: {} {done}.", report.checkpoints.len() - 1);
    } else {
        say!("A crash, second by second");
        say!("{:<14} {:>11}  what", "time", "offset");
        for row in &report.crash_table {
            let offset = row.offset.map(format_count).unwrap_or_default();
            say!("{:<14} {:>11}  {}", row.at.at, offset, row.what);
        }
    }
    say!();
    say!("replayed events            {}", format_count(report.replayed_events));
    say!("replay per interval        {}", format_count(report.interval_replay_events));
    say!("worst-case replay          {}", format_count(report.worst_case_replay_events));
    match report.recovery_s {
        Some(s) => say!("crash to caught up         {s} s"),
        None if report.crash.is_some() => say!(
            "crash to caught up         never ({})",
            report.caught_up_reason.as_deref().unwrap_or("not within the horizon")
        ),
        None => {}
    }
    say!("store write load           {}/min", format_bytes(report.store_write_bytes_per_min as f64));
    say!("pause overhead             {:.2}%", report.pause_overhead * 100.0);
    say!();
    say!("{:<15} {:>8} {:>10} {:>11}  matches failure-free", "sink", "rows", "duplicates", "silent");
    for sink in
        [&report.sinks.append_only, &report.sinks.upsert, &report.sinks.transactional, &report.sinks.dedupe_view]
    {
        say!(
            "{:<15} {:>8} {:>10} {:>11}  {}",
            SinkDesign::cli_name(sink.design),
            format_count(sink.rows),
            format_count(sink.duplicate_rows),
            format_duration_ms(sink.silent_ms),
            if sink.matches_failure_free { "yes" } else { "no" }
        );
    }
    for warning in &report.warnings {
        say!("warning: {warning}");
    }
    out
}

/// What the command line asks for, parsed and checked.
pub enum Parsed {
    /// Help or version text to print, then exit 0.
    Text(String),
    /// A scenario to run and what to print.
    Run { config: Box<Config>, action: Action },
}

/// What to print once the scenario has run.
pub enum Action {
    /// The crash timeline table and figures, the report, or the crash table as CSV.
    Simulate(Format),
    /// What a reader of one sink sees at the end of the horizon.
    Rows(SinkDesign, Format),
    /// The settings as Flink configuration (true) or Spark code (false), for a sink design.
    Export { flink: bool, sink: SinkDesign },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Table,
    Json,
    Csv,
}

const FORMATS: [(&str, Format); 3] = [("table", Format::Table), ("json", Format::Json), ("csv", Format::Csv)];

/// Parses the arguments (the first one is the program name) and checks the settings. The error,
/// for exit code 2, names the flag first: one line for a value out of range, clap's whole message
/// (what the flag accepts, a suggestion, the usage) for one it cannot read.
pub fn parse<I, T>(args: I) -> Result<Parsed, String>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    // Building the command description is most of the work of parsing; it is built once.
    thread_local! {
        static COMMAND: std::cell::RefCell<Command> = std::cell::RefCell::new(command());
    }
    let matches = match COMMAND.with(|command| command.borrow_mut().try_get_matches_from_mut(args)) {
        Ok(matches) => matches,
        Err(e) if !e.use_stderr() => return Ok(Parsed::Text(e.to_string())),
        // clap's own errors print whole: the flag, what it accepts, a suggestion, the usage.
        Err(e) => return Err(e.to_string().trim_end().to_string()),
    };
    let Some((name, sub)) = matches.subcommand() else {
        return Err("error: a command is required: simulate, sink-rows or export".to_string());
    };
    let has_format = name != "export";
    let format = match has_format.then(|| sub.get_one::<String>("format").map(String::as_str)).flatten() {
        _ if has_format && sub.get_flag("json") => Format::Json,
        _ if has_format && sub.get_flag("csv") => Format::Csv,
        Some(name) => FORMATS.iter().find(|(n, _)| *n == name).map_or(Format::Table, |f| f.1),
        None if name == "sink-rows" => Format::Csv,
        None => Format::Table,
    };
    let action = match name {
        "sink-rows" => {
            // clap has already checked the name against the designs' command-line spellings.
            let design = sub.get_one::<String>("design").and_then(|name| SinkDesign::from_name(name));
            let design = design.unwrap_or(SinkDesign::AppendOnly);
            Action::Rows(design, format)
        }
        "export" => Action::Export {
            flink: sub.get_one::<String>("engine").is_some_and(|e| e == "flink"),
            sink: sub
                .get_one::<String>("sink")
                .and_then(|name| SinkDesign::from_name(name))
                .unwrap_or(SinkDesign::AppendOnly),
        },
        _ => Action::Simulate(format),
    };
    let flag_error = |e: engine::ConfigError| format!("error: {} {}", flag_of(e.field), e.message);
    let mut config = to_map(&Config::default());
    for setting in &SETTINGS {
        if let Some(value) = sub.get_one::<FieldValue>(setting.key) {
            config.insert(setting.key.to_string(), setting.check(value).map_err(flag_error)?);
        }
    }
    let config = from_map(config).map_err(flag_error)?;
    config.validate().map_err(flag_error)?;
    Ok(Parsed::Run { config: Box::new(config), action })
}

/// The export panel's text for one engine.
fn export_text(config: &Config, flink: bool, sink: SinkDesign) -> String {
    let export = crate::lesson::export::export(config, sink);
    if flink {
        export.flink
    } else {
        export.spark
    }
}

/// What the command prints, from the finished run.
fn output(outcome: &engine::Outcome, action: &Action) -> String {
    match action {
        Action::Export { flink, sink } => export_text(&outcome.run.config, *flink, *sink),
        Action::Simulate(Format::Table) => table(&outcome.report()),
        Action::Simulate(Format::Json) => {
            serde_json::to_string_pretty(&outcome.report()).expect("the report serialises") + "\n"
        }
        Action::Simulate(Format::Csv) => {
            let mut out = String::from("time,seconds,offset,what\n");
            for row in &outcome.report().crash_table {
                let offset = row.offset.map(|o| o.to_string()).unwrap_or_default();
                let _ = writeln!(out, "{},{},{offset},\"{}\"", row.at.at, row.at.s, row.what.replace('"', "\"\""));
            }
            out
        }
        Action::Rows(design, format) => {
            let rows = outcome.run.sinks().read(*design);
            match format {
                Format::Csv => std::iter::once(CSV_HEADER.to_string())
                    .chain(rows.iter().map(|row| row.csv()))
                    .map(|line| line + "\n")
                    .collect(),
                Format::Json => {
                    let rows: Vec<serde_json::Value> = rows
                        .iter()
                        .map(|row| {
                            serde_json::json!({
                                "product_id": row.product_id,
                                "window_start": ClockTime(row.window_start_ms).to_string(),
                                "window_start_ms": row.window_start_ms,
                                "order_count": row.order_count,
                                "emitted_at": ClockTime(row.emitted_at_ms).to_string(),
                                "emitted_at_ms": row.emitted_at_ms,
                            })
                        })
                        .collect();
                    serde_json::to_string_pretty(&rows).expect("rows serialise") + "\n"
                }
                Format::Table => {
                    let mut out = format!(
                        "{:>10} {:>12} {:>11} {:>12}\n",
                        "product_id", "window_start", "order_count", "emitted_at"
                    );
                    for row in rows.iter() {
                        let (window, emitted) = (ClockTime(row.window_start_ms), ClockTime(row.emitted_at_ms));
                        let _ =
                            writeln!(out, "{:>10} {window:>12} {:>11} {emitted:>12}", row.product_id, row.order_count);
                    }
                    out
                }
            }
        }
    }
}

/// Runs the command line; returns the process exit code.
pub fn main() -> ExitCode {
    let (config, action) = match parse(std::env::args_os()) {
        Ok(Parsed::Text(text)) => return write_out(&text),
        Ok(Parsed::Run { config, action }) => (*config, action),
        Err(text) => {
            eprintln!("{text}");
            return ExitCode::from(2);
        }
    };
    // An export needs no run.
    if let Action::Export { flink, sink } = action {
        return write_out(&export_text(&config, flink, sink));
    }
    match engine::run(&config) {
        Ok(outcome) => write_out(&output(&outcome, &action)),
        Err(e) => {
            eprintln!("error: {} {}", flag_of(e.field), e.message);
            ExitCode::from(2)
        }
    }
}

/// Writes to standard output; a reader that stopped reading (`| head -1`) ends it quietly.
fn write_out(text: &str) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: could not write the output: {e}");
            ExitCode::FAILURE
        }
    }
}

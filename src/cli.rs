//! The command line: run a scenario and print its crash timeline table or the report as JSON,
//! or dump what a reader of one sink sees as CSV. `parse` is separate from `main` so the flag
//! parsing can be tested and fuzzed without running anything.

use std::io::Write;
use std::process::ExitCode;

use crate::engine::config::FieldValue;
use crate::engine::sinks::CSV_HEADER;
use crate::engine::units::{format_bytes, format_count, format_duration_ms};
use crate::engine::{self, Config, Mode, Report, SinkDesign};
use crate::settings::{self, Setting, Unit, SETTINGS};
use clap::{Arg, ArgAction, Command};

/// The sink designs `sink-rows --design` reads, as the command line spells them.
const DESIGNS: [(&str, SinkDesign); 4] = [
    ("append-only", SinkDesign::AppendOnly),
    ("upsert", SinkDesign::Upsert),
    ("transactional", SinkDesign::Transactional),
    ("dedupe-view", SinkDesign::DedupeView),
];

fn value_name(unit: Unit) -> &'static str {
    match unit {
        Unit::Count | Unit::EventsPerS | Unit::Seed => "N",
        Unit::DurationMs => "DURATION",
        Unit::Bytes => "SIZE",
        Unit::BytesPerS => "BANDWIDTH",
        Unit::ClockMs => "HH:MM:SS",
        Unit::Share => "SHARE",
        Unit::Choice(_) => "CHOICE",
    }
}

/// One flag per setting, from the settings table: its help, allowed range and default.
fn scenario_arg(setting: &'static Setting) -> Arg {
    let default = settings::to_map(&Config::default()).remove(setting.key).unwrap_or_default();
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
    Command::new("checkpoint-lab")
        .version(env!("CARGO_PKG_VERSION"))
        .about("Simulate restarting a stream: checkpoints, crash, replay and sinks")
        .subcommand_required(true)
        .subcommand(
            Command::new("simulate")
                .about("Run a scenario; print the crash timeline table, or the report with --json.")
                .args(scenario.clone())
                .arg(Arg::new("json").long("json").action(ArgAction::SetTrue).help("Print the whole report as JSON.")),
        )
        .subcommand(
            Command::new("sink-rows")
                .about("Print what a reader of one sink sees at the end of the horizon.")
                .args(scenario)
                .arg(
                    Arg::new("design")
                        .long("design")
                        .required(true)
                        .value_parser(DESIGNS.map(|(name, _)| name))
                        .help("The sink design to read."),
                )
                .arg(
                    Arg::new("csv")
                        .long("csv")
                        .action(ArgAction::SetTrue)
                        .help("Print as CSV (product_id,window_start,order_count,emitted_at); the only format."),
                ),
        )
}

/// The command-line flag for a config field, so range errors name what the user typed.
fn flag_of(field: &str) -> String {
    settings::by_key(field).map_or_else(|| "a setting".to_string(), |s| format!("--{}", s.flag))
}

fn print_table(report: &Report) {
    let config = &report.config;
    let (cycle, kind, done) = match config.mode {
        Mode::Barrier => {
            ("checkpoint", format!("{:?}, {:?}", config.alignment, config.snapshots), "checkpoints completed")
        }
        Mode::MicroBatch => ("micro-batch", format!("{:?} state store", config.snapshots), "batches committed"),
    };
    println!(
        "Checkpoint Lab: {} partitions, {} events/s, {cycle} every {} ({kind}), {} of state",
        config.partitions,
        format_count(config.rate_per_s),
        format_duration_ms(config.interval_ms),
        format_bytes(config.state_bytes as f64)
    );
    println!();
    if report.crash_table.is_empty() {
        println!("No crash: {} {done}.", report.checkpoints.len() - 1);
    } else {
        println!("A crash, second by second");
        println!("{:<14} {:>11}  what", "time", "offset");
        for row in &report.crash_table {
            let offset = row.offset.map(format_count).unwrap_or_default();
            println!("{:<14} {:>11}  {}", row.at.at, offset, row.what);
        }
    }
    println!();
    println!("replayed events            {}", format_count(report.replayed_events));
    println!("replay per interval        {}", format_count(report.interval_replay_events));
    println!("worst-case replay          {}", format_count(report.worst_case_replay_events));
    match report.recovery_s {
        Some(s) => println!("crash to caught up         {s} s"),
        None if report.crash.is_some() => println!(
            "crash to caught up         never ({})",
            report.caught_up_reason.as_deref().unwrap_or("not within the horizon")
        ),
        None => {}
    }
    println!("store write load           {}/min", format_bytes(report.store_write_bytes_per_min as f64));
    println!("pause overhead             {:.2}%", report.pause_overhead * 100.0);
    println!();
    println!("{:<15} {:>8} {:>10} {:>11}  matches failure-free", "sink", "rows", "duplicates", "silent");
    for sink in
        [&report.sinks.append_only, &report.sinks.upsert, &report.sinks.transactional, &report.sinks.dedupe_view]
    {
        println!(
            "{:<15} {:>8} {:>10} {:>11}  {}",
            SinkDesign::cli_name(sink.design),
            format_count(sink.rows),
            format_count(sink.duplicate_rows),
            format_duration_ms(sink.silent_ms),
            if sink.matches_failure_free { "yes" } else { "no" }
        );
    }
    for warning in &report.warnings {
        println!("warning: {warning}");
    }
}

/// What the command line asks for, parsed and checked.
pub enum Parsed {
    /// Help or version text to print, then exit 0.
    Text(String),
    /// A scenario to run and what to print.
    Run { config: Config, action: Action },
}

pub enum Action {
    Table,
    Json,
    Rows(SinkDesign),
}

/// Parses the arguments (the first one is the program name) and checks the settings. The error
/// is one line naming the flag and the allowed range, for exit code 2.
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
        Err(e) => {
            let text = e.to_string();
            return Err(text.lines().next().unwrap_or("error: bad arguments").to_string());
        }
    };
    let Some((name, sub)) = matches.subcommand() else {
        return Err("error: a command is required: simulate or sink-rows".to_string());
    };
    let action = match name {
        "sink-rows" => {
            let design = sub.get_one::<String>("design").map(String::as_str);
            Action::Rows(DESIGNS.iter().find(|(n, _)| Some(*n) == design).map_or(SinkDesign::AppendOnly, |d| d.1))
        }
        _ if sub.get_flag("json") => Action::Json,
        _ => Action::Table,
    };
    let flag_error = |e: engine::ConfigError| format!("error: {} {}", flag_of(e.field), e.message);
    let mut config = settings::to_map(&Config::default());
    for setting in &SETTINGS {
        if let Some(value) = sub.get_one::<FieldValue>(setting.key) {
            config.insert(setting.key.to_string(), setting.check(value).map_err(flag_error)?);
        }
    }
    let config = settings::from_map(config).map_err(flag_error)?;
    config.validate().map_err(flag_error)?;
    Ok(Parsed::Run { config, action })
}

/// Runs the command line; returns the process exit code.
pub fn main() -> ExitCode {
    let (config, action) = match parse(std::env::args_os()) {
        Ok(Parsed::Text(text)) => {
            print!("{text}");
            return ExitCode::SUCCESS;
        }
        Ok(Parsed::Run { config, action }) => (config, action),
        Err(line) => {
            eprintln!("{line}");
            return ExitCode::from(2);
        }
    };
    let outcome = match engine::run(&config) {
        Ok(outcome) => outcome,
        Err(e) => {
            eprintln!("error: {} {}", flag_of(e.field), e.message);
            return ExitCode::from(2);
        }
    };
    match action {
        Action::Json => {
            let report = outcome.report();
            println!("{}", serde_json::to_string_pretty(&report).expect("the report serialises"));
        }
        Action::Table => print_table(&outcome.report()),
        Action::Rows(design) => {
            let mut out = std::io::stdout().lock();
            let rows = outcome.run.sinks.read(design);
            // A closed pipe (`| head`) ends the listing quietly.
            let _ = std::iter::once(CSV_HEADER.to_string())
                .chain(rows.iter().map(|row| row.csv()))
                .try_for_each(|line| writeln!(out, "{line}"));
        }
    }
    ExitCode::SUCCESS
}

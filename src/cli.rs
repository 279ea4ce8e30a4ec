//! The command line: run a scenario and print its crash timeline table, the report as JSON or the
//! crash table as CSV, print what a reader of one sink sees (CSV, JSON or a table), or draw one of
//! the lesson page's charts as SVG. Every scenario flag comes from the settings table. `parse` is separate from `main` so the flag parsing can be
//! tested and fuzzed without running anything.

use std::fmt::Write as _;
use std::io::Write;
use std::process::ExitCode;

use crate::charts::{self, Chart, Focus, Theme, View};
use crate::engine::model::sinks::CSV_HEADER;
use crate::engine::settings::clock::{parse_clock, ClockTime};
use crate::engine::settings::config::FieldValue;
use crate::engine::settings::units::{format_bytes, format_count, format_duration_ms};
use crate::engine::settings::{self, Setting, Unit, SETTINGS};
use crate::engine::{self, Config, SinkDesign};
use crate::lesson::Report;
use clap::{Arg, ArgAction, Command};

fn value_name(unit: Unit) -> &'static str {
    match unit {
        Unit::Count | Unit::EventsPerS | Unit::Seed => "N",
        Unit::DurationMs => "DURATION",
        Unit::Bytes => "SIZE",
        Unit::BytesPerS => "BANDWIDTH",
        Unit::ClockMs => "HH:MM:SS",
        Unit::ClockList => "HH:MM:SS,...",
        Unit::Share => "SHARE",
        Unit::Factor => "FACTOR",
        Unit::Choice(_) => "CHOICE",
    }
}

/// One flag per setting, from the settings table: its help, allowed range and default.
fn scenario_arg(setting: &'static Setting) -> Arg {
    let default = Config::default().get(setting.key).unwrap_or_default();
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
                        .value_parser(["flink", "spark", "pyspark"])
                        .help("The engine to write the settings for: Flink configuration, or Spark code in Scala or Python."),
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
            Command::new("chart")
                .about("Draw one of the lesson page's charts as SVG, as the page draws it at that size: for slides, print, or a page's first picture.")
                .args(scenario.clone())
                .arg(
                    Arg::new("name")
                        .long("name")
                        .value_name("CHART")
                        .required(true)
                        .value_parser(Chart::ALL.map(Chart::name))
                        .help("The chart to draw."),
                )
                .arg(
                    Arg::new("width")
                        .long("width")
                        .value_name("PX")
                        .default_value("1052")
                        .value_parser(clap::value_parser!(u32).range(i64::from(CHART_PX.0)..=i64::from(CHART_PX.1)))
                        .help("Width in CSS pixels; under 560 the chart is drawn compact, as on a phone."),
                )
                .arg(
                    Arg::new("height")
                        .long("height")
                        .value_name("PX")
                        .default_value("330")
                        .value_parser(clap::value_parser!(u32).range(i64::from(CHART_PX.0)..=i64::from(CHART_PX.1)))
                        .help("Height in CSS pixels."),
                )
                .arg(
                    Arg::new("theme")
                        .long("theme")
                        .default_value("light")
                        .value_parser(["light", "dark"])
                        .help("The colour theme."),
                )
                .arg(
                    Arg::new("cursor")
                        .long("cursor")
                        .value_name("HH:MM:SS")
                        .value_parser(parse_clock)
                        .help("The scenario time the pipeline shows and the time charts mark [default: the page's: the crash, or the start]."),
                )
                .arg(
                    Arg::new("sink")
                        .long("sink")
                        .default_value("append-only")
                        .value_parser(SinkDesign::ALL.map(SinkDesign::cli_name))
                        .help("The sink design the pipeline view and the latency chart highlight."),
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
    let words = config.mode.words();
    let (cycle, done) = (words.cycle, format!("{}es {}", words.restore_point, words.done));
    let kind = if config.mode.has_barriers() {
        format!("{:?}, {:?}", config.alignment, config.snapshots)
    } else {
        "state store deltas".to_string()
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
        Some(s) => say!("crash to caught up         {}", format_duration_ms((s * 1000.0).round() as u64)),
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
    /// The settings as Flink configuration or Spark code ("flink", "spark" or "pyspark"), for a sink design.
    Export { engine: String, sink: SinkDesign },
    /// One chart as SVG, `width_px` × `height_px` CSS pixels, at a scenario time (clock
    /// milliseconds) or the page's default one.
    Chart { chart: Chart, width_px: u32, height_px: u32, dark: bool, cursor_ms: Option<u64>, sink: SinkDesign },
}

/// The sizes `chart --width` and `--height` accept, in CSS pixels.
const CHART_PX: (u32, u32) = (120, 4000);

/// One chart as SVG, drawn by the code that draws it on the page's canvas.
pub fn chart_svg(
    report: &Report,
    chart: Chart,
    size_px: (u32, u32),
    theme: Theme,
    cursor_ms: Option<u64>,
    sink: SinkDesign,
) -> Result<String, String> {
    // `parse` has checked that the cursor lies within the scenario.
    let cursor_s = cursor_ms.map(|ms| ms.saturating_sub(report.config.start_time_ms) as f64 / 1000.0);
    let view = View { theme, scale: 1.0, cursor_s, compact: View::is_narrow(size_px.0, 1.0) };
    let focus = Focus { sink, ..Focus::default() };
    charts::svg(chart, report, &focus, &view, size_px).map_err(|e| format!("error: {e}"))
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
        return Err("error: a command is required: simulate, sink-rows, chart or export".to_string());
    };
    let has_format = !matches!(name, "export" | "chart");
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
            engine: sub.get_one::<String>("engine").cloned().unwrap_or_default(),
            sink: sub
                .get_one::<String>("sink")
                .and_then(|name| SinkDesign::from_name(name))
                .unwrap_or(SinkDesign::AppendOnly),
        },
        "chart" => Action::Chart {
            // clap has already checked every value below.
            chart: sub.get_one::<String>("name").and_then(|name| Chart::from_name(name)).unwrap_or(Chart::Pipeline),
            width_px: sub.get_one::<u32>("width").copied().unwrap_or(1052),
            height_px: sub.get_one::<u32>("height").copied().unwrap_or(330),
            dark: sub.get_one::<String>("theme").is_some_and(|t| t == "dark"),
            cursor_ms: sub.get_one::<u64>("cursor").copied(),
            sink: sub
                .get_one::<String>("sink")
                .and_then(|name| SinkDesign::from_name(name))
                .unwrap_or(SinkDesign::AppendOnly),
        },
        _ => Action::Simulate(format),
    };
    let flag_error = |e: engine::ConfigError| format!("error: {} {}", flag_of(e.field), e.message);
    let mut fields = Vec::new();
    for setting in &SETTINGS {
        if let Some(value) = sub.get_one::<FieldValue>(setting.key) {
            fields.push((setting.key.to_string(), value.clone()));
        }
    }
    let config = Config::from_fields(&fields).map_err(flag_error)?;
    if let Action::Chart { cursor_ms: Some(ms), .. } = action {
        let (start_ms, end_ms) = (config.start_time_ms, config.start_time_ms + config.horizon_ms);
        if !(start_ms..=end_ms).contains(&ms) {
            return Err(format!(
                "error: --cursor must lie between {} and {}, the scenario's start and end (got {})",
                ClockTime(start_ms),
                ClockTime(end_ms),
                ClockTime(ms)
            ));
        }
    }
    Ok(Parsed::Run { config: Box::new(config), action })
}

/// The export panel's text for one engine; what the configuration would lose on a real cluster
/// goes to standard error as well.
fn export_text(config: &Config, engine: &str, sink: SinkDesign) -> String {
    let export = crate::lesson::export::export(config, sink);
    for warning in &export.warnings {
        eprintln!("warning: {warning}");
    }
    match engine {
        "flink" => export.flink,
        "pyspark" => export.pyspark,
        _ => export.spark,
    }
}

/// What the command prints, from the finished run; an error message for a chart it cannot draw.
fn output(outcome: &engine::Outcome, action: &Action) -> Result<String, String> {
    match *action {
        Action::Chart { chart, width_px, height_px, dark, cursor_ms, sink } => {
            let theme = if dark { Theme::Dark } else { Theme::Light };
            chart_svg(&outcome.report(), chart, (width_px, height_px), theme, cursor_ms, sink).map(|svg| svg + "\n")
        }
        _ => Ok(output_text(outcome, action)),
    }
}

/// What the command prints for the text outputs.
fn output_text(outcome: &engine::Outcome, action: &Action) -> String {
    match action {
        Action::Chart { .. } => String::new(),
        Action::Export { engine, sink } => export_text(&outcome.run.config, engine, *sink),
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
                                "window_start": ClockTime(row.window_start_ms.into()).to_string(),
                                "window_start_ms": row.window_start_ms,
                                "order_count": row.order_count,
                                "emitted_at": ClockTime(row.emitted_at_ms.into()).to_string(),
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
                        let (window, emitted) =
                            (ClockTime(row.window_start_ms.into()), ClockTime(row.emitted_at_ms.into()));
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
    if let Action::Export { engine, sink } = action {
        return write_out(&export_text(&config, &engine, sink));
    }
    match engine::run(&config) {
        Ok(outcome) => match output(&outcome, &action) {
            Ok(text) => write_out(&text),
            Err(text) => {
                eprintln!("{text}");
                ExitCode::from(2)
            }
        },
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

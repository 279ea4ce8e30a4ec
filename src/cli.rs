//! The command line: run a scenario and print its crash timeline table or the report as JSON,
//! or dump what a reader of one sink sees as CSV. `parse` is separate from `main` so the flag
//! parsing can be tested and fuzzed without running anything.

use std::io::Write;
use std::process::ExitCode;

use crate::engine::clock::parse_clock;
use crate::engine::sinks::CSV_HEADER;
use crate::engine::units::{
    format_bytes, format_count, format_duration_ms, parse_bytes, parse_bytes_per_s, parse_duration_ms,
};
use crate::engine::{self, Alignment, Config, Mode, Report, SinkDesign, Snapshots};
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(
    name = "checkpoint-lab",
    version,
    about = "Simulate restarting a stream: checkpoints, crash, replay and sinks"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario; print the crash timeline table, or the report with --json.
    Simulate {
        #[command(flatten)]
        scenario: Scenario,
        /// Print the whole report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print what a reader of one sink sees at the end of the horizon.
    SinkRows {
        #[command(flatten)]
        scenario: Scenario,
        /// The sink design to read.
        #[arg(long, value_enum)]
        design: DesignArg,
        /// Print as CSV (product_id,window_start,order_count,emitted_at); the only format.
        #[arg(long)]
        csv: bool,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum DesignArg {
    AppendOnly,
    Upsert,
    Transactional,
    DedupeView,
}

#[derive(Clone, Copy, ValueEnum)]
enum ModeArg {
    Barrier,
    MicroBatch,
}

#[derive(Clone, Copy, ValueEnum)]
enum AlignmentArg {
    Aligned,
    Unaligned,
}

#[derive(Clone, Copy, ValueEnum)]
enum SnapshotsArg {
    Full,
    Incremental,
}

/// A crash time, or none.
#[derive(Clone, Copy)]
struct CrashAt(Option<u64>);

fn parse_crash_at(text: &str) -> Result<CrashAt, String> {
    if text.eq_ignore_ascii_case("none") {
        Ok(CrashAt(None))
    } else {
        parse_clock(text).map(|ms| CrashAt(Some(ms))).map_err(|e| format!("{e}, or none"))
    }
}

fn parse_time(text: &str) -> Result<u64, String> {
    parse_clock(text)
}

fn parse_retention(text: &str) -> Result<CrashAt, String> {
    if text.eq_ignore_ascii_case("none") {
        Ok(CrashAt(None))
    } else {
        parse_duration_ms(text).map(|ms| CrashAt(Some(ms))).map_err(|e| format!("{e}, or none"))
    }
}

fn parse_share(text: &str) -> Result<f64, String> {
    let value: f64 = match text.strip_suffix('%') {
        Some(percent) => percent.trim().parse::<f64>().map(|p| p / 100.0),
        None => text.trim().parse(),
    }
    .map_err(|_| format!("expected a share like 0.01 or 1%, got {text:?}"))?;
    if value.is_finite() {
        Ok(value)
    } else {
        Err(format!("expected a finite share, got {text:?}"))
    }
}

/// Every setting of the scenario; defaults are the lesson's worked example.
#[derive(Args)]
struct Scenario {
    /// Source partitions [1..256]
    #[arg(long, allow_hyphen_values = true, default_value_t = 12)]
    partitions: u32,
    /// Input rate in events/s over all partitions [1..1000000]
    #[arg(long, allow_hyphen_values = true, default_value_t = 2000)]
    rate: u64,
    /// Tumbling window length, e.g. 5m
    #[arg(long, allow_hyphen_values = true, default_value = "5m", value_parser = parse_duration_ms)]
    window: u64,
    /// Emit running totals each time event time passes a multiple of this, e.g. 1s
    #[arg(long, allow_hyphen_values = true, default_value = "1s", value_parser = parse_duration_ms)]
    emit_every: u64,
    /// Barrier checkpoints (Flink) or micro-batches with an offset log and a commit log (Spark)
    #[arg(long, allow_hyphen_values = true, value_enum, default_value = "barrier")]
    mode: ModeArg,
    /// Checkpoint interval, or the trigger interval in micro-batch mode, e.g. 30s [100ms..1h]
    #[arg(long, allow_hyphen_values = true, default_value = "30s", value_parser = parse_duration_ms)]
    interval: u64,
    /// Barrier alignment
    #[arg(long, allow_hyphen_values = true, value_enum, default_value = "aligned")]
    alignment: AlignmentArg,
    /// Snapshot kind
    #[arg(long, allow_hyphen_values = true, value_enum, default_value = "full")]
    snapshots: SnapshotsArg,
    /// Extra delay on one input channel (backpressure), e.g. 2s [0..10m]
    #[arg(long, allow_hyphen_values = true, default_value = "0", value_parser = parse_duration_ms)]
    backpressure: u64,
    /// Bytes an in-flight record adds to an unaligned checkpoint, e.g. 1KB
    #[arg(long, allow_hyphen_values = true, default_value = "1KB", value_parser = parse_bytes)]
    record_size: u64,
    /// Modelled state size, e.g. 2GB [1KB..10TB]
    #[arg(long, allow_hyphen_values = true, default_value = "2GB", value_parser = parse_bytes)]
    state_size: u64,
    /// Checkpoint store write bandwidth, e.g. 1GB/s
    #[arg(long, allow_hyphen_values = true, default_value = "1GB/s", value_parser = parse_bytes_per_s)]
    store_write: u64,
    /// Restore bandwidth (download and rebuild), e.g. 200MB/s
    #[arg(long, allow_hyphen_values = true, default_value = "200MB/s", value_parser = parse_bytes_per_s)]
    store_read: u64,
    /// Processing pause per checkpoint, e.g. 100ms
    #[arg(long, allow_hyphen_values = true, default_value = "100ms", value_parser = parse_duration_ms)]
    sync_pause: u64,
    /// Failure detection delay, e.g. 10s
    #[arg(long, allow_hyphen_values = true, default_value = "10s", value_parser = parse_duration_ms)]
    detection: u64,
    /// Delay from detection to the restore, e.g. 0s
    #[arg(long, allow_hyphen_values = true, default_value = "0", value_parser = parse_duration_ms)]
    restart_delay: u64,
    /// Job capacity in events/s [1..10000000]
    #[arg(long, allow_hyphen_values = true, default_value_t = 4000)]
    capacity: u64,
    /// Scenario start on the clock, e.g. 10:00:00
    #[arg(long, allow_hyphen_values = true, default_value = "10:00:00", value_parser = parse_time)]
    start_time: u64,
    /// Sum of partition offsets at the start, where the start checkpoint is complete
    #[arg(long, allow_hyphen_values = true, default_value_t = 1_000_000)]
    start_offset: u64,
    /// Id of the completed checkpoint at the start
    #[arg(long, allow_hyphen_values = true, default_value_t = 41)]
    start_checkpoint: u64,
    /// Crash time on the clock (HH:MM:SS or HH:MM:SS.mmm), or none
    #[arg(long, allow_hyphen_values = true, default_value = "10:00:45", value_parser = parse_crash_at)]
    crash_at: CrashAt,
    /// How long the scenario runs, e.g. 10m [1s..24h]
    #[arg(long, allow_hyphen_values = true, default_value = "10m", value_parser = parse_duration_ms)]
    horizon: u64,
    /// Distinct products [1..100000]
    #[arg(long, allow_hyphen_values = true, default_value_t = 100)]
    products: u32,
    /// Share of events that are producer retries, e.g. 0.01 or 1% [0..0.5]
    #[arg(long, allow_hyphen_values = true, default_value = "0", value_parser = parse_share)]
    retry_rate: f64,
    /// Log retention, e.g. 1m, or none
    #[arg(long, allow_hyphen_values = true, default_value = "none", value_parser = parse_retention)]
    retention: CrashAt,
    /// End-to-end latency SLA, for the interval rule, e.g. 5m
    #[arg(long, allow_hyphen_values = true, default_value = "5m", value_parser = parse_duration_ms)]
    latency_sla: u64,
    /// Root seed
    #[arg(long, allow_hyphen_values = true, default_value_t = 42)]
    seed: u64,
}

impl Scenario {
    fn config(&self) -> Config {
        Config {
            seed: self.seed,
            partitions: self.partitions,
            rate_per_s: self.rate,
            products: self.products,
            retry_rate: self.retry_rate,
            retention_ms: self.retention.0,
            window_ms: self.window,
            emit_every_ms: self.emit_every,
            mode: match self.mode {
                ModeArg::Barrier => Mode::Barrier,
                ModeArg::MicroBatch => Mode::MicroBatch,
            },
            interval_ms: self.interval,
            alignment: match self.alignment {
                AlignmentArg::Aligned => Alignment::Aligned,
                AlignmentArg::Unaligned => Alignment::Unaligned,
            },
            snapshots: match self.snapshots {
                SnapshotsArg::Full => Snapshots::Full,
                SnapshotsArg::Incremental => Snapshots::Incremental,
            },
            backpressure_ms: self.backpressure,
            record_bytes: self.record_size,
            state_bytes: self.state_size,
            store_write_bytes_per_s: self.store_write,
            store_read_bytes_per_s: self.store_read,
            sync_pause_ms: self.sync_pause,
            detection_ms: self.detection,
            restart_delay_ms: self.restart_delay,
            capacity_per_s: self.capacity,
            start_time_ms: self.start_time,
            start_offset: self.start_offset,
            start_checkpoint_id: self.start_checkpoint,
            crash_at_ms: self.crash_at.0,
            horizon_ms: self.horizon,
            latency_sla_ms: self.latency_sla,
        }
    }
}

/// The command-line flag for a config field, so range errors name what the user typed.
fn flag_of(field: &str) -> &'static str {
    match field {
        "seed" => "--seed",
        "partitions" => "--partitions",
        "rate_per_s" => "--rate",
        "products" => "--products",
        "retry_rate" => "--retry-rate",
        "retention_ms" => "--retention",
        "window_ms" => "--window",
        "emit_every_ms" => "--emit-every",
        "interval_ms" => "--interval",
        "mode" => "--mode",
        "backpressure_ms" => "--backpressure",
        "record_bytes" => "--record-size",
        "state_bytes" => "--state-size",
        "store_write_bytes_per_s" => "--store-write",
        "store_read_bytes_per_s" => "--store-read",
        "sync_pause_ms" => "--sync-pause",
        "detection_ms" => "--detection",
        "restart_delay_ms" => "--restart-delay",
        "capacity_per_s" => "--capacity",
        "start_time_ms" => "--start-time",
        "start_offset" => "--start-offset",
        "start_checkpoint_id" => "--start-checkpoint",
        "crash_at_ms" => "--crash-at",
        "horizon_ms" => "--horizon",
        "latency_sla_ms" => "--latency-sla",
        _ => "a setting",
    }
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
        static COMMAND: std::cell::RefCell<clap::Command> = std::cell::RefCell::new(Cli::command());
    }
    let parsed = COMMAND.with(|command| {
        let matches = command.borrow_mut().try_get_matches_from_mut(args)?;
        Cli::from_arg_matches(&matches)
    });
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => return Ok(Parsed::Text(e.to_string())),
        Err(e) => {
            let text = e.to_string();
            return Err(text.lines().next().unwrap_or("error: bad arguments").to_string());
        }
    };
    let (scenario, action) = match &cli.command {
        Command::Simulate { scenario, json } => (scenario, if *json { Action::Json } else { Action::Table }),
        Command::SinkRows { scenario, design, .. } => (
            scenario,
            Action::Rows(match design {
                DesignArg::AppendOnly => SinkDesign::AppendOnly,
                DesignArg::Upsert => SinkDesign::Upsert,
                DesignArg::Transactional => SinkDesign::Transactional,
                DesignArg::DedupeView => SinkDesign::DedupeView,
            }),
        ),
    };
    let config = scenario.config();
    config.validate().map_err(|e| format!("error: {} {}", flag_of(e.field), e.message))?;
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
            let rows = outcome.run.sinks().read(design);
            // A closed pipe (`| head`) ends the listing quietly.
            let _ = std::iter::once(CSV_HEADER.to_string())
                .chain(rows.iter().map(|row| row.csv()))
                .try_for_each(|line| writeln!(out, "{line}"));
        }
    }
    ExitCode::SUCCESS
}

//! The run in words: the lines of "a crash, second by second", the warnings, why a recovery
//! never caught up and each sink's delivery guarantee, each made from one of the engine's typed
//! facts. Nothing here computes a figure; it only says what the figures mean.

use crate::engine::model::report::{BarrierWait, Bottleneck, CaughtUpReason, CrashFactKind, InFlight, Warning};
use crate::engine::model::sinks::SinkDesign;
use crate::engine::model::trace::FailedBecause;
use crate::engine::settings::clock::ClockTime;
use crate::engine::settings::config::{
    CheckpointingMode, Config, Failure, IsolationLevel, Mode, RestartStrategy, FLINK_HEARTBEAT_TIMEOUT_MS,
};
use crate::engine::settings::units::{format_bytes, format_count, format_duration_ms};

/// A sink design's delivery guarantee, as the report states it. In micro-batch mode the
/// transactional design is Spark's idempotent `foreachBatch` write keyed by the batch id.
pub fn guarantee(design: SinkDesign, config: &Config) -> &'static str {
    let (mode, isolation) = (config.mode, config.isolation_level);
    if design == SinkDesign::Transactional
        && mode.sink_has_transactions()
        && config.checkpointing_mode == CheckpointingMode::AtLeastOnce
    {
        return "commits each row once, but at-least-once checkpoints restore state that already counted records \
                the replay counts again, so the committed totals are at least once";
    }
    match (design, isolation) {
        (SinkDesign::AppendOnly, _) if mode.reruns_in_flight() => "at least once: a re-run batch is appended again",
        (SinkDesign::AppendOnly, _) => "at least once: replayed emissions are stored again",
        (SinkDesign::Upsert, _) => "effectively once per key: the latest write wins, values can step back",
        (SinkDesign::Transactional, _) if !mode.sink_has_transactions() => {
            "exactly once: foreachBatch writes each batch id once, and a re-run batch finds it written and skips it"
        }
        (SinkDesign::Transactional, IsolationLevel::ReadCommitted) => {
            "exactly once for read_committed readers: output is visible only when its checkpoint commits"
        }
        (SinkDesign::Transactional, IsolationLevel::ReadUncommitted) => {
            "exactly once in the committed table, but read_uncommitted readers also see rows that are later aborted"
        }
        (SinkDesign::DedupeView, _) => "effectively once per key at read time: the newest emitted_at wins",
    }
}

/// Why a recovery did not catch up within the horizon.
pub fn caught_up_reason(reason: CaughtUpReason) -> &'static str {
    match reason {
        CaughtUpReason::Interrupted => "a later crash cut this recovery short",
        CaughtUpReason::RestoreUnfinished => "the restore had not finished by the end of the horizon",
        CaughtUpReason::BatchesOutlastTrigger => {
            "batches take longer than the trigger interval, so the job never gets back on its schedule"
        }
        CaughtUpReason::CapacityNotAboveRate => "capacity is not above the input rate, so the backlog never shrinks",
        CaughtUpReason::BacklogRemains => "the backlog was not worked off by the end of the horizon",
        CaughtUpReason::JobFailed => "the job is FAILED",
    }
}

/// A warning about a pathological setting, as one sentence.
pub fn warning(warning: &Warning) -> String {
    match *warning {
        Warning::BatchesBackToBack { interval_ms, state_store_write_bytes, every_ms } => format!(
            "A batch takes longer than the {} trigger interval (processing, the offset log and a {} state \
             store write): batches run back to back, one every {}.",
            format_duration_ms(interval_ms),
            format_bytes(state_store_write_bytes as f64),
            format_duration_ms(every_ms)
        ),
        Warning::StoreCannotKeepUp { checkpoint_bytes, interval_ms, every_ms, bottleneck } => {
            let (size, interval, every) =
                (format_bytes(checkpoint_bytes as f64), format_duration_ms(interval_ms), format_duration_ms(every_ms));
            match bottleneck {
                Bottleneck::Upload { .. } => format!(
                    "The store cannot absorb a {size} checkpoint every {interval}: checkpoints run back to back, \
                     every {every}."
                ),
                Bottleneck::SyncPause { sync_pause_ms, upload_ms } => format!(
                    "Each checkpoint pauses processing for {} (the synchronous part of the snapshot), which leaves \
                     no room in a {interval} interval: checkpoints run back to back, every {every}. The store is \
                     not the limit: it writes the {size} checkpoint in {}.",
                    format_duration_ms(sync_pause_ms),
                    format_duration_ms(upload_ms)
                ),
                Bottleneck::Alignment { alignment_ms } => format!(
                    "Each checkpoint waits {} for its last barrier, which travels behind the backpressured \
                     channel's records, longer than the {interval} interval: checkpoints run back to back, every \
                     {every}.",
                    format_duration_ms(alignment_ms)
                ),
            }
        }
        Warning::NeverCatchesUp(reason) => format!("The job never catches up: {}.", caught_up_reason(reason)),
        Warning::BackpressureInMicroBatch => "Backpressure and barrier alignment do not apply in micro-batch mode: \
                                              a batch reads all its input before it writes its output."
            .to_string(),
        Warning::EventsLost { events } => {
            format!("Recovery rewound past the log's retention: {} events were lost.", format_count(events))
        }
        Warning::CountedTwice { events } => format!(
            "At least once: {} events had passed their barrier before the restored checkpoint's snapshot, so \
             its state already counted them and the replay counted them again. Window totals are that much \
             too high.",
            format_count(events)
        ),
        Warning::OffsetsApartFromState { skipped, counted_twice, interval_ms } => {
            let mut what = Vec::new();
            if skipped > 0 {
                what.push(format!(
                    "{} events lay between the restored checkpoint's offsets and the committed offsets, so the \
                     state never counted them and the readers resumed past them: window totals are that much too \
                     low",
                    format_count(skipped)
                ));
            }
            if counted_twice > 0 {
                what.push(format!(
                    "{} events lay between the committed offsets and the restored checkpoint's, so the state had \
                     counted them and the replay counted them again: window totals are that much too high",
                    format_count(counted_twice)
                ));
            }
            format!(
                "Offsets committed on a timer (every {}), apart from the checkpointed state: {}. Commit the \
                 offsets with the checkpoint.",
                format_duration_ms(interval_ms),
                what.join("; ")
            )
        }
        Warning::CheckpointsOutlastTimeout { duration_ms, timeout_ms } => format!(
            "A checkpoint takes {}, longer than Flink's default checkpoint timeout of {} \
             (execution.checkpointing.timeout): Flink would expire each one and, tolerating no failed \
             checkpoint by default, fail the job again and again. The model lets them finish; a real job \
             needs a longer timeout or a faster store.",
            format_duration_ms(duration_ms),
            format_duration_ms(timeout_ms)
        ),
        Warning::TransactionsTimedOut { rows, timeout_ms } => format!(
            "{} rows are lost: their sink transactions were pre-committed, but the {} transaction timeout ran \
             out before the commit (after the checkpoint completed, or when the restarted job committed them \
             again), so the broker aborted them while the completed checkpoint's offsets were already past \
             them. Set the transaction timeout well above the checkpoint interval plus the longest outage.",
            format_count(rows),
            format_duration_ms(timeout_ms)
        ),
        Warning::ProducerFenced { transactions, timeout_ms } => format!(
            "{} sink transactions stayed open longer than the {} transaction timeout: each time the broker \
             aborted the transaction and fenced the producer, and its next write failed the job, which \
             restarted from its last completed checkpoint. Set the transaction timeout well above the \
             checkpoint interval plus the longest outage.",
            format_count(transactions),
            format_duration_ms(timeout_ms)
        ),
        Warning::JobFailed { at_ms, because, failures } => format!(
            "The job is FAILED at {} after {} {}: {}. Nothing after that is processed.",
            ClockTime(at_ms),
            format_count(u64::from(failures)),
            if failures == 1 { "failure" } else { "failures" },
            match because {
                FailedBecause::RestartStrategy => "its restart strategy allowed no further restart",
                FailedBecause::DataLoss => {
                    "offsets it had to read again were gone from the log, and failOnDataLoss is true (Spark's default)"
                }
            }
        ),
    }
}

/// One line of "a crash, second by second". In micro-batch mode the restored checkpoint is a
/// committed batch, planned rather than reached by a barrier.
pub fn crash_fact(mode: Mode, fact: &CrashFactKind) -> String {
    let words = mode.words();
    let (unit, planned, completed) = (words.restore_point, words.started, words.done);
    match *fact {
        CrashFactKind::ProducerFenced { began_at_ms, timeout_ms } => format!(
            "the sink transaction begun at {} outlived its {} timeout: the broker aborted it and fenced the \
             producer, whose next write fails the job",
            ClockTime(began_at_ms),
            format_duration_ms(timeout_ms)
        ),
        CrashFactKind::OffsetsReset { from, to, lost_events, micro_batch: false, .. } => format!(
            "the log no longer holds offsets {} to {}: the Kafka source resets to the oldest offset kept \
             (auto.offset.reset earliest, the KafkaSource's default); {} events lost",
            format_count(from),
            format_count(to),
            format_count(lost_events)
        ),
        CrashFactKind::OffsetsReset { from, to, lost_events, micro_batch: true, fails } => format!(
            "the log no longer holds offsets {} to {} ({} events): {}",
            format_count(from),
            format_count(to),
            format_count(lost_events),
            if fails {
                "the query fails (failOnDataLoss is true, Spark's default)"
            } else {
                "the query skips to the oldest offset kept (failOnDataLoss is false)"
            }
        ),
        CrashFactKind::JobFailed { because: FailedBecause::DataLoss, .. } => {
            "query FAILED: restarting it fails the same way until its checkpoint is dealt with".to_string()
        }
        CrashFactKind::JobFailed { strategy, failure_number, .. } => format!(
            "job FAILED: {}",
            match strategy {
                RestartStrategy::None => "the restart strategy is none".to_string(),
                RestartStrategy::FixedDelay => format!(
                    "failure {failure_number} exceeds the fixed-delay strategy's attempts \
                     (restart-strategy.fixed-delay.attempts)"
                ),
                RestartStrategy::FailureRate => format!(
                    "{failure_number} failures within the failure-rate interval exceed \
                     restart-strategy.failure-rate.max-failures-per-interval"
                ),
                RestartStrategy::ExponentialDelay => "the restart strategy gave up".to_string(),
            }
        ),
        CrashFactKind::RestoredBarrier { checkpoint, offset } => {
            format!("{unit} {checkpoint} {planned}: offsets total {}", format_count(offset))
        }
        CrashFactKind::StartingCheckpoint { checkpoint } => {
            format!("{unit} {checkpoint} is the {completed} {unit} the scenario starts from")
        }
        CrashFactKind::Completed { checkpoint, barrier_wait, barrier_wait_ms, sync_ms, upload_ms } => {
            let (sync, upload) = (format_duration_ms(sync_ms), format_duration_ms(upload_ms));
            let wait = format_duration_ms(barrier_wait_ms);
            match barrier_wait {
                // Held inputs pause as the sync does: one pause, as before.
                BarrierWait::Aligning | BarrierWait::Unaligned => format!(
                    "checkpoint {checkpoint} completed ({} pause + {upload} upload); then the transactional sink commits",
                    format_duration_ms(barrier_wait_ms + sync_ms)
                ),
                _ if barrier_wait_ms == 0 => format!(
                    "checkpoint {checkpoint} completed ({sync} pause + {upload} upload); then the transactional sink commits"
                ),
                BarrierWait::Tracking => format!(
                    "checkpoint {checkpoint} completed ({wait} tracking barriers, no input held + {sync} pause + \
                     {upload} upload); then the transactional sink commits"
                ),
                BarrierWait::OneChannel => format!(
                    "checkpoint {checkpoint} completed ({wait} until the barrier arrived on the one input, nothing \
                     to align + {sync} pause + {upload} upload); then the transactional sink commits"
                ),
            }
        }
        CrashFactKind::BatchCommitted { batch, offset_log_ms, processing_ms, state_store_ms } => format!(
            "batch {batch} committed ({} offset log + {} processing + {} state store write)",
            format_duration_ms(offset_log_ms),
            format_duration_ms(processing_ms),
            format_duration_ms(state_store_ms)
        ),
        CrashFactKind::LastWindowTotal { window_start_ms, order_count } => format!(
            "running total of the {} window: {} (the last emission before the crash)",
            crate::engine::settings::clock::ClockTime(window_start_ms),
            format_count(order_count)
        ),
        CrashFactKind::Crash { offset, replay_events, restored, in_flight, from_committed } => {
            let then = match in_flight {
                InFlight::Nothing => String::new(),
                InFlight::DiscardedCheckpoint { checkpoint } => {
                    format!("; checkpoint {checkpoint} was in flight and is discarded")
                }
                InFlight::BatchRerun { batch, from, to } => format!(
                    "; batch {batch} is in the offset log ({} to {}) without a commit entry, so it runs again",
                    format_count(from),
                    format_count(to)
                ),
                InFlight::NoBatchRunning { committed } => {
                    format!("; batch {committed} is committed and no batch was running")
                }
            };
            let since = if from_committed {
                "since the last offset commit".to_string()
            } else {
                format!("since {unit} {restored}")
            };
            format!(
                "crash at offset {}: {} events {since} to replay{then}",
                format_count(offset),
                format_count(replay_events)
            )
        }
        CrashFactKind::OffsetsCommitted { offset, checkpoint, checkpoint_offset } => format!(
            "the consumer's last offset commit before the crash: offsets total {} in the group, {}",
            format_count(offset),
            match offset.cmp(&checkpoint_offset) {
                std::cmp::Ordering::Greater => format!(
                    "{} past checkpoint {checkpoint}'s, whose state the restart loads",
                    format_count(offset - checkpoint_offset)
                ),
                std::cmp::Ordering::Less => format!(
                    "{} before checkpoint {checkpoint}'s, whose state the restart loads",
                    format_count(checkpoint_offset - offset)
                ),
                std::cmp::Ordering::Equal => format!("the same as checkpoint {checkpoint}'s"),
            }
        ),
        CrashFactKind::ResumedAtCommitted { offset, skipped_events, counted_twice_events } => {
            let mut what = Vec::new();
            if skipped_events > 0 {
                what.push(format!(
                    "{} events between the checkpoint's offsets and the committed ones are never counted",
                    format_count(skipped_events)
                ));
            }
            if counted_twice_events > 0 {
                what.push(format!(
                    "{} events the checkpoint's state already counted are read again and counted twice",
                    format_count(counted_twice_events)
                ));
            }
            if what.is_empty() {
                what.push("the state and the offsets meet, so nothing is lost or counted twice".to_string());
            }
            format!(
                "the readers resume at the committed offsets {}, not at the checkpoint's: {}",
                format_count(offset),
                what.join("; ")
            )
        }
        // Spark retries a failed task (spark.task.maxFailures) and reruns the tasks of a lost
        // executor within the batch: what stops a query is its driver failing, or a batch failing
        // past those retries. Spark has no restart strategy: whatever runs the query (a cluster
        // manager, a job scheduler) restarts it, after that supervisor's own delay.
        CrashFactKind::Detected { after_ms, .. } if !mode.reports_task_failures() => format!(
            "the query stopped (its driver failed, or a batch failed past its task retries); its supervisor \
             notices after {} and restarts it",
            format_duration_ms(after_ms)
        ),
        CrashFactKind::Detected { after_ms, failure, overridden, heartbeat_timeout_ms } => format!(
            "failure detected after {}{}",
            format_duration_ms(after_ms),
            match (overridden, failure) {
                (true, _) => String::new(),
                // Drawn within the last heartbeat interval: the timeout ran from its last answer.
                (false, Failure::TaskmanagerLost) if after_ms < heartbeat_timeout_ms => format!(
                    " (the lost TaskManager last answered a heartbeat {} before the crash, and heartbeat.timeout \
                     is {} here, {} by Flink's default)",
                    format_duration_ms(heartbeat_timeout_ms - after_ms),
                    format_duration_ms(heartbeat_timeout_ms),
                    format_duration_ms(FLINK_HEARTBEAT_TIMEOUT_MS)
                ),
                // A scenario may set a shorter timeout than Flink's: say which one the student sees.
                (false, Failure::TaskmanagerLost) if after_ms != FLINK_HEARTBEAT_TIMEOUT_MS => format!(
                    " (the lost TaskManager's heartbeat timed out: heartbeat.timeout is {} here, {} by Flink's \
                     default)",
                    format_duration_ms(after_ms),
                    format_duration_ms(FLINK_HEARTBEAT_TIMEOUT_MS)
                ),
                (false, Failure::TaskmanagerLost) => " (the lost TaskManager's heartbeat timed out)".into(),
                (false, Failure::Task) => " (the failing task reported its exception)".into(),
            }
        ),
        CrashFactKind::RestartBackoff { backoff_ms, .. } if !mode.has_restart_strategy() => {
            format!("the supervisor waits {} before restarting the query", format_duration_ms(backoff_ms))
        }
        CrashFactKind::RestartBackoff { backoff_ms, failure_number, strategy } => match strategy {
            RestartStrategy::FixedDelay => {
                format!("restart after the fixed delay of {}", format_duration_ms(backoff_ms))
            }
            RestartStrategy::ExponentialDelay => format!(
                "restart after an exponential backoff of {} (failure number {failure_number} since the backoff was \
                 last reset)",
                format_duration_ms(backoff_ms)
            ),
            RestartStrategy::FailureRate => format!(
                "restart after the failure-rate strategy's delay of {} (failure {failure_number} within its interval)",
                format_duration_ms(backoff_ms)
            ),
            RestartStrategy::None => "no restart".to_string(),
        },
        CrashFactKind::Restored { checkpoint, state_bytes, offset, backlog_events, reset } => format!(
            "{} {checkpoint} restored ({} of state); {} {}, backlog {} events{}",
            if mode.runs_batches() { "state store version of batch" } else { "checkpoint" },
            format_bytes(state_bytes as f64),
            if reset { "its offsets are gone from the log: the readers start at" } else { "rewound to" },
            format_count(offset),
            format_count(backlog_events),
            // Flink's two-phase-commit sinks commit the restored checkpoint's transaction again: a
            // crash may have fallen between the completion and that commit.
            if !mode.sink_has_transactions() {
                String::new()
            } else {
                format!("; the transactional sink commits checkpoint {checkpoint} again")
            }
        ),
        CrashFactKind::ReplayDone { offset } => format!("replay back at the crash offset {}", format_count(offset)),
        CrashFactKind::BatchCommittedAgain { batch, from, to } => format!(
            "batch {batch} committed again with the same offsets ({} to {})",
            format_count(from),
            format_count(to)
        ),
        CrashFactKind::CaughtUp { after_ms } => format!(
            "caught up{}: {} from crash to catch-up",
            if mode.runs_batches() { " (back on the trigger schedule)" } else { "" },
            format_duration_ms(after_ms)
        ),
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::{Config, Mode};

    /// The lesson's worked example, line for line as docs/model.md prints it.
    #[test]
    fn the_default_crash_table_reads_as_the_lesson_tells_it() {
        let report = crate::lesson::simulate(&Config::default()).unwrap();
        let lines: Vec<(&str, &str)> = report.crash_table.iter().map(|r| (r.at.at.as_str(), r.what.as_str())).collect();
        assert_eq!(
            lines,
            [
                ("10:00:30", "checkpoint 42 barrier: offsets total 1,060,000"),
                (
                    "10:00:32.100",
                    "checkpoint 42 completed (100 ms pause + 2 s upload); then the transactional sink commits"
                ),
                ("10:00:44", "running total of the 10:00:00 window: 88,000 (the last emission before the crash)"),
                ("10:00:45", "crash at offset 1,090,000: 30,000 events since checkpoint 42 to replay"),
                (
                    "10:00:55",
                    "failure detected after 10 s (the lost TaskManager's heartbeat timed out: heartbeat.timeout is \
                     10 s here, 50 s by Flink's default)",
                ),
                (
                    "10:01:05",
                    "checkpoint 42 restored (2 GB of state); rewound to 1,060,000, backlog 70,000 events; the \
                     transactional sink commits checkpoint 42 again",
                ),
                ("10:01:12.500", "replay back at the crash offset 1,090,000"),
                ("10:01:40.200", "caught up: 55.2 s from crash to catch-up"),
            ]
        );
        assert!(report.warnings.is_empty() && report.caught_up_reason.is_none());
        let doc = include_str!("../../docs/model.md");
        for (at, what) in &lines {
            assert!(
                doc.lines().any(|line| line.starts_with(at) && line.ends_with(what)),
                "docs/model.md prints the crash table's line {at} {what}"
            );
        }
    }

    #[test]
    fn a_lost_taskmanager_is_detected_at_the_timeout_the_job_sets() {
        let detected = |after_ms| {
            super::crash_fact(
                Mode::Barrier,
                &crate::engine::model::report::CrashFactKind::Detected {
                    after_ms,
                    failure: crate::engine::settings::config::Failure::TaskmanagerLost,
                    overridden: false,
                    heartbeat_timeout_ms: after_ms,
                },
            )
        };
        assert_eq!(detected(50_000), "failure detected after 50 s (the lost TaskManager's heartbeat timed out)");
        assert!(detected(20_000).ends_with("heartbeat.timeout is 20 s here, 50 s by Flink's default)"));
    }

    #[test]
    fn a_crash_during_a_checkpoint_and_a_batch_rerun_are_told() {
        let during = Config { crash_at_ms: Some(36_031_000), ..Config::default() };
        let report = crate::lesson::simulate(&during).unwrap();
        assert!(report.crash_table.iter().any(|r| r.what
            == "crash at offset 1,062,000: 62,000 events since checkpoint 41 to replay; checkpoint 42 was in flight \
                and is discarded"));
        // Batch 42's output is written at 10:00:45.100 and its commit-log entry at 10:00:45.300.
        let batch = Config { mode: Mode::MicroBatch, crash_at_ms: Some(36_045_200), ..Config::default() };
        let report = crate::lesson::simulate(&batch).unwrap();
        let what: Vec<&str> = report.crash_table.iter().map(|r| r.what.as_str()).collect();
        assert!(what.iter().any(|w| w.contains("without a commit entry, so it runs again")), "{what:#?}");
        assert!(what.iter().any(|w| w.starts_with("caught up (back on the trigger schedule): ")), "{what:#?}");
        assert!(what.iter().any(|w| w.contains("committed again with the same offsets")), "{what:#?}");
    }

    #[test]
    fn warnings_and_the_caught_up_reason_are_sentences() {
        let slow = Config { capacity_per_s: 2_000, ..Config::default() };
        let report = crate::lesson::simulate(&slow).unwrap();
        let reason = "capacity is not above the input rate, so the backlog never shrinks";
        assert_eq!(report.caught_up_reason.as_deref(), Some(reason));
        assert!(report.warnings.contains(&format!("The job never catches up: {reason}.")));
        let store = Config { store_write_bytes_per_s: 50_000_000, interval_ms: 5_000, ..Config::default() };
        let report = crate::lesson::simulate(&store).unwrap();
        assert_eq!(
            report.warnings[0],
            "The store cannot absorb a 2 GB checkpoint every 5 s: checkpoints run back to back, every 40.1 s."
        );
    }

    /// The engine's outcome types hold numbers: no text field, no sentence built with `format!`.
    #[test]
    fn the_engine_outcome_holds_no_words() {
        for (file, source) in [
            ("engine/model/report.rs", include_str!("../engine/model/report.rs")),
            ("engine/model/steady_state.rs", include_str!("../engine/model/steady_state.rs")),
            ("engine/fast/figures.rs", include_str!("../engine/fast/figures.rs")),
        ] {
            let code: String =
                source.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
            for word in ["String", "&'static str", "format!("] {
                assert!(!code.contains(word), "{file} holds {word:?}: its figures should be numbers");
            }
        }
    }
}

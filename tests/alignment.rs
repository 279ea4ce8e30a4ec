//! Barrier alignment under backpressure: one slow input channel. Aligned checkpoints hold the
//! other inputs (alignment time, a stall and a lag spike); unaligned ones snapshot at once and
//! store the overtaken in-flight records instead (bigger checkpoints, no stall).

use checkpoint_lab::engine::{Alignment, Config};
use checkpoint_lab::lesson;

fn backpressured(alignment: Alignment) -> checkpoint_lab::lesson::Report {
    lesson::simulate(&Config { alignment, backpressure_ms: 3_000, crash_at_ms: None, ..Config::default() }).unwrap()
}

#[test]
fn aligned_checkpoints_stall_while_unaligned_ones_grow() {
    let aligned = backpressured(Alignment::Aligned);
    let unaligned = backpressured(Alignment::Unaligned);
    let taken = |r: &checkpoint_lab::lesson::Report| r.checkpoints[1..].to_vec();
    for c in taken(&aligned) {
        assert!((2_900..=3_100).contains(&c.alignment_ms), "alignment about the 3 s backpressure: {}", c.alignment_ms);
        assert_eq!(c.in_flight_bytes, 0);
    }
    for c in taken(&unaligned) {
        assert_eq!(c.alignment_ms, 0);
        assert!(c.in_flight_bytes > 0, "unaligned stores the in-flight records");
    }
    assert!(aligned.aligning_ms > 0 && unaligned.aligning_ms == 0);
    let size = |r: &checkpoint_lab::lesson::Report| r.checkpoints[1].size_bytes;
    assert!(size(&unaligned) > size(&aligned));
    // The stall: while aligning, the held inputs fall behind.
    let max_lag = |r: &checkpoint_lab::lesson::Report| r.series.iter().map(|s| s.lag_events).max().unwrap();
    assert!(max_lag(&aligned) > 4 * max_lag(&unaligned), "{} vs {}", max_lag(&aligned), max_lag(&unaligned));
    assert!(aligned.series.iter().any(|s| s.phase == checkpoint_lab::engine::model::sim::Phase::Aligning));
}

#[test]
fn without_backpressure_alignment_costs_nothing() {
    let report = lesson::simulate(&Config { crash_at_ms: None, ..Config::default() }).unwrap();
    assert!(report.checkpoints.iter().all(|c| c.alignment_ms == 0 && c.in_flight_bytes == 0));
    assert_eq!(report.aligning_ms, 0);
}

#[test]
fn aligning_longer_than_the_interval_means_the_job_never_catches_up() {
    let config = Config {
        interval_ms: 1_000,
        backpressure_ms: 1_500,
        snapshots: checkpoint_lab::engine::Snapshots::Incremental,
        ..Config::default()
    };
    let aligned = lesson::simulate(&config).unwrap();
    assert!(aligned.caught_up_at.is_none());
    assert!(aligned.caught_up_reason.is_some());
    assert!(aligned.warnings.iter().any(|w| w.contains("never catches up")), "{:?}", aligned.warnings);
    let unaligned = lesson::simulate(&Config { alignment: Alignment::Unaligned, ..config }).unwrap();
    assert!(unaligned.caught_up_at.is_some(), "unaligned checkpoints do not hold inputs");
}

/// An unaligned checkpoint stores what the network buffers hold, not everything the slow channel
/// delays: Flink's buffers (20 segments of 32 KB for a backpressured channel) bound it, and the
/// source stops reading once they are full, so the rest waits in the log behind the checkpoint's
/// offset. Debloated buffers hold about a second of the channel's throughput.
#[test]
fn the_network_buffers_bound_what_an_unaligned_checkpoint_stores() {
    use checkpoint_lab::engine::model::checkpoint::in_flight_limit_records;
    use checkpoint_lab::engine::settings::config::BufferDebloat;
    let slow = |record_bytes: u64, buffer_debloat: BufferDebloat| Config {
        alignment: Alignment::Unaligned,
        backpressure_ms: 10_000,
        record_bytes,
        buffer_debloat,
        ..Config::default()
    };
    // 10 s behind on the busiest channel (12 of the wheel's 73 slots, 329 events/s) is 3,288
    // records: 3.3 GB of 1 MB records before; debloated, a second of it is 328 records.
    for (config, limit_records, in_flight_bytes) in [
        (slow(1_000_000, BufferDebloat::Off), 1, 1_000_000),
        (slow(1_000, BufferDebloat::Off), 655, 655_000),
        (slow(1_000, BufferDebloat::On), 328, 328_000),
    ] {
        assert_eq!(in_flight_limit_records(&config), limit_records);
        let report = lesson::simulate(&config).unwrap();
        for c in &report.checkpoints[1..] {
            assert_eq!(c.in_flight_bytes, in_flight_bytes, "checkpoint {}", c.id);
        }
        assert_eq!(report.steady_state.size_bytes - config.state_bytes, in_flight_bytes, "the closed form agrees");
        // What the buffers did not hold is read again from the log: nothing is lost or doubled.
        let s = &report.sinks;
        assert!(
            s.upsert.matches_failure_free && s.transactional.matches_failure_free && s.dedupe_view.matches_failure_free
        );
    }
    // Under the bound the channel's whole delay is stored: half a second behind, fewer than 655
    // records even while the restored job catches up at twice the rate (658 events/s).
    let under = lesson::simulate(&Config { backpressure_ms: 500, ..slow(1_000, BufferDebloat::Off) }).unwrap();
    assert!(under.checkpoints[1..].iter().all(|c| c.in_flight_bytes > 0 && c.in_flight_bytes < 655_000));
}

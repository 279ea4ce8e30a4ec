//! A state-machine test: random sequences of {advance, crash, change interval, observe a sink},
//! with several crashes in one run — during recovery and during a checkpoint's upload too — then
//! compared with the failure-free run of the same sequence. After every step the observed sink's
//! guarantee is checked.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use checkpoint_lab::engine::model::sim::FailureCause;
use checkpoint_lab::engine::model::sinks::{dedupe_view, duplicate_rows, Row, SinkDesign};
use checkpoint_lab::engine::{Config, Mode, Sim};
use common::{contents, extra_rows};
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Op {
    Advance(u64),
    Crash,
    SetInterval(u64),
    Observe(SinkDesign),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (1u64..=20_000).prop_map(Op::Advance),
        2 => Just(Op::Crash),
        1 => prop_oneof![Just(1_000u64), Just(5_000), Just(10_000), Just(30_000), Just(60_000)].prop_map(Op::SetInterval),
        2 => prop::sample::select(SinkDesign::ALL.to_vec()).prop_map(Op::Observe),
    ]
}

/// The guarantee of one design, checked on the sink as it stands.
fn check_sink(sim: &Sim, design: SinkDesign) -> Result<(), TestCaseError> {
    let rows = sim.sinks().read(design);
    match design {
        SinkDesign::Upsert | SinkDesign::DedupeView => {
            let mut keys: Vec<_> = rows.iter().map(|r| (r.window_start_ms, r.product_id)).collect();
            let n = keys.len();
            keys.dedup();
            prop_assert_eq!(keys.len(), n, "one row per key");
            if design == SinkDesign::DedupeView {
                prop_assert_eq!(contents(&rows), contents(&sim.sinks().read(SinkDesign::Upsert)));
            }
        }
        SinkDesign::Transactional => prop_assert_eq!(duplicate_rows(&rows), 0, "committed rows are never duplicated"),
        SinkDesign::AppendOnly => {
            prop_assert_eq!(dedupe_view::read(&rows).len(), sim.sinks().read(SinkDesign::Upsert).len())
        }
    }
    Ok(())
}

/// Runs `ops` on a crashing run and on its failure-free twin, then compares them once drained.
fn run_ops(ops: &[Op]) -> Result<(Sim, Sim), TestCaseError> {
    run_ops_with(ops, Config { crash_at_ms: None, horizon_ms: 3_600_000, ..Config::default() })
}

fn run_ops_with(ops: &[Op], config: Config) -> Result<(Sim, Sim), TestCaseError> {
    let mut run = Sim::new(&config).unwrap();
    let mut truth = run.clone();
    for op in ops {
        match op {
            Op::Advance(ms) => {
                let until = run.now_ms() + ms;
                run.run_until(until);
                truth.run_until(until);
            }
            Op::Crash => run.crash(FailureCause::Scheduled),
            Op::SetInterval(ms) => {
                run.set_interval(*ms).unwrap();
                truth.set_interval(*ms).unwrap();
            }
            Op::Observe(design) => check_sink(&run, *design)?,
        }
    }
    // Let every recovery finish, then drain both at the same instant.
    let mut until = run.now_ms();
    let limit = until + 3_600_000;
    while !run.all_recovered() {
        prop_assert!(until < limit, "no catch-up within an hour: {ops:?}");
        until += 1_000;
        run.run_until(until);
    }
    truth.run_until(until);
    run.close_input_and_drain();
    truth.close_input_and_drain();
    Ok((run, truth))
}

/// What holds in both modes: state, the upsert table and the dedupe view equal the failure-free
/// run's, and the transactional sink never commits a row twice.
fn compare_state_and_keyed_sinks(run: &Sim, truth: &Sim) -> Result<(), TestCaseError> {
    prop_assert!(run.state().same_content(truth.state()), "state differs");
    prop_assert_eq!(run.state().seen_ids(), truth.state().seen_ids());
    for design in [SinkDesign::Upsert, SinkDesign::DedupeView] {
        prop_assert_eq!(contents(&run.sinks().read(design)), contents(&truth.sinks().read(design)));
    }
    prop_assert_eq!(duplicate_rows(&run.sinks().read(SinkDesign::Transactional)), 0);
    Ok(())
}

/// Append-only rows written by an attempt that later crashed, after the checkpoint it restored.
fn orphans(run: &Sim) -> Vec<(u32, u64, u32)> {
    let is_orphan =
        |r: &&Row| run.recoveries.iter().any(|rec| rec.crashed_attempt == r.attempt && r.epoch > rec.restored.id());
    let mut rows: Vec<_> = run.sinks().append_only.rows().iter().filter(is_orphan).map(Row::content).collect();
    rows.sort_unstable();
    rows
}

fn compare(run: &Sim, truth: &Sim) -> Result<(), TestCaseError> {
    compare_state_and_keyed_sinks(run, truth)?;
    let committed = run.sinks().read(SinkDesign::Transactional);
    let newest = committed.iter().map(|r| r.boundary_ms).max().unwrap_or(0);
    let prefix: Vec<_> = truth.sinks().append_only.rows().iter().filter(|r| r.boundary_ms <= newest).copied().collect();
    prop_assert_eq!(contents(&committed), contents(&prefix));
    prop_assert_eq!(extra_rows(run.sinks().append_only.rows(), truth.sinks().append_only.rows()), orphans(run));
    Ok(())
}

/// Micro-batch mode: a restart moves where later batches are cut, so tables are compared on what
/// does not depend on the cuts.
fn compare_micro_batch(run: &Sim, truth: &Sim) -> Result<(), TestCaseError> {
    compare_state_and_keyed_sinks(run, truth)?;
    let committed = run.sinks().read(SinkDesign::Transactional);
    prop_assert_eq!(contents(&dedupe_view::read(&committed)), contents(&run.sinks().read(SinkDesign::Upsert)));
    prop_assert_eq!(duplicate_rows(run.sinks().append_only.rows()), orphans(run).len() as u64);
    prop_assert_eq!(run.sinks().upsert().regressions(), 0, "a re-run batch writes the same totals");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1_500, ..ProptestConfig::default() })]

    #[test]
    fn any_sequence_of_crashes_recovers_exactly_once(ops in prop::collection::vec(op(), 1..40)) {
        let (run, truth) = run_ops(&ops)?;
        compare(&run, &truth)?;
    }

    #[test]
    fn any_sequence_of_crashes_in_micro_batch_mode(ops in prop::collection::vec(op(), 1..40)) {
        // 200 MB of state: a batch fits even a 1 s trigger, so every recovery gets back on schedule.
        let config = Config {
            mode: Mode::MicroBatch,
            state_bytes: 200_000_000,
            crash_at_ms: None,
            horizon_ms: 3_600_000,
            ..Config::default()
        };
        let (run, truth) = run_ops_with(&ops, config)?;
        compare_micro_batch(&run, &truth)?;
    }
}

#[test]
fn crashes_during_an_upload_and_during_recovery() {
    // 10:00:31: checkpoint 42 is uploading; 10:00:43: the job is still restoring; then once more
    // in steady state, after the interval changed.
    let ops = [
        Op::Advance(31_000),
        Op::Crash,
        Op::Advance(12_000),
        Op::Crash,
        Op::Advance(90_000),
        Op::SetInterval(5_000),
        Op::Advance(20_000),
        Op::Observe(SinkDesign::Transactional),
        Op::Crash,
        Op::Advance(60_000),
        Op::Observe(SinkDesign::DedupeView),
    ];
    let (run, truth) = run_ops(&ops).unwrap();
    assert_eq!(run.recoveries.len(), 3);
    assert_eq!(run.recoveries[0].discarded_checkpoint, Some(42), "the upload in flight is discarded");
    assert_eq!(run.recoveries[0].restored.id(), 41);
    assert!(
        run.recoveries[0].interrupted && run.recoveries[0].restored_at_ms.is_none(),
        "the second crash cut the restore short"
    );
    assert_eq!(run.recoveries[1].restored.id(), 41);
    assert!(run.recoveries[2].restored.id() > 41);
    compare(&run, &truth).unwrap();
}

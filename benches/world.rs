//! The world at an instant: how long the pipeline view waits for "what is the world at time t"
//! on the lesson's run, at instants spread over the horizon (the cursor can stand anywhere), and
//! the cost of the first question after a run, which counts the sink tables up to its instant.

use std::hint::black_box;

use checkpoint_lab::engine::fast::world_index::WorldIndex;
use checkpoint_lab::engine::{self, Config};
use criterion::{criterion_group, criterion_main, Criterion};

fn benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("world");
    for (name, config) in [
        ("default scenario", Config::default()),
        (
            "one hour at 20,000 events/s",
            Config { rate_per_s: 20_000, capacity_per_s: 40_000, horizon_ms: 3_600_000, ..Config::default() },
        ),
    ] {
        let figures = engine::run(&config).unwrap().figures();
        let index = WorldIndex::new(&figures);
        let (start, end) = index.span_ms();
        // 97 instants across the horizon, none on a whole second: the slowest path.
        let instants: Vec<u64> = (0..97).map(|i| start + (end - start) * i / 97 + 137).collect();
        let _ = index.at(start);
        group.bench_function(format!("{name}: world at one instant"), |b| {
            let mut i = 0;
            b.iter(|| {
                i = (i + 1) % instants.len();
                black_box(index.at(black_box(instants[i])))
            })
        });
        group.bench_function(format!("{name}: first question (counting the sinks up to it)"), |b| {
            b.iter(|| {
                let fresh = WorldIndex::new(&figures);
                black_box(fresh.at(start + 45_500))
            })
        });
    }
    group.finish();
}

criterion_group!(world_benches, benches);
criterion_main!(world_benches);

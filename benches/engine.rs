//! Engine speed: simulated events per second on the lesson's scenario, a one-hour 20,000
//! events/s scenario, a crash-time change, and the floor: a bare loop that only generates and
//! counts the same events. Criterion prints each throughput; the floor ratio is printed at the end.
//! Then each slider moved one step, computed per event and the fast way, side by side.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use checkpoint_lab::engine::fast::data_plane::DataPlane;
use checkpoint_lab::engine::model::sim::Execution;
use checkpoint_lab::engine::model::source::SourceLog;
use checkpoint_lab::engine::Outcome;
use checkpoint_lab::engine::{self, Config, Runner};
use checkpoint_lab::lesson::report::Report;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

/// The system allocator, counting allocations: how many a slider change makes (each one in
/// WebAssembly is a call into the module's allocator, and so is its free).
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn one_hour() -> Config {
    Config { rate_per_s: 20_000, capacity_per_s: 40_000, horizon_ms: 3_600_000, ..Config::default() }
}

/// Generates and counts the events of `config`'s horizon, nothing else.
fn floor(config: &Config) -> u64 {
    let log = SourceLog::new(config);
    let mut counts = vec![0u32; config.products as usize];
    let end = log.log_end_at(config.end_ms());
    for g in config.start_offset..end {
        counts[log.product_of(g) as usize] += 1;
    }
    counts.iter().map(|&c| u64::from(c)).sum()
}

fn events_of(config: &Config) -> u64 {
    engine::run(config).unwrap().processed_events()
}

fn benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("engine");
    group.sample_size(20);
    let scenarios = [
        ("default scenario", Config::default()),
        ("crash at 10:03:17 instead", Config { crash_at_ms: Some(36_197_000), ..Config::default() }),
        ("one hour at 20,000 events/s", one_hour()),
    ];
    for (name, config) in &scenarios {
        group.throughput(Throughput::Elements(events_of(config)));
        group.bench_function(*name, |b| b.iter(|| engine::run(black_box(config)).unwrap()));
    }
    // Dragging the crash-time slider: the failure-free run of the previous setting is reused.
    let previous = engine::run(&Config::default()).unwrap();
    let moved = Config { crash_at_ms: Some(36_197_000), ..Config::default() };
    group
        .throughput(Throughput::Elements(engine::run_reusing(&moved, Some(&previous)).unwrap().run.processed_events()));
    group.bench_function("crash at 10:03:17, reusing the failure-free run", |b| {
        b.iter(|| engine::run_reusing(black_box(&moved), Some(&previous)).unwrap())
    });
    // Building the report from a finished run (figures, sink comparisons, crash table).
    group.throughput(Throughput::Elements(1));
    group.bench_function("report of the default scenario", |b| b.iter(|| black_box(&previous).report()));
    // A page's first picture: the run up to where the pipeline view first stands, indexed.
    let first_screen = Config::default();
    group.bench_function("first screen of the default scenario", |b| {
        b.iter(|| checkpoint_lab::lesson::preview(black_box(&first_screen)).unwrap())
    });
    for (name, config) in [("floor: generate and count, default", Config::default()), ("floor: one hour", one_hour())] {
        let events = floor(&config);
        group.throughput(Throughput::Elements(events));
        group.bench_function(name, |b| b.iter(|| floor(black_box(&config))));
    }
    group.finish();

    // The ratio engine / floor in events per second, measured once more outside criterion.
    for (name, config) in scenarios.iter().filter(|(n, _)| !n.starts_with("crash")) {
        let rate = |f: &dyn Fn() -> u64| {
            let start = Instant::now();
            let mut events = 0;
            let mut runs = 0;
            while start.elapsed().as_secs_f64() < 1.0 || runs < 3 {
                events += f();
                runs += 1;
            }
            events as f64 / start.elapsed().as_secs_f64()
        };
        let engine_rate = rate(&|| events_of(config));
        let floor_rate = rate(&|| floor(config));
        println!(
            "{name}: engine {:.1} M events/s, floor {:.1} M events/s, engine/floor {:.2}",
            engine_rate / 1e6,
            floor_rate / 1e6,
            engine_rate / floor_rate
        );
    }
}

/// One slider change as the page makes it: the run (reusing what the previous run left) and its
/// report, computed the fast way or per event.
fn change(config: &Config, previous: &Outcome) -> Report {
    let runner = match previous.run.execution() {
        Execution::Fast => Runner::new(config, Some(previous)),
        Execution::PerEvent => Runner::per_event(config, Some(previous)),
    };
    runner.unwrap().finish().report()
}

/// The three sliders, each moved one step from the lesson's default scenario, and the interval
/// moved to its short end, where the readers pause every second.
fn slider_moves() -> [(&'static str, Config); 4] {
    [
        ("interval 30 s -> 40 s", Config { interval_ms: 40_000, ..Config::default() }),
        ("interval 30 s -> 1 s", Config { interval_ms: 1_000, ..Config::default() }),
        ("state size 2 GB -> 3 GB", Config { state_bytes: 3_000_000_000, ..Config::default() }),
        ("crash 10:00:45 -> 10:03:17", Config { crash_at_ms: Some(36_197_000), ..Config::default() }),
    ]
}

/// Per-event engine against the fast path, per slider: run and report of one change.
fn sliders(c: &mut Criterion) {
    let fast = engine::run(&Config::default()).unwrap();
    let per_event = Runner::per_event(&Config::default(), None).unwrap().finish();
    let mut group = c.benchmark_group("slider");
    group.sample_size(30);
    for (name, config) in slider_moves() {
        group.bench_function(format!("{name}, per event"), |b| b.iter(|| change(black_box(&config), &per_event)));
        group.bench_function(format!("{name}, fast"), |b| b.iter(|| change(black_box(&config), &fast)));
    }
    group.bench_function("data plane of the default scenario", |b| {
        b.iter(|| DataPlane::of(black_box(&Config::default())))
    });
    group.finish();

    // Side by side, measured back to back outside criterion, against the target.
    let time = |f: &dyn Fn()| {
        let start = Instant::now();
        let mut runs = 0;
        while start.elapsed().as_secs_f64() < 1.0 || runs < 5 {
            f();
            runs += 1;
        }
        start.elapsed().as_secs_f64() * 1000.0 / f64::from(runs)
    };
    // Allocations of one change, made after the previous one is dropped (as the page drops it).
    let allocations = |previous: &Outcome, config: &Config| {
        let before = ALLOCATIONS.load(Ordering::Relaxed);
        drop(black_box(change(config, previous)));
        ALLOCATIONS.load(Ordering::Relaxed) - before
    };
    for (name, config) in slider_moves() {
        let slow = time(&|| drop(black_box(change(&config, &per_event))));
        let quick = time(&|| drop(black_box(change(&config, &fast))));
        let ratio = slow / quick;
        let verdict = if ratio >= 20.0 { "✓" } else { "✗" };
        let (slow_allocs, quick_allocs) = (allocations(&per_event, &config), allocations(&fast, &config));
        println!(
            "{name}: per event {slow:.2} ms, fast {quick:.2} ms, {ratio:.1}x (target ≥ 20x {verdict}); \
             allocations per change {slow_allocs} / {quick_allocs}"
        );
    }
}

criterion_group!(engine_benches, benches, sliders);
criterion_main!(engine_benches);

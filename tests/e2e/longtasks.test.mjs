// Nothing blocks the page for long: simulate() with heavy settings runs in slices with the page
// free in between (PerformanceObserver "longtask" sees every main-thread task over 50 ms), keeps
// frames coming, reports its progress and can be cancelled. Two steps are not sliced yet: forking
// the failure-free twin at the crash (one copy of the simulated state) and the report at the end;
// each may take one task over 50 ms with 6 × 10^8 events, and the test prints them. mount()'s
// first run is sliced over frames too; its tasks over 50 ms are printed (see README).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { serve, launch, open, settled } from "./harness.mjs";

let server, base, browser;
before(async () => {
  ({ server, base } = await serve());
  browser = await launch();
});
after(async () => {
  await browser?.close();
  server?.close();
});

/// The heaviest scenario the tests run: a million events per second for ten minutes (6 × 10^8
/// events). Heavier valid scenarios run longer in the same slices.
const HEAVY = { rate_per_s: 1_000_000, horizon_ms: 600_000 };

test("simulate() with a million events per second runs in slices, reports progress and can be cancelled", async () => {
  const { page, errors } = await open(browser, `${base}/index.html`);
  await settled(page);
  const result = await page.evaluate(async (heavy) => {
    const engine = await import("/pkg/checkpoint-lab.js");
    const tasks = [];
    const observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) tasks.push({ at: e.startTime, ms: Math.round(e.duration) });
    });
    observer.observe({ type: "longtask" });
    let frames = 0;
    const frame = () => { frames++; if (!done) requestAnimationFrame(frame); };
    let done = false;
    requestAnimationFrame(frame);
    const progress = [];
    const started = performance.now();
    const report = await engine.simulate(heavy, { onProgress: (f) => progress.push(f) });
    const ended = performance.now();
    done = true;
    await new Promise((r) => setTimeout(r, 200));
    observer.disconnect();
    const controller = new AbortController();
    const running = engine.simulate(heavy, { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    let cancelled;
    try { await running; } catch (e) { cancelled = e.name; }
    return {
      total: Math.round(ended - started),
      frames,
      slices: progress.length,
      rising: progress.every((f, i) => i === 0 || f >= progress[i - 1]),
      events: report.config.rate_per_s * report.config.horizon_ms / 1000,
      during: tasks.filter((t) => t.at >= started && t.at < ended),
      cancelled,
    };
  }, HEAVY);
  const longest = Math.max(0, ...result.during.map((t) => t.ms));
  console.log(`# simulate(${JSON.stringify(HEAVY)}): ${result.total} ms in ${result.slices} slices, ${result.frames} frames; tasks over 50 ms: ${JSON.stringify(result.during.map((t) => t.ms))}`);
  assert.equal(result.events, 6e8);
  assert.ok(result.slices > 20, `${result.slices} slices`);
  assert.ok(result.rising, "progress only rises");
  assert.equal(result.cancelled, "AbortError");
  assert.ok(result.frames >= result.slices / 2, `${result.frames} frames while ${result.slices} slices ran`);
  // The fork at the crash and the report; a loaded machine may stretch one or two slices more.
  assert.ok(result.during.length <= 5, `${result.during.length} tasks over 50 ms: ${JSON.stringify(result.during)}`);
  assert.ok(longest < 1000, `the longest task while simulate() ran took ${longest} ms`);
  assert.deepEqual(errors, []);
});

test("mount() with heavy options runs its first run in slices over frames", async () => {
  const { page, errors } = await open(browser, `${base}/index.html`);
  await settled(page);
  const result = await page.evaluate(async (heavy) => {
    const { mount } = await import("/pkg/checkpoint-lab.js");
    const tasks = [];
    const observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) tasks.push({ at: e.startTime, ms: Math.round(e.duration) });
    });
    observer.observe({ type: "longtask" });
    let frames = 0, done = false;
    const frame = () => { frames++; if (!done) requestAnimationFrame(frame); };
    requestAnimationFrame(frame);
    const target = document.createElement("div");
    document.body.append(target);
    const started = performance.now();
    const handle = await mount(target, heavy);
    const ended = performance.now();
    done = true;
    await new Promise((r) => setTimeout(r, 200));
    observer.disconnect();
    const rate = handle.report().config.rate_per_s;
    handle.destroy();
    return { total: Math.round(ended - started), frames, during: tasks.filter((t) => t.at >= started && t.at < ended), rate };
  }, HEAVY);
  console.log(`# mount(${JSON.stringify(HEAVY)}): ${result.total} ms, ${result.frames} frames; tasks over 50 ms: ${JSON.stringify(result.during.map((t) => t.ms))}`);
  assert.equal(result.rate, HEAVY.rate_per_s, "the first run used the options");
  assert.ok(result.frames >= 10, `${result.frames} frames while the first run went on`);
  // Not yet within 50 ms: each frame's slice (24 ms of engine time) plus the page's own work, the
  // fork at the crash, and drawing five charts of 6 × 10^8 events; but never one long block.
  const longest = Math.max(0, ...result.during.map((t) => t.ms));
  assert.ok(longest < 1000, `the longest task while mount() ran took ${longest} ms`);
  assert.deepEqual(errors, []);
});

// Nothing blocks the page: simulate(), mount() and set() with the heaviest settings the
// validators allow run in slices with the page free in between, keep frames coming, report
// progress and can be cancelled. Every step is bounded: the data plane is counted a slice of
// events at a time, the fork at the crash copies its tables in parts, the report is built a pass
// over a table at a time, a heavy run's slices run in tasks of their own after the frame's
// rendering, and its charts are drawn a few per task. These tests check the work (how many
// slices, frames between them, one run a frame), never a duration: a busy machine makes every
// task longer. The main-thread tasks over 50 ms the same runs make are printed here (PerformanceObserver
// "longtask") and held to their target of none by scripts/bench-page.mjs on an idle machine.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { serve, launch, open, settled } from "./harness.mjs";

let server, base, browser;
before(async () => {
  // A page with nothing else on it, so the tasks measured there are the component's own.
  ({ server, base } = await serve({ "/blank.html": `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>blank</title></head><body data-ready="true"></body></html>` }));
  browser = await launch();
});
after(async () => {
  await browser?.close();
  server?.close();
});

/// Opens `url` and installs `window.watch()` there: from the call on, it counts frames and records
/// every main-thread task over 50 ms; `stop(from, to)` ends the watch (after the tasks in flight
/// are reported) and gives the frames and the tasks that began between `from` and `to`.
async function openWatched(url) {
  const opened = await open(browser, url);
  await settled(opened.page);
  await opened.page.evaluate(() => {
    window.watch = () => {
      const tasks = [];
      const observer = new PerformanceObserver((list) => {
        for (const e of list.getEntries()) tasks.push({ at: e.startTime, ms: Math.round(e.duration) });
      });
      observer.observe({ type: "longtask" });
      let frames = 0, done = false;
      const frame = () => { frames++; if (!done) requestAnimationFrame(frame); };
      requestAnimationFrame(frame);
      return {
        async stop(from, to) {
          done = true;
          await new Promise((r) => setTimeout(r, 200));
          observer.disconnect();
          return { frames, during: tasks.filter((t) => t.at >= from && t.at < to) };
        },
      };
    };
  });
  return opened;
}

/// The heaviest scenario the tests run: a million events per second for ten minutes (6 × 10^8
/// events). Heavier valid scenarios run longer in the same slices.
const HEAVY = { rate_per_s: 1_000_000, horizon_ms: 600_000 };

test("simulate() with a million events per second runs in slices, reports progress and can be cancelled", async () => {
  const { page, errors } = await openWatched(`${base}/index.html`);
  const result = await page.evaluate(async (heavy) => {
    const engine = await import("/pkg/checkpoint-lab.js");
    const watch = window.watch();
    const progress = [];
    const started = performance.now();
    const report = await engine.simulate(heavy, { onProgress: (f) => progress.push(f) });
    const ended = performance.now();
    const { frames, during } = await watch.stop(started, ended);
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
      during,
      cancelled,
    };
  }, HEAVY);
  const longest = Math.max(0, ...result.during.map((t) => t.ms));
  console.log(`# simulate(${JSON.stringify(HEAVY)}): ${result.total} ms in ${result.slices} slices, ${result.frames} frames; tasks over 50 ms: ${JSON.stringify(result.during.map((t) => t.ms))}`);
  assert.equal(result.events, 6e8);
  assert.ok(result.slices > 20, `${result.slices} slices`);
  assert.ok(result.rising, "progress only rises");
  assert.equal(result.cancelled, "AbortError");
  // Each slice leaves the page its turn: frames come between them, however long they take.
  assert.ok(result.frames >= result.slices / 2, `${result.frames} frames while ${result.slices} slices ran (tasks over 50 ms, longest ${longest} ms, are bench-page.mjs's to judge)`);
  assert.deepEqual(errors, []);
  // The heavy run's memory goes with its page, so it weighs on no later test.
  await page.close();
});

test("mount() with heavy options runs its first run in slices over frames", async () => {
  const { page, errors } = await openWatched(`${base}/index.html`);
  const result = await page.evaluate(async (heavy) => {
    const { mount } = await import("/pkg/checkpoint-lab.js");
    const watch = window.watch();
    const target = document.createElement("div");
    document.body.append(target);
    const started = performance.now();
    const handle = await mount(target, heavy);
    const ended = performance.now();
    const { frames, during } = await watch.stop(started, ended);
    const rate = handle.report().config.rate_per_s;
    handle.destroy();
    return { total: Math.round(ended - started), frames, during, rate };
  }, HEAVY);
  console.log(`# mount(${JSON.stringify(HEAVY)}): ${result.total} ms, ${result.frames} frames; tasks over 50 ms: ${JSON.stringify(result.during.map((t) => t.ms))}`);
  assert.equal(result.rate, HEAVY.rate_per_s, "the first run used the options");
  // Sliced: the heavy first run spans frames (a run in one task would span none).
  assert.ok(result.frames >= 10, `${result.frames} frames while the first run went on`);
  assert.deepEqual(errors, []);
  // The heavy run's memory goes with its page, so it weighs on no later test.
  await page.close();
});

/// The heaviest settings set() is tested with: every setting that adds work at its validator's
/// largest value (a million events per second, a capacity of ten million, 256 partitions, the
/// largest state, record size and bandwidths) over the lesson's ten minutes, with as many
/// products as the 512 MB budget then allows (1,000: the largest sink tables, about 600,000 rows
/// each, so the largest report). Longer horizons with fewer products pass the validators too (an
/// hour and a half with 100 products, a day with an emit period of a minute); their tables are no
/// larger and they run in the same slices, for longer (natively 45 s for the hour and a half), too
/// long for a test.
const HEAVIEST = {
  rate_per_s: 1_000_000, capacity_per_s: 10_000_000, partitions: 256, products: 1000,
  state_bytes: 10_000_000_000_000, record_bytes: 100_000_000, store_write_bytes_per_s: 1_000_000_000_000,
  store_read_bytes_per_s: 1_000_000_000_000, horizon_ms: 600_000,
};

test("set() checks its options at once, then runs them in slices over frames; a newer set() replaces the run", async () => {
  const { page, errors } = await openWatched(`${base}/blank.html`);
  const result = await page.evaluate(async (heavy) => {
    const { mount } = await import("/pkg/checkpoint-lab.js");
    const target = document.createElement("div");
    document.body.append(target);
    const handle = await mount(target, { interval_ms: 10_000 });
    const watch = window.watch();
    // A bad option throws at once, naming it, and changes nothing.
    let refused;
    try { handle.set({ ...heavy, interval_ms: 0 }); } catch (e) { refused = e.message; }
    const started = performance.now();
    const first = handle.set({ ...heavy, interval_ms: 5_000 });
    const returnedAfter = performance.now() - started;
    const busyAtOnce = handle.element.busy;
    const progressShown = !handle.element.shadowRoot.querySelector(".running").hidden;
    const stillOld = handle.report().config.interval_ms;
    // A newer set() before the first run is drawn replaces it: both promises resolve to the newer run.
    await new Promise((r) => requestAnimationFrame(r));
    const second = handle.set({ ...heavy, interval_ms: 20_000 });
    const [a, b] = await Promise.all([first, second]);
    const ended = performance.now();
    const { frames, during } = await watch.stop(started, ended);
    const drawn = { same: a === handle && b === handle, interval: handle.report().config.interval_ms, rate: handle.report().config.rate_per_s, products: handle.report().config.products, busy: handle.element.busy };
    // Then the charts' text alternatives are filled: the pipeline view's reads the world at every
    // key instant, so the heavy tables are counted first, in slices too.
    const pipeline = handle.element.shadowRoot.querySelector("canvas[data-chart=pipeline]");
    const labelBefore = pipeline.getAttribute("aria-label");
    const altWatch = window.watch();
    const altStarted = performance.now();
    while (pipeline.getAttribute("aria-label") === labelBefore && performance.now() - altStarted < 10_000) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const altEnded = performance.now();
    const alternative = { filled: pipeline.getAttribute("aria-label") !== labelBefore, ...(await altWatch.stop(altStarted, altEnded)) };
    // Usable afterwards: a light set() is drawn, the cursor moves, and chaining still works.
    const light = await handle.set({ rate_per_s: 2000, capacity_per_s: 4000, partitions: 12, products: 100, state_bytes: 2e9, record_bytes: 1000, store_write_bytes_per_s: 1e9, store_read_bytes_per_s: 2e8, interval_ms: 10_000 });
    const replay = light.summary().interval_replay_events;
    const cursor = handle.seek("10:00:58").world().at.at;
    // A cursor outside the new run is known once it has run: the Promise rejects naming it.
    let cursorRefused;
    try { await handle.set({ cursor: "23:00:00" }); } catch (e) { cursorRefused = e.message; }
    handle.set({ interval_ms: 30_000 }).destroy();
    return {
      refused, cursorRefused, returnedAfter: Math.round(returnedAfter), busyAtOnce, stillOld, drawn, replay, cursor, progressShown,
      total: Math.round(ended - started), frames, during, left: target.children.length, alternative,
    };
  }, HEAVIEST);
  const longest = Math.max(0, ...result.during.map((t) => t.ms));
  console.log(`# set(${JSON.stringify(HEAVIEST)}) twice: returned in ${result.returnedAfter} ms, drawn after ${result.total} ms, ${result.frames} frames; tasks over 50 ms: ${JSON.stringify(result.during.map((t) => t.ms))}; text alternatives filled ${Math.round(result.alternative.frames)} frames later, tasks over 50 ms: ${JSON.stringify(result.alternative.during.map((t) => t.ms))}`);
  assert.match(result.refused, /^interval_ms: must be between 100 ms and 1 h/);
  assert.equal(result.busyAtOnce, true, "set() returns with its run still going");
  assert.equal(result.progressShown, true, "and shows its progress");
  assert.equal(result.stillOld, 10_000, "until it is drawn, the report is the last good run's");
  assert.deepEqual(result.drawn, { same: true, interval: 20_000, rate: 1_000_000, products: 1000, busy: false });
  assert.equal(result.replay, 20_000);
  assert.equal(result.cursor, "10:00:58");
  assert.match(result.cursorRefused, /^cursor: /);
  assert.equal(result.left, 0);
  // Frames keep coming between the runs' slices (how many a second is bench-page.mjs's to judge).
  assert.ok(result.frames >= 10, `${result.frames} frames while the runs went on (longest task ${longest} ms)`);
  assert.equal(result.alternative.filled, true, "the pipeline view's text alternative is filled");
  assert.deepEqual(errors, []);
  // The heavy run's memory goes with its page, so it weighs on no later test.
  await page.close();
});

test("a change in a new frame runs at once however soon the frame comes: at most one run a frame, at any frame rate", async () => {
  // Frames as fast as the browser makes them, as on a 120 Hz display or faster: on an idle
  // machine well under 16 ms apart.
  const fast = await launch({ args: ["--disable-gpu-vsync", "--disable-frame-rate-limit"] });
  try {
    const { page, errors } = await open(fast, `${base}/index.html`);
    await settled(page);
    const result = await page.evaluate(async () => {
      // The first element with a crash slider (a figure builds only the controls it names), in view.
      const lab = [...document.querySelectorAll("checkpoint-lab")].find((e) => e.shadowRoot.querySelector("[data-control=crash-at]"));
      lab.scrollIntoView({ block: "center" });
      const view = lab.view;
      const input = view.shadow.querySelector("[data-control=crash-at]");
      const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
      await frame();
      let previous = await frame();
      const inputs = [];
      for (let i = 0; i < 30; i++) {
        // Each change in a frame of its own, from that frame's callbacks.
        const at = await frame();
        input.value = String(100 + i);
        const before = view.timings.length;
        // Whether the engine already ran in this frame (a chart out of view drawn once the
        // changes paused, a busy machine's late slice): then the change waits for the next frame.
        const engineHadRun = Boolean(view.engineRanThisFrame);
        input.dispatchEvent(new Event("input", { bubbles: true }));
        // Taken in the input's task (its run started there; on a busy machine it may take more
        // than one slice to finish), or put off to a frame (pending).
        const ranInItsTask = !view.pending && (view.busy || view.timings.length > before);
        let framesWaited = 0;
        while (view.timings.length === before && framesWaited < 5) {
          await frame();
          framesWaited++;
        }
        inputs.push({ gapMs: at - previous, ranInItsTask, engineHadRun, framesWaited });
        previous = at;
        while (view.busy) await frame();
      }
      // Two changes in one frame: the second waits for that frame's callbacks.
      await frame();
      input.value = "200";
      input.dispatchEvent(new Event("input", { bubbles: true }));
      input.value = "201";
      input.dispatchEvent(new Event("input", { bubbles: true }));
      const secondWaited = view.pending === true;
      while (view.busy || view.pending) await frame();
      return { inputs, secondWaited };
    });
    // The rule counts frames, not milliseconds, so it holds whatever the frames' spacing: on an
    // idle machine most of these frames come well under 16 ms apart, on a busy one later. A change
    // runs in its own task unless the engine already ran in that frame; then it runs in the next
    // frame (the gaps are in the message, never judged).
    const gaps = result.inputs.map((i) => i.gapMs.toFixed(1)).join(", ");
    const late = result.inputs.filter((i) => !i.ranInItsTask && !(i.engineHadRun && i.framesWaited <= 1));
    assert.deepEqual(late, [], `every change in a new frame ran in its own input task, or in the next frame after a run of that frame (frames ${gaps} ms apart)`);
    assert.ok(result.inputs.some((i) => i.ranInItsTask), "changes run in their own task");
    assert.equal(result.secondWaited, true, "a second change in the same frame waits for the frame");
    assert.deepEqual(errors, []);
  } finally {
    await fast.close();
  }
});

test("a change's event comes as soon as its run is done, before its charts are drawn; the charts in view are drawn once a frame, from the latest run", async () => {
  const { page, errors } = await open(browser, `${base}/index.html`);
  await settled(page);
  const result = await page.evaluate(async () => {
    const lab = document.querySelector("#lab");
    const view = lab.view;
    const input = view.shadow.querySelector("[data-control=interval]");
    input.scrollIntoView({ block: "center" });
    const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
    // The scroll's intersections observed, and what it drew drawn.
    await frame();
    await frame();
    while (lab.busy || view.outOfView.size) await frame();
    // Counts the engine's drawings of each chart on its own canvas, by frame.
    let frames = 0;
    const tick = () => { frames++; requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
    const inner = view.lab;
    const drawsInFrame = new Map();
    view.lab = new Proxy({}, {
      get(_, name) {
        const f = inner[name];
        if (name !== "draw") return f;
        return (chart, canvas, ...rest) => {
          const key = `${frames} ${chart}${canvas === view.charts[chart]?.canvas ? "" : " (copy)"}`;
          drawsInFrame.set(key, (drawsInFrame.get(key) ?? 0) + 1);
          return f(chart, canvas, ...rest);
        };
      },
    });
    const drawn = () => [...drawsInFrame.values()].reduce((a, b) => a + b, 0);
    // The charts in or near the viewport, which a change redraws at once (the others wait).
    const inView = view.shownCharts().filter((name) => view.nearView.get(view.charts[name]?.canvas) === true);
    // A chart's drawing is keyed by the run it shows, but for the trade-off chart's (its settings).
    const runOf = (name) => (name === "tradeoff" ? view.runId : Number(view.drawnKeys[name].split(" ")[0]));
    const heard = [];
    lab.addEventListener("checkpointlab-change", (event) => heard.push({ drawn: drawn(), runId: view.runId, replayed: event.detail.replayed_events }));
    await frame();
    const runId = view.runId;
    input.value = String(Number(input.value) + 1);
    input.dispatchEvent(new Event("input", { bubbles: true }));
    // Still in the input's own task.
    const inTask = { heard: heard.length, ran: view.runId === runId + 1, drawn: drawn(), keys: inView.map(runOf) };
    // A burst: a change at once and two more in the same frame (the later ones wait for the
    // frame's callbacks and are coalesced into one run).
    await frame();
    for (let i = 0; i < 3; i++) {
      input.value = String(Number(input.value) + (i % 2 ? -1 : 1));
      input.dispatchEvent(new Event("input", { bubbles: true }));
    }
    while (lab.busy) await frame();
    await frame();
    view.lab = inner;
    return { inView, runId, inTask, heard, perFrame: [...drawsInFrame], lastKeys: inView.map(runOf), lastRun: view.runId };
  });
  assert.ok(result.inView.length > 0, "the slider has charts in view");
  assert.equal(result.heard[0].drawn, 0, "the change event comes before any chart is drawn");
  assert.equal(result.heard[0].runId, result.runId + 1, "with the run done");
  assert.deepEqual(result.inTask, { heard: 1, ran: true, drawn: result.inView.length, keys: result.inView.map(() => result.runId + 1) },
    "the input's own task runs the change and draws each chart in view once, from its run");
  assert.ok(result.perFrame.every(([, n]) => n === 1), `no frame draws a chart twice (${JSON.stringify(result.perFrame)})`);
  assert.equal(result.heard.length, 3, "a change event for each run: the single change's, and the burst's two (its later changes coalesced into one run)");
  assert.deepEqual(result.lastKeys, result.inView.map(() => result.lastRun), "the last drawings are of the latest run");
  assert.deepEqual(errors, []);
  await page.close();
});

test("the next step of the slider the student moved is made a slice after each frame, and taken when the student gets there; so is the way back, and a focused slider's first move", async () => {
  const { page, errors } = await open(browser, `${base}/index.html`);
  await settled(page);
  const result = await page.evaluate(async () => {
    const lab = document.querySelector("#lab");
    const view = lab.view;
    const input = view.shadow.querySelector("[data-control=interval]");
    input.scrollIntoView({ block: "center" });
    const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
    while (lab.busy || view.outOfView.size) await frame();
    let frames = 0;
    const tick = () => { frames++; requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
    // Each run_ahead call: the frame it came in, and whether it shared the change's task.
    const inner = view.lab;
    let inChangeTask = false;
    const calls = [];
    view.lab = new Proxy({}, {
      get(_, name) {
        const f = inner[name];
        if (name !== "run_ahead") return f;
        return (...args) => {
          calls.push({ frame: frames, inChangeTask });
          return f(...args);
        };
      },
    });
    const steps = [];
    const step = async (delta, slider = input) => {
      const heard = new Promise((resolve) => lab.addEventListener("checkpointlab-change", (e) => resolve(e.detail.settings.interval_ms), { once: true }));
      slider.value = String(Number(slider.value) + delta);
      inChangeTask = true;
      slider.dispatchEvent(new Event("input", { bubbles: true }));
      inChangeTask = false;
      const interval = await heard;
      const taken = inner.kept().begun_ahead;
      // The runs planned from this change, made a slice a frame.
      let waited = 0;
      while (inner.kept().runs_made_ahead < inner.kept().runs_ahead && waited < 1200) {
        await frame();
        waited++;
      }
      const kept = inner.kept();
      steps.push({ interval, taken, planned: kept.runs_ahead, made: kept.runs_made_ahead });
    };
    await step(1);
    await step(1);
    await step(-1);
    await step(-1);
    // Another slider, focused before its first move: both its next steps are made ahead.
    const state = view.shadow.querySelector("[data-control=state-size]");
    state.focus();
    let waited = 0;
    while (!(inner.kept().runs_ahead === 2 && inner.kept().runs_made_ahead === 2) && waited++ < 1200) await frame();
    await step(1, state);
    view.lab = inner;
    const perFrame = new Map();
    for (const c of calls) perFrame.set(c.frame, (perFrame.get(c.frame) ?? 0) + 1);
    return { steps, calls: calls.length, inChangeTask: calls.filter((c) => c.inChangeTask).length, mostInAFrame: Math.max(...perFrame.values()) };
  });
  const [first, onward, back, backAgain, focused] = result.steps;
  assert.ok(first.interval > 30_000 && onward.interval > first.interval && back.interval === first.interval && backAgain.interval === 30_000, JSON.stringify(result.steps));
  assert.equal(focused.interval, 30_000, "the last move is the state size's");
  assert.deepEqual(result.steps.map((s) => s.taken), [false, true, true, true, true],
    "the first move is run on demand; the step onward was made ahead, the steps back are the runs left (or made ahead), and a focused slider's first move was made ahead");
  assert.ok(result.steps.every((s) => s.planned === 2 && s.made === 2), `after each change both ways are made: ${JSON.stringify(result.steps)}`);
  assert.equal(result.inChangeTask, 0, "nothing is made ahead in the change's own task");
  assert.equal(result.mostInAFrame, 1, "one slice a frame");
  assert.ok(result.calls >= 4, `made in slices (${result.calls} calls)`);
  assert.deepEqual(errors, []);
  await page.close();
});

test("while the student reads, the warm-up draws every chart in idle time on canvases never attached, never on the view's, and lets their pixels go", async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.addInitScript(() => {
    // Texts drawn on the playground's canvases (in the document, through its shadow root; the
    // figures above it draw their own, the first one playing) and, by canvas, on canvases never
    // attached.
    window.__texts = { attached: 0, detached: new Map() };
    const fillText = CanvasRenderingContext2D.prototype.fillText;
    CanvasRenderingContext2D.prototype.fillText = function (...args) {
      if (this.canvas.isConnected) {
        if (this.canvas.getRootNode().host?.id === "lab") window.__texts.attached++;
      }
      else window.__texts.detached.set(this.canvas, (window.__texts.detached.get(this.canvas) || 0) + 1);
      return fillText.apply(this, args);
    };
  });
  await page.goto(`${base}/index.html`);
  await page.waitForSelector("body[data-ready=true]");
  await settled(page);
  const attachedAtRest = await page.evaluate(() => window.__texts.attached);
  // Done: canvases never attached were drawn on, then emptied, and nothing drawn for 1.5 s.
  await page.waitForFunction(() => {
    const canvases = [...window.__texts.detached.keys()];
    const count = [...window.__texts.detached.values()].reduce((a, b) => a + b, 0);
    const w = window.__warm ??= { count: -1, since: performance.now() };
    if (count !== w.count) Object.assign(w, { count, since: performance.now() });
    return canvases.length > 0 && canvases.every((c) => c.width === 0 && c.height === 0) && performance.now() - w.since > 1500;
  }, null, { timeout: 20000, polling: 100 });
  const after = await page.evaluate(() => ({
    attached: window.__texts.attached,
    detached: [...window.__texts.detached.values()].reduce((a, b) => a + b, 0),
  }));
  // The view drew its six charts once by then; the warm-up draws them for three other runs.
  assert.ok(after.detached >= attachedAtRest, `the warm-up drew at least as many texts (${after.detached}) as the view's six charts (${attachedAtRest})`);
  assert.equal(after.attached, attachedAtRest, "nothing drawn on the view's canvases while the student reads");
  assert.deepEqual(errors, []);
  await page.close();
});

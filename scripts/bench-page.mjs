// Browser benchmark: in headless Chromium against the release build, 200 inputs on each of the
// three sliders (input event to the charts drawn, on a page tall enough to show every chart and on
// a 1280 × 900 one, where a chart out of view is drawn once the drag pauses; and the page's share
// of it: everything but the engine; and, 60 per slider, the main thread's busy time from the
// input to the frame shown, from a Chrome trace), the interval sweep again as the first on a fresh
// page under a trace (wall and CPU time, and what the other threads did meanwhile), each interval
// value's first visit in a fresh page (a student's first drag)
// and the browser's optimising compilations of the wasm meanwhile,
// navigation to the first picture (the page's first screen with the pipeline view of the default
// scenario, written into its HTML and painted before any script runs) and to the first chart the
// engine draws (five cold loads), the same on a shared link (settings in the URL, where the
// written picture does not fit and the first chart's module draws the first chart; on a slow
// network too, with and without that module, and when its scripts arrived and how long the
// browser held the longest one before sending it),
// against the lesson's text alone without any script (the floor), what the lesson page loads
// before its first picture and its first chart (gzipped), the wasm and JS bytes, and wasm memory after the default run and two seconds later;
// and a student's laptop (scripts/bench-memory.mjs): the lesson page's wasm memory once every
// figure is drawn, and a page of ten inline figures of two charts each, its wasm memory and its
// longest task while they load; and (scripts/bench-laptop.mjs) the three sliders' keydown to
// change event and Play's frames with the CPU throttled 1×, 4× and 6×.
// Prints one table, each figure against its target.
//   node scripts/bench-page.mjs            (after scripts/build-wasm.sh; INPUTS=50 for a quick look,
//                                           LOADS=15 for steadier first-picture figures)
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { serve, launch, ROOT } from "../tests/e2e/harness.mjs";
import { benchMemory, memoryRows } from "./bench-memory.mjs";
import { benchLaptop } from "./bench-laptop.mjs";

const INPUTS = Number(process.env.INPUTS || 200);
// Cold loads of the lesson page (and of its text alone) for the first-picture figures.
const LOADS = Number(process.env.LOADS || 5);
const quantile = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(q * s.length))]; };
const fmt = (ms) => `${ms.toFixed(1)} ms`;
const gzipped = (file) => zlib.gzipSync(fs.readFileSync(file), { level: 9 }).length;
/// A figure against its target: "≤ 8 ms ✓" or "≤ 8 ms ✗".
const against = (value, limit, unit) => `≤ ${limit} ${unit} ${value <= limit ? "✓" : "✗"}`;
// The targets: a slider's input to all charts redrawn, the page's own share of it (the engine
// takes the rest), the input to the frame shown within a 60 Hz frame, navigation to the first
// chart, and the bytes before it.
const TARGET = { inputP95: 8, pageP95: 3, frameP95: 16.7, firstChart: 150, firstBytesKB: 160 };

// The lesson page's text and styles alone, without the component or any script: how soon this
// browser paints anything of the page at all, which no first picture can beat.
const bare = fs.readFileSync(path.join(ROOT, "index.html"), "utf8")
  .replace(/<link rel="(?:modulepreload|preload)"[^>]*>\s*/g, "")
  .replace(/<script[^>]*><\/script>\s*/g, "")
  .replace(/<checkpoint-lab[\s\S]*?<\/checkpoint-lab>/g, "");
const { server, base } = await serve({ "/bare.html": bare });
// The slow-network loads go through a server that gzips, as a static host does: there the bytes
// on the wire decide.
const gzipServer = await serve({}, undefined, { gzip: true });
/// Before any script of the page runs (an init script): when the parser has put the whole
/// document in, first screen included (the document turns "interactive"), and the end of the
/// first frame after that. A listener, not a mutation observer, which would be called while the
/// page is parsed, the very time measured. And every main-thread task over 50 ms, and every script
/// that ran over 50 ms (a long animation frame's scripts): a long task without one is the
/// browser's own work, such as parsing and rendering the page's HTML.
function watchLoad() {
  window.__longTasks = [];
  window.__longScripts = [];
  new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push(e.duration); }).observe({ type: "longtask" });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) for (const script of e.scripts) if (script.duration > 50) window.__longScripts.push(script.duration);
  }).observe({ type: "long-animation-frame" });
  document.addEventListener("readystatechange", () => {
    if (document.readyState !== "interactive") return;
    window.__parsedAt = performance.now();
    requestAnimationFrame(() => setTimeout(() => { window.__parsedFrameAt = performance.now(); }));
  });
}
/// In a page once it is ready: since navigation, when the first picture was painted (the first
/// contentful paint if the document, the page's first screen with its picture included, was parsed
/// and the screen's styles in by then, else the end of the first frame after both; without a
/// written first screen, the Element Timing entry of a picture in the slot, or the first chart's
/// time if the page shows none), the first chart drawn and all of them, every file requested
/// before the first chart and before the picture.
async function firstLoad() {
  const nav = performance.getEntriesByType("navigation")[0];
  const lab = document.querySelector("checkpoint-lab:not(.figure)");
  const view = lab.view;
  const fcp = performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? Infinity;
  // A written first screen ends with this comment, which stays among the element's children.
  const written = [...lab.childNodes].some((n) => n.nodeType === Node.COMMENT_NODE && n.data.trim() === "</first screen>");
  // Its styles are in the HTML (the element keeps them as its own), or come from a stylesheet.
  const sheet = performance.getEntriesByType("resource").find((e) => e.name.endsWith("/checkpoint-lab.css"));
  const inline = Boolean(lab.shadowRoot.querySelector("style[data-styles=checkpoint-lab]"));
  const parsed = window.__parsedAt, styled = inline ? parsed : Math.max(parsed, sheet?.responseEnd ?? Infinity);
  // A page without a written first screen: its picture's Element Timing entry, if it has one.
  const pictureEntry = () => new Promise((resolve) => {
    new PerformanceObserver((list) => resolve(Math.min(...list.getEntries().map((e) => e.renderTime))))
      .observe({ type: "element", buffered: true });
    setTimeout(() => resolve(view.firstChartAt), 200);
  });
  // (Styles from a stylesheet that arrived after the frame that followed the parse: their
  // arrival, a lower bound. The lesson page's are in its HTML.)
  const painted = !written ? await pictureEntry() : styled <= fcp ? fcp : Math.max(window.__parsedFrameAt, styled);
  const resources = performance.getEntriesByType("resource");
  const scripts = resources.filter((e) => new URL(e.name).pathname.endsWith(".js"));
  const before = (at) => [nav, ...resources].filter((e) => e.startTime < at).map((e) => new URL(e.name).pathname);
  return {
    picture: painted - nav.startTime, first: view.firstChartAt - nav.startTime, all: view.firstDrawnAt - nav.startTime,
    by: view.firstChartBy ?? "lab", longest: Math.max(0, ...(window.__longTasks ?? [])),
    longestScript: Math.max(0, ...(window.__longScripts ?? [])),
    files: before(view.firstChartAt), pictureFiles: before(painted),
    // The page's scripts (its own, the element's and the glues): the last one's arrival, and the
    // longest any of them waited in the browser between being asked for and being sent.
    scriptsIn: Math.max(0, ...scripts.map((e) => e.responseEnd)) - nav.startTime,
    scriptQueued: Math.max(0, ...scripts.map((e) => e.requestStart - e.startTime)),
  };
}
/// Opens `url` in a fresh page and returns firstLoad() once the page has marked itself ready.
/// Nothing is evaluated in the page while it loads: the driver's own evaluate installs its helper
/// script there (13-17 ms of the page's main thread, traced), a DevTools protocol evaluate still
/// costs the page a task (8 ms, traced), and a selector wait polls. The load is awaited from the
/// driver's side, until the network has been idle for 500 ms, and only then read.
async function coldLoad(fresh, url) {
  await fresh.goto(url, { waitUntil: "networkidle" });
  const cdp = await fresh.context().newCDPSession(fresh);
  const evaluate = async (expression) => {
    const { result, exceptionDetails } = await cdp.send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true });
    if (exceptionDetails) throw new Error(exceptionDetails.exception?.description ?? exceptionDetails.text);
    return result.value;
  };
  await evaluate(`new Promise((resolve) => {
    const ready = () => document.body?.dataset.ready === "true";
    if (ready()) return resolve(true);
    new MutationObserver((_, observer) => {
      if (ready()) { observer.disconnect(); resolve(true); }
    }).observe(document, { attributes: true, subtree: true, attributeFilter: ["data-ready"] });
  })`);
  const load = await evaluate(`(${firstLoad})()`);
  await cdp.detach();
  return load;
}
const browser = await launch();
// Navigation, LOADS times, each in a fresh context (nothing cached): to the first picture, to the
// first chart drawn and to all five charts drawn.
const loads = [];
let firstFiles = [], pictureFiles = [];
for (let i = 0; i < LOADS; i++) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
  await context.addInitScript(watchLoad);
  const fresh = await context.newPage();
  const load = await coldLoad(fresh, `${base}/index.html`);
  loads.push([load.first, load.all, load.picture, load.longest, load.longestScript]);
  firstFiles = load.files;
  pictureFiles = load.pictureFiles;
  await context.close();
}
// A link a teacher shared (other settings in the URL): the page's written first screen shows the
// default scenario, so the element drops its picture and the engine draws the first one.
const SHARED_LINK = "#interval=5s&crash-at=10:01:10";
const linked = [];
let linkedFiles = [], firstChartMemory;
for (let i = 0; i < LOADS; i++) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
  await context.addInitScript(watchLoad);
  const fresh = await context.newPage();
  const load = await coldLoad(fresh, `${base}/index.html${SHARED_LINK}`);
  linked.push([load.first, load.all, load.by, load.longest, load.longestScript, load.scriptsIn, load.scriptQueued]);
  linkedFiles = load.files;
  if (i === 0) {
    // What the first chart's module keeps: its instance's memory, once it has drawn.
    firstChartMemory = await fresh.evaluate(async () => (await (await import("/pkg/checkpoint_lab_first.js")).default()).memory.buffer.byteLength);
  }
  await context.close();
}
// A student's first drag: in three fresh pages, each left idle for two seconds after its first
// picture (as a student reads it), the interval slider moved once over every value, each value
// visited for the first time in that page (the runs below repeat values many times over).
// The first of the three pages is traced: the browser's optimising compilations of the wasm
// (V8 runs a function as baseline code first and compiles it optimised, on another thread, once
// it has run a while), over the load and the two seconds after it, then over the sweep. On two
// cores such a compilation shares them with the page's thread and its raster.
const firstVisits = [];
const tierUp = { load: [], sweep: [] };
for (let i = 0; i < 3; i++) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
  const fresh = await context.newPage();
  if (i === 0) await browser.startTracing(fresh, { categories: ["v8.wasm", "blink.user_timing"] });
  await fresh.goto(`${base}/index.html`);
  await fresh.waitForSelector("body[data-ready=true]");
  await fresh.waitForTimeout(2000);
  await fresh.evaluate(() => performance.mark("sweep"));
  firstVisits.push(...await fresh.evaluate(async () => {
    const view = document.querySelector("checkpoint-lab:not(.figure)").view;
    const input = view.shadow.querySelector("[data-control=interval]");
    const out = [];
    for (let v = 0; v <= Number(input.max); v++) {
      if (String(v) === input.value) continue;
      input.value = String(v);
      const before = view.timings.length;
      input.dispatchEvent(new Event("input", { bubbles: true }));
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      while (view.busy) await new Promise((r) => requestAnimationFrame(r));
      if (view.timings.length > before) out.push(view.timings[view.timings.length - 1]);
    }
    return out;
  }));
  if (i === 0) {
    const events = JSON.parse((await browser.stopTracing()).toString()).traceEvents;
    const sweepAt = events.find((e) => e.name === "sweep")?.ts ?? Infinity;
    for (const e of events) {
      if (e.name === "wasm.TopTierCompilation" && e.dur !== undefined) tierUp[e.ts < sweepAt ? "load" : "sweep"].push(e.dur / 1000);
    }
  }
  await context.close();
}
// The lesson's text alone, LOADS cold loads: navigation to its first contentful paint.
const floor = [];
for (let i = 0; i < LOADS; i++) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
  const fresh = await context.newPage();
  await fresh.goto(`${base}/bare.html`);
  floor.push(await fresh.evaluate(() => new Promise((resolve) => {
    new PerformanceObserver((list) => resolve(list.getEntries()[0].startTime)).observe({ type: "paint", buffered: true });
  })));
  await context.close();
}
// On a slow network (Lighthouse's mobile profile: 150 ms round trips, 1.6 Mbit/s down, files
// gzipped), three
// cold loads: navigation to the first picture and to the first chart the engine draws. Bytes,
// not the main thread, decide there: the picture needs the page's JavaScript, the chart the
// engine's wasm too.
const slow = [];
for (let i = 0; i < 3; i++) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
  const fresh = await context.newPage();
  await context.addInitScript(watchLoad);
  const cdp = await context.newCDPSession(fresh);
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 150, downloadThroughput: 1.6e6 / 8, uploadThroughput: 0.75e6 / 8 });
  await fresh.goto(`${gzipServer.base}/index.html`, { waitUntil: "commit" });
  await fresh.waitForFunction(() => document.body?.dataset.ready === "true", null, { polling: 500, timeout: 60_000 });
  const load = await fresh.evaluate(firstLoad);
  slow.push([load.picture, load.first]);
  await context.close();
}
// The same slow network on the shared link, three cold loads each: with the first chart's module,
// and with it held back (its fetch fails, so the lab's module draws the first chart, as before
// the first chart had a module of its own).
const slowLinked = { module: [], lab: [] };
for (let i = 0; i < 3; i++) {
  for (const kind of ["module", "lab"]) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
    const fresh = await context.newPage();
    if (kind === "lab") await fresh.route("**/checkpoint_lab_first.js", (route) => route.abort());
    const cdp = await context.newCDPSession(fresh);
    await cdp.send("Network.enable");
    await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 150, downloadThroughput: 1.6e6 / 8, uploadThroughput: 0.75e6 / 8 });
    await fresh.goto(`${gzipServer.base}/index.html${SHARED_LINK}`, { waitUntil: "commit" });
    await fresh.waitForFunction(() => document.body?.dataset.ready === "true", null, { polling: 500, timeout: 60_000 });
    const load = await fresh.evaluate(firstLoad);
    slowLinked[kind].push([load.first, load.all]);
    await context.close();
  }
}
// What those files weigh gzipped (the way a static host serves them).
const weigh = (files) => [...new Set(files)].map((p) => gzipped(path.join(ROOT, p === "/" ? "index.html" : p.slice(1))));
const firstBytes = weigh(firstFiles);
const firstBytesKB = firstBytes.reduce((a, b) => a + b, 0) / 1024;
const linkedBytes = weigh(linkedFiles);
const linkedBytesKB = linkedBytes.reduce((a, b) => a + b, 0) / 1024;
// Before the first picture: what it needs (the page, its styles, the element's JavaScript and
// the picture), and the engine's module, which the page starts fetching at once beside them.
// The picture is in the page's HTML, with the component's styles and the script that checks the
// link: it needs the page and its own stylesheet, none of the modules the page starts fetching
// too, nor the tab's icon.
const pictureNeeds = weigh(pictureFiles.filter((p) => !p.endsWith(".wasm") && !p.endsWith("/favicon.svg") && (!p.endsWith(".js") || p.endsWith("/first-screen.js"))));
const pictureNeedsKB = pictureNeeds.reduce((a, b) => a + b, 0) / 1024;
const pictureAllKB = weigh(pictureFiles).reduce((a, b) => a + b, 0) / 1024;
const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
const errors = [];
page.on("pageerror", (e) => errors.push(String(e)));
await page.goto(`${base}/index.html`);
await page.waitForSelector("body[data-ready=true]");
// The page's element module is the one its script bundles (www/page.js exports it).
const memory = await page.evaluate(async () => (await import("/pkg/lesson-page.js")).element.wasmMemoryBytes());
// And once the student has read for two seconds: the warm-up run at the shortest interval is in.
await page.waitForTimeout(2000);
const memoryRead = await page.evaluate(async () => (await import("/pkg/lesson-page.js")).element.wasmMemoryBytes());
// The engine in wasm on the default scenario, warm: a run sliced as the page slices it (report
// apart), and a whole run with its report; medians of 15.
const wasmRun = await page.evaluate(async () => {
  // The engine's glue as a page imports it: an instance of its own of the module the page's
  // element runs.
  const glue = await import("/pkg/checkpoint_lab.js");
  await glue.default({ module_or_path: "/pkg/checkpoint_lab_bg.wasm" });
  const { Lab } = glue;
  const lab = new Lab();
  const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (let i = 0; i < 3; i++) lab.run({});
  const engine = [], whole = [];
  for (let i = 0; i < 15; i++) {
    lab.begin({ seed: 42 + (i % 2) }); // another seed each time: nothing is reused
    const started = performance.now();
    let p;
    do { p = lab.advance(0); } while (!p.done && p.progress < 1);
    engine.push(performance.now() - started);
    while (!lab.advance(1000).done);
    const t = performance.now();
    lab.run({ seed: 44 + (i % 2) });
    whole.push(performance.now() - t);
  }
  lab.free();
  return { engine: median(engine), whole: median(whole) };
});

await page.evaluate(() => {
  window.__longTasks = [];
  new PerformanceObserver((list) => window.__longTasks.push(...list.getEntries().map((e) => e.duration))).observe({ type: "longtask" });
});
/// 200 inputs on `slider` in `on` (a page), sweeping its range back and forth as a drag does:
/// each input's time to the charts drawn, the engine's share and the page's own.
const sweep = (on, slider) => on.evaluate(async ({ slider, inputs }) => {
    const view = document.querySelector("checkpoint-lab:not(.figure)").view;
    const input = view.shadow.querySelector(`[data-control=${slider}]`);
    const timings = view.timings;
    const max = Number(input.max);
    const out = [], engine = [], page = [], waiting = [];
    // The page's own work in a change: showing the finished run (figures, charts, tables), and
    // the engine's time in its slices; the rest of the change is waiting for frames.
    let engineMs = 0, pageMs = 0;
    const lab = view.lab;
    view.lab = new Proxy(lab, {
      get: (target, name) => (name === "advance" ? (...args) => {
        const t = performance.now();
        try { return target.advance(...args); } finally { engineMs += performance.now() - t; }
      } : target[name]),
    });
    // Showing the run (finishRun) and drawing its charts, which a change's run leaves to the next
    // frame (drawCharts): each counted once, drawCharts inside finishRun with it.
    let depth = 0;
    for (const name of ["finishRun", "drawCharts"]) {
      const own = view[name];
      view[name] = function (...args) {
        const t = performance.now();
        depth++;
        try { return own.apply(this, args); } finally { if (--depth === 0) pageMs += performance.now() - t; }
      };
    }
    // Sweep back and forth across the slider's whole range, as a drag does: a slider with more
    // steps than half the inputs moves several steps per input.
    const stride = Math.max(1, Math.round((2 * max) / inputs));
    for (let i = 0; i < inputs; i++) {
      const phase = (i * stride) % (2 * max);
      input.value = String(phase <= max ? phase : 2 * max - phase);
      const before = timings.length;
      engineMs = 0;
      pageMs = 0;
      const t = performance.now();
      input.dispatchEvent(new Event("input", { bubbles: true }));
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      while (view.busy) await new Promise((r) => requestAnimationFrame(r));
      if (timings.length > before) {
        const total = timings[timings.length - 1];
        out.push(total);
        engine.push(engineMs);
        page.push(pageMs);
        waiting.push(Math.max(0, total - engineMs - pageMs));
      }
    }
    view.lab = lab;
    delete view.finishRun;
    delete view.drawCharts;
    return { out, engine, page, waiting };
  }, { slider, inputs: INPUTS });

// The same inputs on a page as tall as the component, where every chart is in view, so every
// input redraws all six charts; then on the 1280 × 900 page, where a chart out of view waits
// until the drag pauses (www/element.js, OUT_OF_VIEW_MARGIN).
const tall = await browser.newPage({ viewport: { width: 1280, height: 3600 }, deviceScaleFactor: 1 });
await tall.goto(`${base}/index.html`);
await tall.waitForSelector("body[data-ready=true]");
const rows = [];
for (const [on, what] of [[tall, "every chart drawn (all in view)"], [page, "the charts in view drawn (1280 × 900)"]]) for (const slider of ["interval", "state-size", "crash-at"]) {
  const times = await sweep(on, slider);
  const p95 = quantile(times.out, 0.95), pageP95 = quantile(times.page, 0.95);
  rows.push([`${slider} input → ${what} (${times.out.length})`, fmt(quantile(times.out, 0.5)), fmt(p95), fmt(Math.max(...times.out)), `p95 ${against(p95, TARGET.inputP95, "ms")}`]);
  rows.push([`… the engine (its slices)`, fmt(quantile(times.engine, 0.5)), fmt(quantile(times.engine, 0.95)), fmt(Math.max(...times.engine)), ""]);
  rows.push([`… the page's own work (figures, charts, tables)`, fmt(quantile(times.page, 0.5)), fmt(pageP95), fmt(Math.max(...times.page)), `p95 ${against(pageP95, TARGET.pageP95, "ms")}`]);
  rows.push([`… waiting for frames between slices, and input handling`, fmt(quantile(times.waiting, 0.5)), fmt(quantile(times.waiting, 0.95)), fmt(Math.max(...times.waiting)), ""]);
}
/// A traced sweep's input tasks (each change done in its input's own task is one "input" event
/// dispatch): their wall and main-thread CPU times, and the span from the first to the last, in ms.
function inputTasks(events) {
  const inputs = events.filter((e) => e.ph === "X" && e.name === "EventDispatch" && e.args?.data?.type === "input" && e.tdur !== undefined);
  const spanMs = (Math.max(...inputs.map((e) => e.ts + e.dur)) - Math.min(...inputs.map((e) => e.ts))) / 1000;
  return { wall: inputs.map((e) => e.dur / 1000), cpu: inputs.map((e) => e.tdur / 1000), spanMs };
}

// The same sweeps on the tall page under a Chrome trace, where a change done in the input's own
// task (every change of the default scenario) is one "input" event dispatch: its wall time, and
// the time the main thread actually ran in it. On a machine whose cores are shared the two part:
// the difference is time the thread waited for a core (Chromium's raster and compositor threads,
// other processes), which bounds what the page's code can take off the wall-time figures above.
for (const slider of ["interval", "state-size", "crash-at"]) {
  await browser.startTracing(tall, { categories: ["devtools.timeline"] });
  await sweep(tall, slider);
  const { wall, cpu } = inputTasks(JSON.parse((await browser.stopTracing()).toString()).traceEvents);
  rows.push([`${slider} input → every chart drawn, traced: the input's task, wall time (${wall.length})`, fmt(quantile(wall, 0.5)), fmt(quantile(wall, 0.95)), fmt(Math.max(...wall)), ""]);
  rows.push([`… the main thread's own CPU time in it`, fmt(quantile(cpu, 0.5)), fmt(quantile(cpu, 0.95)), fmt(Math.max(...cpu)), `p95 ${against(quantile(cpu, 0.95), TARGET.inputP95, "ms")}`]);
}
await tall.close();

// The interval sweep above is the first on a page just ready, and the one whose tail is longest:
// the same sweep, first on a fresh tall page, under a trace that also records the other threads.
// Its input tasks' wall and CPU time, and meanwhile the browser's top-tier compilations of the
// wasm's functions that have grown hot (V8's dynamic tiering, in background threads) and the
// compositor thread's CPU time (software compositing in headless Chromium): what shares the
// machine's cores with the main thread while the student's first drag is drawn.
{
  const fresh = await browser.newPage({ viewport: { width: 1280, height: 3600 }, deviceScaleFactor: 1 });
  await fresh.goto(`${base}/index.html`);
  await fresh.waitForSelector("body[data-ready=true]");
  await browser.startTracing(fresh, { categories: ["devtools.timeline", "toplevel", "v8.wasm", "__metadata"] });
  await sweep(fresh, "interval");
  const events = JSON.parse((await browser.stopTracing()).toString()).traceEvents;
  await fresh.close();
  const { wall, cpu, spanMs } = inputTasks(events);
  const threads = new Map(events.filter((e) => e.ph === "M" && e.name === "thread_name").map((e) => [`${e.pid}:${e.tid}`, e.args.name]));
  const threadCpuMs = (name) => events
    .filter((e) => e.ph === "X" && (e.name === "ThreadControllerImpl::RunTask" || e.name === "ThreadPool_RunTask") && threads.get(`${e.pid}:${e.tid}`) === name)
    .reduce((sum, e) => sum + (e.tdur ?? e.dur) / 1000, 0);
  const topTier = events.filter((e) => e.ph === "X" && e.name === "wasm.TopTierCompilation");
  const topTierMs = topTier.reduce((sum, e) => sum + e.dur / 1000, 0);
  rows.push([`interval input → every chart drawn, the first sweep on a fresh page, traced: the input's task, wall time (${wall.length})`, fmt(quantile(wall, 0.5)), fmt(quantile(wall, 0.95)), fmt(Math.max(...wall)), `p95 ${against(quantile(wall, 0.95), TARGET.inputP95, "ms")}`]);
  rows.push([`… the main thread's own CPU time in it`, fmt(quantile(cpu, 0.5)), fmt(quantile(cpu, 0.95)), fmt(Math.max(...cpu)), `p95 ${against(quantile(cpu, 0.95), TARGET.inputP95, "ms")}`]);
  rows.push([`… meanwhile, over the sweep's ${(spanMs / 1000).toFixed(1)} s: the wasm's top-tier compilations (${topTier.length} functions) / the compositor thread's CPU time / the thread pool's`, `${fmt(topTierMs)} / ${fmt(threadCpuMs("VizCompositorThread"))} / ${fmt(threadCpuMs("ThreadPoolForegroundWorker"))}`, "", "", ""]);
}

// What the student sees: from the input to the frame that shows it, how long the page's main
// thread is busy (a Chrome trace: every main-thread task's share of that span, the frame's
// style, layout, paint, commit and canvas flush included), on a 1280 × 900 page at a pixel
// ratio of 2. Inputs 120 ms apart, so each frame belongs to one input. Against a 60 Hz frame.
const FRAME_INPUTS = Math.min(INPUTS, 60);
const framed = await browser.newPage({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 2 });
await framed.goto(`${base}/index.html`);
await framed.waitForSelector("body[data-ready=true]");
for (const slider of ["interval", "state-size", "crash-at"]) {
  await browser.startTracing(framed, { categories: ["devtools.timeline", "blink.user_timing", "toplevel"] });
  await framed.evaluate(async ({ slider, inputs }) => {
    const view = document.querySelector("checkpoint-lab:not(.figure)").view;
    const input = view.shadow.querySelector(`[data-control=${slider}]`);
    const max = Number(input.max);
    const stride = Math.max(1, Math.round((2 * max) / inputs));
    const frame = () => new Promise((r) => requestAnimationFrame(r));
    // After the rendering of the frame whose animation callbacks are running.
    const afterRendering = () => new Promise((r) => { const c = new MessageChannel(); c.port1.onmessage = () => r(); c.port2.postMessage(null); });
    for (let i = 0; i < inputs; i++) {
      const phase = (i * stride) % (2 * max);
      input.value = String(phase <= max ? phase : 2 * max - phase);
      performance.mark(`input ${i}`);
      input.dispatchEvent(new Event("input", { bubbles: true }));
      do await frame(); while (view.busy);
      await afterRendering();
      performance.mark(`shown ${i}`);
      await new Promise((r) => setTimeout(r, 120));
    }
  }, { slider, inputs: FRAME_INPUTS });
  const trace = JSON.parse((await browser.stopTracing()).toString());
  const events = trace.traceEvents ?? trace;
  const marks = new Map(events.filter((e) => e.cat?.includes("blink.user_timing") && /^(input|shown) \d+$/.test(e.name)).map((e) => [e.name, e]));
  const first = marks.get("input 0");
  // The page's main thread: where its marks are; its outermost tasks.
  const tasks = events.filter((e) => e.ph === "X" && e.pid === first.pid && e.tid === first.tid && e.dur).sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const outer = [];
  for (const t of tasks) if (!outer.length || t.ts >= outer[outer.length - 1].ts + outer[outer.length - 1].dur) outer.push(t);
  const busy = [];
  for (let i = 0; i < FRAME_INPUTS; i++) {
    const from = marks.get(`input ${i}`)?.ts, to = marks.get(`shown ${i}`)?.ts;
    if (from === undefined || to === undefined) continue;
    let us = 0;
    for (const t of outer) us += Math.max(0, Math.min(to, t.ts + t.dur) - Math.max(from, t.ts));
    busy.push(us / 1000);
  }
  const p95 = quantile(busy, 0.95);
  rows.push([`${slider} input → the frame shown, main-thread busy (1280 × 900, pixel ratio 2) (${busy.length})`, fmt(quantile(busy, 0.5)), fmt(p95), fmt(Math.max(...busy)), `p95 ${against(p95, TARGET.frameP95, "ms")}`]);
}
await framed.close();
// The heaviest settings a student reaches from the page: 20,000 events/s, then drags.
const heavy = await page.evaluate(async () => {
  const view = document.querySelector("checkpoint-lab:not(.figure)").view;
  const set = (name, value) => {
    const input = view.shadow.querySelector(`[data-control=${name}]`);
    input.value = String(value === "max" ? input.max : value);
    input.dispatchEvent(new Event("input", { bubbles: true }));
  };
  const idle = async () => { do { await new Promise((r) => requestAnimationFrame(r)); } while (view.busy); };
  set("rate", "max"); await idle();
  set("capacity", "max"); await idle();
  window.__longTasks.length = 0;
  for (let i = 0; i < 40; i++) { set("crash-at", 10 + i * 7); await new Promise((r) => requestAnimationFrame(r)); }
  await idle();
  return { count: window.__longTasks.length, longest: Math.max(0, ...window.__longTasks) };
});
// The heaviest runs tests/e2e/longtasks.test.mjs drives (which checks their slices and frames,
// not their time): simulate() of 6 × 10^8 events, mount() with it, and set() with the heaviest
// settings the validators allow, each watched for main-thread tasks over 50 ms.
const heavyPage = await browser.newPage({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 2 });
await heavyPage.goto(`${base}/bare.html`);
const heavyRuns = await heavyPage.evaluate(async () => {
  const engine = await import("/pkg/checkpoint-lab.js");
  const heavy = { rate_per_s: 1_000_000, horizon_ms: 600_000 };
  const heaviest = {
    rate_per_s: 1_000_000, capacity_per_s: 10_000_000, partitions: 256, products: 1000, state_bytes: 10_000_000_000_000,
    record_bytes: 100_000_000, store_write_bytes_per_s: 1_000_000_000_000, store_read_bytes_per_s: 1_000_000_000_000, horizon_ms: 600_000,
  };
  const watch = async (work) => {
    const tasks = [];
    const observer = new PerformanceObserver((list) => tasks.push(...list.getEntries().map((e) => e.duration)));
    observer.observe({ type: "longtask" });
    let frames = 0, done = false;
    const frame = () => { frames++; if (!done) requestAnimationFrame(frame); };
    requestAnimationFrame(frame);
    const started = performance.now();
    await work();
    const ms = performance.now() - started;
    done = true;
    await new Promise((r) => setTimeout(r, 200));
    observer.disconnect();
    return { ms, frames, tasks };
  };
  const out = {};
  out.simulate = await watch(() => engine.simulate(heavy));
  const target = document.body.appendChild(document.createElement("div"));
  let handle;
  out.mount = await watch(async () => { handle = await engine.mount(target, heavy); });
  await handle.set({ rate_per_s: 2000, horizon_ms: 180_000 });
  out.set = await watch(() => handle.set({ ...heaviest, interval_ms: 20_000 }));
  handle.destroy();
  return out;
});
await heavyPage.close();
// A student's laptop: the lesson page's wasm memory once every figure is drawn, and ten inline
// figures of two charts each (scripts/bench-memory.mjs).
const laptop = await benchMemory(base, browser);
// And its CPU: the three sliders and Play with the CPU throttled 1×, 4× and 6× (scripts/bench-laptop.mjs).
const throttled = await benchLaptop(base, browser);
await browser.close();
server.close();
gzipServer.server.close();

const size = (file) => {
  const raw = fs.readFileSync(path.join(ROOT, file));
  return [raw.length, zlib.gzipSync(raw, { level: 9 }).length];
};
const [wasmRaw, wasmGz] = size("pkg/checkpoint_lab_bg.wasm");
const exercises = ["pkg/checkpoint_lab_exercises_bg.wasm", "pkg/checkpoint_lab_exercises.js", "pkg/exercise-panel.js"]
  .filter((file) => fs.existsSync(path.join(ROOT, file))).map(size);
// The lesson page's script (www/page.js with the element, its styles, its glue and the settings
// bundled in).
const js = ["pkg/lesson-page.js"].map(size);
const jsRaw = js.reduce((a, b) => a + b[0], 0), jsGz = js.reduce((a, b) => a + b[1], 0);

console.log("| measure | p50 | p95 | max | target |");
console.log("|---|---|---|---|---|");
for (const r of rows) console.log(`| ${r.join(" | ")} |`);
const firstVisitP95 = quantile(firstVisits, 0.95);
console.log(`| interval input → the charts in view drawn, each value's first visit in a fresh page (1280 × 900) (${firstVisits.length}) | ${fmt(quantile(firstVisits, 0.5))} | ${fmt(firstVisitP95)} | ${fmt(Math.max(...firstVisits))} | p95 ${against(firstVisitP95, TARGET.inputP95, "ms")} |`);
const compiled = (ms) => `${fmt(ms.reduce((a, b) => a + b, 0))}, the longest ${fmt(Math.max(0, ...ms))} (${ms.length})`;
console.log(`| the browser's optimising compilations of the wasm, traced in the first of those pages: over the load and the next 2 s / over the sweep | ${compiled(tierUp.load)} / ${compiled(tierUp.sweep)} | | | |`);
console.log(`| wasm: default scenario, engine only (native: cargo bench "default scenario") | ${fmt(wasmRun.engine)} | | | |`);
console.log(`| wasm: default scenario, engine and report | ${fmt(wasmRun.whole)} | | | |`);
const firstChart = loads.map((l) => l[0]), allCharts = loads.map((l) => l[1]), picture = loads.map((l) => l[2]);
const firstP50 = quantile(firstChart, 0.5), pictureP50 = quantile(picture, 0.5);
console.log(`| navigation → first picture: the page's first screen with the pipeline view of the default scenario, in its HTML, painted before any script runs (${loads.length} cold loads) | ${fmt(pictureP50)} | | ${fmt(Math.max(...picture))} | p50 ${against(pictureP50, TARGET.firstChart, "ms")} |`);
console.log(`| … the floor: the lesson's text alone, no script, navigation → first paint (${floor.length} cold loads) | ${fmt(quantile(floor, 0.5))} | | ${fmt(Math.max(...floor))} | |`);
console.log(`| navigation → first chart drawn by the engine | ${fmt(firstP50)} | | ${fmt(Math.max(...firstChart))} | p50 ${against(firstP50, TARGET.firstChart, "ms")} |`);
console.log(`| on a slow network (150 ms round trips, 1.6 Mbit/s, gzipped), navigation → first picture / first chart drawn by the engine (${slow.length} cold loads) | ${fmt(quantile(slow.map((l) => l[0]), 0.5))} / ${fmt(quantile(slow.map((l) => l[1]), 0.5))} | | | |`);
console.log(`| navigation → all charts drawn | ${fmt(quantile(allCharts, 0.5))} | | ${fmt(Math.max(...allCharts))} | |`);
const linkedFirstP50 = quantile(linked.map((l) => l[0]), 0.5);
console.log(`| a shared link (index.html${SHARED_LINK}, no picture in the HTML fits), navigation → first chart drawn by the engine (by ${[...new Set(linked.map((l) => l[2]))].join(", ")}) / all charts (${linked.length} cold loads) | ${fmt(linkedFirstP50)} / ${fmt(quantile(linked.map((l) => l[1]), 0.5))} | | ${fmt(Math.max(...linked.map((l) => l[0])))} | p50 ${against(linkedFirstP50, TARGET.firstChart, "ms")} |`);
console.log(`| … its scripts (the page's, the element's, the glues) all arrived / the longest one waited between asked for and sent, p50 | ${fmt(quantile(linked.map((l) => l[5]), 0.5))} / ${fmt(quantile(linked.map((l) => l[6]), 0.5))} | | | |`);
const slowFmt = (loads) => `${fmt(quantile(loads.map((l) => l[0]), 0.5))} / ${fmt(quantile(loads.map((l) => l[1]), 0.5))}`;
console.log(`| … on the slow network, first chart / all charts: with the first chart's module / without it (${slowLinked.module.length} cold loads each) | ${slowFmt(slowLinked.module)} / ${slowFmt(slowLinked.lab)} | | | |`);
console.log(`| … loaded before that first chart, gzipped (${linkedBytes.length} files) | ${linkedBytesKB.toFixed(0)} KB | | | ${against(linkedBytesKB, TARGET.firstBytesKB, "KB")} |`);
console.log(`| what the first picture needs, gzipped (${pictureNeeds.length} files: the page with its first screen, the page's styles) | ${pictureNeedsKB.toFixed(0)} KB | | | ${against(pictureNeedsKB, TARGET.firstBytesKB, "KB")} |`);
console.log(`| … requested before it is painted, counting the modules and the engine's wasm, which the page starts fetching at once | ${pictureAllKB.toFixed(0)} KB | | | |`);
console.log(`| loaded before the first chart drawn by the engine, gzipped (${firstBytes.length} files) | ${firstBytesKB.toFixed(0)} KB | | | ${against(firstBytesKB, TARGET.firstBytesKB, "KB")} |`);
console.log(`| main-thread tasks over 50 ms, 20,000 events/s, 40 crash-time inputs | ${heavy.count} (longest ${fmt(heavy.longest)}) | | | none ${heavy.count === 0 ? "✓" : "✗"} |`);
for (const [what, run] of Object.entries(heavyRuns)) {
  const over = run.tasks.length;
  console.log(`| main-thread tasks over 50 ms, ${what}() of the heaviest run longtasks.test.mjs drives (${fmt(run.ms)}, ${run.frames} frames, ${(run.frames / (run.ms / 1000)).toFixed(0)} a second) | ${over} (longest ${fmt(Math.max(0, ...run.tasks))}) | | | none ${over === 0 ? "✓" : "✗"}; ≥ 10 frames a second ${run.frames / (run.ms / 1000) >= 10 ? "✓" : "✗"} |`);
}
// Over each cold load, until every chart is drawn and the network idle: any task, and a script's.
for (const [what, list] of [["the lesson page", loads], ["a shared link", linked]]) {
  const over = list.filter((l) => l[3] > 50).length, scripts = list.filter((l) => l[4] > 50).length;
  console.log(`| main-thread tasks over 50 ms, ${what}'s cold loads: loads with one / with a script over 50 ms (${list.length}) | ${over} (longest ${fmt(Math.max(...list.map((l) => l[3])))}) / ${scripts} (longest ${fmt(Math.max(...list.map((l) => l[4])))}) | | | none ${over === 0 ? "✓" : "✗"} / ${scripts === 0 ? "✓" : "✗"} |`);
}
console.log(`| wasm bytes, the lab's module (raw / gzip) | ${wasmRaw.toLocaleString("en-US")} | ${wasmGz.toLocaleString("en-US")} | | |`);
console.log(`| the first chart's module, wasm (raw / gzip), and its instance's memory once drawn | ${size("pkg/checkpoint_lab_first_bg.wasm")[0].toLocaleString("en-US")} | ${size("pkg/checkpoint_lab_first_bg.wasm")[1].toLocaleString("en-US")} | ${(firstChartMemory / 1e6).toFixed(1)} MB | |`);
console.log(`| the exercises' module, wasm, glue and panel, loaded only where exercises are shown (raw / gzip) | ${exercises.reduce((a, b) => a + b[0], 0).toLocaleString("en-US")} | ${exercises.reduce((a, b) => a + b[1], 0).toLocaleString("en-US")} | | |`);
console.log(`| JS and CSS bytes: the lesson page's script, the element and its styles bundled in (raw / gzip) | ${jsRaw.toLocaleString("en-US")} | ${jsGz.toLocaleString("en-US")} | | |`);
console.log(`| wasm + JS + CSS gzipped | ${((wasmGz + jsGz) / 1024).toFixed(0)} KB | | | |`);
console.log(`| wasm memory after the default run | ${(memory / 1e6).toFixed(1)} MB | | | |`);
console.log(`| … two seconds later, the warm-up run at the shortest interval made and freed | ${(memoryRead / 1e6).toFixed(1)} MB | | | |`);
// The memory rows, in this table's columns: the figure in the first, the target in the last.
for (const row of memoryRows(laptop)) console.log(row.replace(/ \|([^|]*)\|$/, " | | |$1|"));
for (const r of throttled) console.log(`| ${r.join(" | ")} |`);
if (errors.length) { console.error(errors); process.exit(1); }

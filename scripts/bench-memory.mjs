// Browser benchmark of a student's laptop: the wasm memory a page of figures takes, and the
// main thread's longest task while they load. In headless Chromium against the release build:
// the lesson page (index.html: the playing figure, the sections' figures and the full lab), and a
// page of ten inline figures of two charts each (tests/e2e/fixture/ten-figures.html), each loaded
// cold in a fresh context: every figure drawn and the page left idle for two seconds (text
// alternatives filled, the warm-up run made and freed), then the module's linear memory, which
// all figures of a page share (it only grows, so it is the most they ever held at once).
// Prints one table, each figure against its target. scripts/bench-page.mjs runs it too.
//   node scripts/bench-memory.mjs          (after scripts/build-wasm.sh; LOADS=3 by default)
import { serve, launch } from "../tests/e2e/harness.mjs";

const LOADS = Number(process.env.MEMORY_LOADS || 3);
const MiB = 1024 * 1024;
/// The targets (issue "A student's laptop"): ten two-chart figures in at most 60 MiB of wasm
/// memory, and no main-thread task over 50 ms while they load.
export const MEMORY_TARGET = { tenFiguresMiB: 60, longTaskMs: 50 };

/// Before any script of the page runs: every main-thread task over 50 ms.
function watchTasks() {
  window.__longTasks = [];
  new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push(e.duration); }).observe({ type: "longtask" });
}

/// The wasm memory of the element's module as the page loaded it (the lesson page bundles it into
/// its own script).
async function memoryOfPage() {
  const bundled = document.querySelector("script[src*='lesson-page']");
  const element = bundled ? (await import("/pkg/lesson-page.js")).element : await import("/pkg/checkpoint-lab.js");
  return element.wasmMemoryBytes();
}

/// One cold load of `url`: { memory (bytes), longest (ms, 0 if no task over 50 ms), figures,
/// worlds }, once every element on the page has drawn and two seconds have passed.
async function measure(browser, url) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
  await context.addInitScript(watchTasks);
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(url);
  await page.waitForFunction(() => {
    const labs = [...document.querySelectorAll("checkpoint-lab")];
    return labs.length > 0 && labs.every((lab) => lab.dataset.ready === "true" && !lab.busy);
  }, null, { timeout: 120_000 });
  const memoryAtReady = await page.evaluate(memoryOfPage);
  await page.waitForTimeout(2000);
  // The element's module as the page loaded it (the lesson page bundles it into its own script).
  const memory = await page.evaluate(memoryOfPage);
  const result = await page.evaluate(() => ({ figures: document.querySelectorAll("checkpoint-lab").length, longTasks: window.__longTasks }));
  await context.close();
  if (errors.length) throw new Error(`${url}: ${errors.join("; ")}`);
  return { memory, memoryAtReady, figures: result.figures, longest: Math.max(0, ...result.longTasks) };
}

export async function benchMemory(base, browser) {
  const pages = { lesson: `${base}/index.html`, ten: `${base}/tests/e2e/fixture/ten-figures.html` };
  const out = {};
  for (const [name, url] of Object.entries(pages)) {
    const loads = [];
    for (let i = 0; i < LOADS; i++) loads.push(await measure(browser, url));
    out[name] = {
      figures: loads[0].figures,
      memory: Math.max(...loads.map((l) => l.memory)),
      memoryAtReady: Math.max(...loads.map((l) => l.memoryAtReady)),
      longest: loads.map((l) => l.longest),
    };
  }
  return out;
}

/// The table's rows for `result` (benchMemory's).
export function memoryRows({ lesson, ten }) {
  const mib = (bytes) => `${(bytes / MiB).toFixed(1)} MiB`;
  const tasks = (list) => {
    const over = list.filter((t) => t > 0);
    return `${over.length} of ${list.length} loads${over.length ? ` (longest ${Math.max(...over).toFixed(0)} ms)` : ""}`;
  };
  const none = (list) => (list.every((t) => t === 0) ? "none ✓" : "none ✗");
  return [
    `| the lesson page's wasm memory, every figure drawn and two seconds later (${lesson.figures} elements) | ${mib(lesson.memory)} | |`,
    `| ten inline figures of two charts each: wasm memory in all | ${mib(ten.memory)} | ≤ ${MEMORY_TARGET.tenFiguresMiB} MiB ${ten.memory <= MEMORY_TARGET.tenFiguresMiB * MiB ? "✓" : "✗"} |`,
    `| … cold loads with a main-thread task over 50 ms while they load | ${tasks(ten.longest)} | ${none(ten.longest)} |`,
    `| the lesson page: cold loads with a task over 50 ms while its figures load | ${tasks(lesson.longest)} | |`,
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { server, base } = await serve();
  const browser = await launch();
  try {
    const result = await benchMemory(base, browser);
    console.log("| measure | figure | target |\n|---|---|---|");
    for (const row of memoryRows(result)) console.log(row);
    if (process.env.VERBOSE) console.log(JSON.stringify(result));
  } finally {
    await browser.close();
    server.close();
  }
}

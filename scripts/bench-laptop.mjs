// Browser benchmark of a student's laptop: the three sliders and Play with the CPU slowed down.
// In headless Chromium against the release build, on the lesson page's playground at 1280 × 900,
// with DevTools' CPU throttling at 1× (this machine), 4× (a low-end Chromebook or an old laptop)
// and 6×: for each slider, arrow-key steps (half up, half back down, turning at its ends, each
// after the previous change has arrived) measured from the keydown's own timestamp to the element's
// `checkpointlab-change` event, and to the frame after it; the main-thread tasks over 50 ms
// meanwhile; and Play on the pipeline view for three seconds, the spacing of its frames.
// Prints one table, each figure against its target. scripts/bench-page.mjs runs it too.
//   node scripts/bench-laptop.mjs          (after scripts/build-wasm.sh; STEPS=50 by default)
import { serve, launch } from "../tests/e2e/harness.mjs";

const STEPS = Number(process.env.STEPS || 50);
/// The targets (issue "A student's laptop"): at 4×, keydown → change within one 60 Hz frame for
/// each slider and Play's frames at most a 60 Hz frame apart (p95); unthrottled, keydown → change
/// within 4 ms (p95); at 6×, no task over 50 ms while the student drags.
export const LAPTOP_TARGET = { throttledMs: 16.7, unthrottledMs: 4, playFrameMs: 16.7, longTaskMs: 50 };
const SLIDERS = ["interval", "state-size", "crash-at"];
const quantile = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN; };
const fmt = (ms) => `${ms.toFixed(1)} ms`;

/// Before any script of the page runs: every main-thread task over 50 ms, from when a mark says.
function watchTasks() {
  window.__longTasks = [];
  new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push(e.duration); }).observe({ type: "longtask" });
}

/// One slider's steps in `page` (already throttled): { change, frame, longTasks } in ms.
async function steps(page, slider) {
  await page.evaluate((slider) => {
    const lab = document.querySelector("#lab");
    const input = lab.view.shadow.querySelector(`[data-control=${slider}]`);
    input.scrollIntoView({ block: "center" });
    input.focus();
    window.__steps = { keydownAt: undefined, change: [], frame: [] };
    window.__longTasks.length = 0;
    if (window.__listening) return;
    window.__listening = true;
    lab.addEventListener("keydown", (e) => { window.__steps.keydownAt = e.timeStamp; }, { capture: true });
    lab.addEventListener("checkpointlab-change", () => {
      const s = window.__steps, from = s.keydownAt;
      if (from === undefined) return;
      s.keydownAt = undefined;
      s.change.push(performance.now() - from);
      requestAnimationFrame(() => setTimeout(() => s.frame.push(performance.now() - from)));
    });
  }, slider);
  // Up for half the steps and back down, turning at the slider's ends, so every step changes it.
  let up = true;
  for (let i = 0; i < STEPS; i++) {
    const { before, at, last } = await page.evaluate((slider) => {
      const input = document.querySelector("#lab").view.shadow.querySelector(`[data-control=${slider}]`);
      return { before: window.__steps.change.length, at: Number(input.value), last: Number(input.max) };
    }, slider);
    if (i === Math.floor(STEPS / 2)) up = false;
    if (at >= last) up = false;
    if (at <= 0) up = true;
    await page.keyboard.press(up ? "ArrowRight" : "ArrowLeft");
    // The change (a step past the slider's end changes nothing: then the next key).
    await page.waitForFunction((n) => window.__steps.change.length > n && window.__steps.frame.length > n, before, { timeout: 2000 }).catch(() => {});
    await page.waitForTimeout(40);
  }
  return page.evaluate(() => ({ change: window.__steps.change, frame: window.__steps.frame, longTasks: [...window.__longTasks] }));
}

/// Play on the playground's pipeline view for three seconds: the gaps between its frames, in ms.
async function play(page) {
  return page.evaluate(async () => {
    const lab = document.querySelector("#lab");
    const button = lab.view.shadow.querySelector("[data-action=play]");
    lab.view.shadow.querySelector("canvas[data-chart=pipeline]").scrollIntoView({ block: "center" });
    // As a student presses Play after a look: the charts brought into view by the scroll drawn,
    // and the drag's out-of-view redraws done.
    do await new Promise((r) => setTimeout(r, 1000)); while (lab.busy);
    window.__longTasks.length = 0;
    button.click();
    const gaps = [];
    let last;
    await new Promise((resolve) => {
      const started = performance.now();
      const frame = (t) => {
        if (last !== undefined) gaps.push(t - last);
        last = t;
        if (t - started < 3000) requestAnimationFrame(frame); else resolve();
      };
      requestAnimationFrame(frame);
    });
    if (button.getAttribute("aria-pressed") === "true") button.click();
    return { gaps, longTasks: [...window.__longTasks] };
  });
}

/// Every figure at each throttle rate: rows of [measure, p50, p95, max, target].
export async function benchLaptop(base, browser) {
  const rows = [];
  for (const rate of [1, 4, 6]) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
    await context.addInitScript(watchTasks);
    const page = await context.newPage();
    await page.goto(`${base}/index.html`);
    await page.waitForFunction(() => document.querySelector("#lab")?.dataset.ready === "true" && !document.querySelector("#lab").busy, null, { timeout: 120_000 });
    await page.waitForTimeout(2000);
    const cdp = await context.newCDPSession(page);
    await cdp.send("Emulation.setCPUThrottlingRate", { rate });
    const longest = [];
    for (const slider of SLIDERS) {
      const { change, frame, longTasks } = await steps(page, slider);
      const target = rate === 1 ? LAPTOP_TARGET.unthrottledMs : LAPTOP_TARGET.throttledMs;
      const p95 = quantile(change, 0.95);
      const verdict = rate === 6 ? "" : `p95 ≤ ${target} ms ${p95 <= target ? "✓" : "✗"}`;
      rows.push([`${rate}× CPU: ${slider} keydown → change event (${change.length})`, fmt(quantile(change, 0.5)), fmt(p95), fmt(Math.max(...change)), verdict]);
      rows.push([`… keydown → the frame after it`, fmt(quantile(frame, 0.5)), fmt(quantile(frame, 0.95)), fmt(Math.max(...frame)), ""]);
      longest.push(...longTasks);
    }
    const over = longest.length;
    rows.push([`${rate}× CPU: main-thread tasks over 50 ms while stepping the three sliders`, `${over}`, "", over ? fmt(Math.max(...longest)) : "", rate === 6 ? `none ${over === 0 ? "✓" : "✗"}` : ""]);
    if (rate !== 6) {
      const { gaps, longTasks } = await play(page);
      const p95 = quantile(gaps, 0.95);
      // A gap is counted in frames of a 60 Hz display: the clock puts a kept frame's gap at
      // 16.6–16.8 ms, a dropped frame's at 33 ms, so a gap under one and a half frames is one.
      const kept = p95 < 1.5 * LAPTOP_TARGET.playFrameMs;
      const verdict = rate === 4 ? `p95 one frame (${LAPTOP_TARGET.playFrameMs} ms, none dropped) ${kept ? "✓" : "✗"}` : "";
      rows.push([`${rate}× CPU: Play on the pipeline view, time between frames (${gaps.length} frames in 3 s; tasks over 50 ms: ${longTasks.length})`, fmt(quantile(gaps, 0.5)), fmt(p95), fmt(Math.max(...gaps)), verdict]);
    }
    await context.close();
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { server, base } = await serve();
  const browser = await launch();
  try {
    const rows = await benchLaptop(base, browser);
    console.log("| measure | p50 | p95 | max | target |");
    console.log("|---|---|---|---|---|");
    for (const r of rows) console.log(`| ${r.join(" | ")} |`);
  } finally {
    await browser.close();
    server.close();
  }
}

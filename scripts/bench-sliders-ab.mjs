// A/B benchmark of the three sliders against another build of the lesson page, in one run: both
// pages open side by side in one headless Chromium (1280 × 3600, every chart in view), and the
// sweeps alternate A, B, A, B, … so that whatever else the machine does falls on both alike. Each
// input's time from the input event to every chart drawn (the element's own timings), and to the
// end of the frame that shows them, p50 and p95.
//   node scripts/bench-sliders-ab.mjs DIR    DIR: a checkout with its own release build (pkg/)
//   ROUNDS=4 INPUTS=100                      sweeps per slider and build, inputs per sweep
import path from "node:path";
import { serve, launch, ROOT } from "../tests/e2e/harness.mjs";

const other = path.resolve(process.argv[2] ?? "");
if (!process.argv[2]) {
  console.error("usage: node scripts/bench-sliders-ab.mjs DIR (a checkout with its own pkg/)");
  process.exit(2);
}
const ROUNDS = Number(process.env.ROUNDS || 4);
const INPUTS = Number(process.env.INPUTS || 100);
const quantile = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(q * s.length))]; };

const builds = [["A", other], ["B", ROOT]];
const browser = await launch();
const pages = {};
const servers = [];
for (const [name, root] of builds) {
  const { server, base } = await serve({}, root);
  servers.push(server);
  const page = await browser.newPage({ viewport: { width: 1280, height: 3600 }, deviceScaleFactor: 1 });
  await page.goto(`${base}/index.html`);
  await page.waitForSelector("body[data-ready=true]");
  // After the first picture the page warms up while the student reads: let it finish.
  await page.waitForTimeout(3000);
  pages[name] = page;
}

/// INPUTS inputs on `slider`, back and forth across its range as a drag does; each input's time
/// from the input event to every chart drawn (the element's own timing: where the charts wait for
/// the next frame, this counts the wait), and to the end of the frame that shows them (the first
/// frame after the charts are drawn, to a task after its callbacks): what the student waits for,
/// whichever task the drawing is done in.
const sweep = (page, slider) => page.evaluate(async ({ slider, inputs }) => {
  // The playground: the lesson's figures above it show only the controls they name.
  const view = document.querySelector("#lab").view;
  view.shadow.querySelector(`[data-control=${slider}]`).scrollIntoView({ block: "center" });
  const input = view.shadow.querySelector(`[data-control=${slider}]`);
  const max = Number(input.max);
  const stride = Math.max(1, Math.round((2 * max) / inputs));
  const out = [], shown = [];
  const frameEnd = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r)));
  for (let i = 0; i < inputs; i++) {
    const phase = (i * stride) % (2 * max);
    input.value = String(phase <= max ? phase : 2 * max - phase);
    const before = view.timings.length;
    // Each input in a task after a frame's rendering, as a key press or a pointer event between
    // frames comes (one dispatched from a frame's callbacks would find that frame's callbacks
    // already running, and wait a frame for any it asks for).
    await frameEnd();
    const t = performance.now();
    input.dispatchEvent(new Event("input", { bubbles: true }));
    await frameEnd();
    while (view.busy) await frameEnd();
    const end = performance.now() - t;
    if (view.timings.length > before) {
      out.push(view.timings[view.timings.length - 1]);
      shown.push(end);
    }
  }
  return { out, shown };
}, { slider, inputs: INPUTS });

const times = {};
for (let round = 0; round < ROUNDS; round++) {
  for (const slider of ["interval", "state-size", "crash-at"]) {
    // Alternate which build goes first, so neither always follows the other.
    const order = round % 2 ? ["B", "A"] : ["A", "B"];
    for (const name of order) {
      const { out, shown } = await sweep(pages[name], slider);
      (times[`${slider} ${name} drawn`] ??= []).push(...out);
      (times[`${slider} ${name} shown`] ??= []).push(...shown);
    }
  }
}
console.log(`A: ${other}\nB: ${ROOT}\n${ROUNDS} rounds of ${INPUTS} inputs per slider and build, alternated\n`);
console.log("slider       build  inputs   to every chart drawn: p50 / p95 ms   to the frame showing them: p50 / p95 ms");
for (const slider of ["interval", "state-size", "crash-at"]) for (const name of ["A", "B"]) {
  const drawn = times[`${slider} ${name} drawn`], shown = times[`${slider} ${name} shown`];
  const q = (xs) => `${quantile(xs, 0.5).toFixed(1).padStart(6)} / ${quantile(xs, 0.95).toFixed(1).padStart(6)}`;
  console.log(`${slider.padEnd(12)} ${name.padEnd(6)} ${String(drawn.length).padStart(6)}   ${q(drawn).padEnd(35)}${q(shown)}`);
}
await browser.close();
for (const server of servers) server.close();

// Browser benchmark: what one chart costs to draw, in headless Chromium against the release build
// at 1280 px wide and a pixel ratio of 2, on the lesson's default scenario. Each chart is drawn 40
// times at alternating cursors (as a scrub or a drag redraws it), each drawing followed by a
// one-pixel read that makes the canvas raster what it was given, so the figure is the drawing's
// script and its raster together; beside it, copying a whole canvas of that size onto the chart
// (the least any redraw from a kept bitmap would cost). Prints p50 / p90 per chart.
//   node scripts/bench-charts.mjs   (after scripts/build-wasm.sh)
import { serve, launch, open, settled } from "../tests/e2e/harness.mjs";

const DRAWS = Number(process.env.DRAWS || 40);
const { server, base } = await serve();
const browser = await launch();
const { page } = await open(browser, `${base}/index.html`, { height: 3600 });
await settled(page);
const rows = await page.evaluate((draws) => {
  const view = document.querySelector("checkpoint-lab").view;
  const quantiles = (xs) => { const s = [...xs].sort((a, b) => a - b); return [s[Math.floor(s.length / 2)], s[Math.floor(s.length * 0.9)]]; };
  const out = [];
  for (const name of ["pipeline", "replay", "latency", "sink-window", "tradeoff", "checkpoints"]) {
    const { canvas } = view.charts[name];
    const context = canvas.getContext("2d", { desynchronized: true });
    const drawn = [];
    for (let i = 0; i < draws; i++) {
      const t = performance.now();
      view.lab.draw(name, canvas, false, 2, i % 2 ? 100 : 101);
      context.getImageData(0, 0, 1, 1);
      drawn.push(performance.now() - t);
    }
    const copy = document.createElement("canvas");
    copy.width = canvas.width;
    copy.height = canvas.height;
    copy.getContext("2d").drawImage(canvas, 0, 0);
    const copied = [];
    for (let i = 0; i < draws; i++) {
      const t = performance.now();
      context.drawImage(copy, 0, 0);
      context.getImageData(0, 0, 1, 1);
      copied.push(performance.now() - t);
    }
    out.push({ name, size: `${canvas.width} × ${canvas.height}`, drawn: quantiles(drawn), copied: quantiles(copied) });
  }
  return out;
}, DRAWS);
console.log("| chart | backing pixels | drawn and rastered, p50 / p90 | a whole-canvas copy, p50 / p90 |");
console.log("|---|---|---|---|");
const ms = ([p50, p90]) => `${p50.toFixed(1)} / ${p90.toFixed(1)} ms`;
for (const r of rows) console.log(`| ${r.name} | ${r.size} | ${ms(r.drawn)} | ${ms(r.copied)} |`);
await browser.close();
server.close();

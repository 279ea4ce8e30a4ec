// The engine's share of a slider change in WebAssembly, outside any page: the release build's
// lab module run in Node (V8, the engine Chromium uses), one step of each slider back and forth
// from the lesson's default scenario, each change's run and report as the page computes them
// (Lab.begin, then Lab.advance to the end), nothing drawn. The page benchmark measures the same
// inside the page, where drawing and the browser share the task; this one varies less.
// Prints p50 / p95 / min per slider.
//   scripts/build-wasm.sh && node scripts/bench-engine-wasm.mjs     (CHANGES=300 by default)
//   node scripts/bench-engine-wasm.mjs path/to/pkg                   (another build, side by side)
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const pkg = path.resolve(process.argv[2] || path.join(ROOT, "pkg"));
const CHANGES = Number(process.env.CHANGES || 300);

const glue = await import(path.join(pkg, "checkpoint_lab.js"));
glue.initSync({ module: fs.readFileSync(path.join(pkg, "checkpoint_lab_bg.wasm")) });
const lab = new glue.Lab();
const base = glue.defaults();
const run = (config) => {
  lab.begin(config);
  let result;
  do result = lab.advance(1e9, undefined); while (!result.done);
};
const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

run(base);
console.log(`| change (wasm in Node ${process.versions.node}, ${CHANGES} changes) | p50 | p95 | min |`);
console.log("|---|---|---|---|");
// The interval at the slider's short end too, where the job checkpoints every second or two.
for (const [name, key, value, from] of [
  ["interval 30 s ↔ 40 s", "interval_ms", 40_000],
  ["interval 1 s ↔ 2 s", "interval_ms", 2_000, 1_000],
  ["state size 2 GB ↔ 3 GB", "state_bytes", 3e9],
  ["crash 10:00:45 ↔ 10:03:17", "crash_at_ms", 36_197_000],
]) {
  const times = [];
  for (let i = 0; i < CHANGES; i++) {
    const config = { ...base, [key]: i % 2 === 0 ? value : from ?? base[key] };
    const start = performance.now();
    run(config);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const ms = (x) => `${x.toFixed(2)} ms`;
  console.log(`| ${name} | ${ms(quantile(times, 0.5))} | ${ms(quantile(times, 0.95))} | ${ms(times[0])} |`);
  run(base);
}

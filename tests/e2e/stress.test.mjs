// Stress: thousands of random student actions with random delays (slider moves, resizes, theme
// switches, Play, pin and unpin, exercise checks, attribute changes) on one page, with no page
// error; and 100 mounts and destroys plus 100 refused mounts keep wasm memory flat.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { serve, launch, open, settled } from "./harness.mjs";

const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,">
<title>Stress</title><script type="module">
  import "/pkg/checkpoint-lab.js";
  const lab = document.querySelector("checkpoint-lab");
  await customElements.whenDefined("checkpoint-lab");
  await lab.whenReady();
  document.body.dataset.ready = "true";
</script></head><body><div id="box" style="width: 900px"><checkpoint-lab exercises="replay-15s-after-barrier largest-interval-10k"></checkpoint-lab></div></body></html>`;

let server, base, browser;
before(async () => {
  ({ server, base } = await serve({ "/stress.html": page }));
  browser = await launch();
});
after(async () => {
  await browser?.close();
  server?.close();
});

test("thousands of random actions with random delays raise no page error", async () => {
  const { page: p, errors } = await open(browser, `${base}/stress.html`);
  const STEPS = 3000;
  const SEED = 20261130;
  const done = await p.evaluate(async ([steps, seed]) => {
    // A small deterministic generator, so a failure can be replayed from its seed.
    let s = seed >>> 0;
    const random = () => { s = (s * 1664525 + 1013904223) >>> 0; return s / 2 ** 32; };
    const pick = (list) => list[Math.floor(random() * list.length)];
    const lab = document.querySelector("checkpoint-lab");
    const root = lab.shadowRoot;
    const box = document.getElementById("box");
    const sliders = () => [...root.querySelectorAll("input[type=range]")];
    const actions = [
      () => { const input = pick(sliders()); input.value = String(Math.floor(random() * (Number(input.max) + 1))); input.dispatchEvent(new Event("input")); },
      () => { box.style.width = `${320 + Math.floor(random() * 900)}px`; },
      () => lab.setAttribute("theme", pick(["light", "dark", "auto"])),
      () => root.querySelector("[data-action=play]").click(),
      () => root.querySelector("[data-action=pin]").click(),
      () => root.querySelector("[data-action=unpin]").click(),
      () => lab.setAttribute("interval", pick(["5s", "7s", "30s", "2m"])),
      () => lab.setAttribute("mode", pick(["barrier", "micro-batch"])),
      () => { const check = root.querySelector("[data-exercise=check]"); const answer = root.querySelector("[data-exercise=answer]"); if (answer) answer.value = String(Math.floor(random() * 60000)); check?.click(); },
      () => { const next = root.querySelector("[data-exercise=next], [data-exercise=previous]"); next?.click(); },
      () => { for (const d of root.querySelectorAll("details")) d.open = random() < 0.5; },
      () => lab.report(),
    ];
    let n = 0;
    for (; n < steps; n++) {
      pick(actions)();
      const wait = random();
      if (wait < 0.6) continue; // bursts within one task
      if (wait < 0.85) await new Promise((r) => requestAnimationFrame(r));
      else await new Promise((r) => setTimeout(r, Math.floor(random() * 40)));
    }
    return n;
  }, [STEPS, SEED]);
  assert.equal(done, STEPS);
  await settled(p);
  // Still answering after the storm.
  const interval = await p.evaluate(() => { const lab = document.querySelector("checkpoint-lab"); lab.setAttribute("interval", "10s"); return lab.getAttribute("interval"); });
  await settled(p);
  assert.equal(interval, "10s");
  assert.equal(await p.evaluate(() => document.querySelector("checkpoint-lab").report().config.interval_ms), 10000);
  assert.deepEqual(errors, [], `seed ${SEED}`);
});

test("100 mounts and destroys and 100 refused mounts keep wasm memory flat", async () => {
  const { page: p, errors } = await open(browser, `${base}/stress.html`);
  const memory = await p.evaluate(async () => {
    const { mount, wasmMemoryBytes } = await import("/pkg/checkpoint-lab.js");
    const target = document.createElement("div");
    document.body.append(target);
    const cycle = async () => {
      const handle = await mount(target, { interval_ms: 5000 });
      handle.destroy();
      try { await mount(target, { interval_ms: 0 }); } catch { /* refused */ }
    };
    for (let i = 0; i < 10; i++) await cycle(); // warm up: the allocator reaches its working size
    const before = await wasmMemoryBytes();
    for (let i = 0; i < 100; i++) await cycle();
    return { before, after: await wasmMemoryBytes(), left: target.children.length };
  });
  console.log(`# wasm memory: ${memory.before} bytes after 10 cycles, ${memory.after} after 110`);
  assert.equal(memory.left, 0, "nothing is left in the target");
  assert.ok(memory.after - memory.before <= 16 * 2 ** 20, `memory grew by ${memory.after - memory.before} bytes`);
  assert.deepEqual(errors, []);
});

// No layout shift while the lab loads, in headless Chromium: docs/embedding.md's lesson page with
// two inline figures and the full component, loaded as written, at 1280×800 and 390×844 in the
// light theme. The browser's layout-shift entries (those not caused by input) sum to exactly 0
// from the first paint until every element has drawn; and with the engine's module held back,
// each inline figure already stands at the height it has once drawn (the styles, the parts
// `charts` and `controls` name and the description's place are in from the first frame). Chromium only:
// layout-shift entries are Chromium's.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { serve, launch, settled, ROOT, BROWSER } from "./harness.mjs";

const SIZES = [[1280, 800], [390, 844]];

/// docs/embedding.md's "Inline figures" page, exactly as written.
function documentedInlinePage() {
  const doc = fs.readFileSync(path.join(ROOT, "docs", "embedding.md"), "utf8");
  return doc.split("## Inline figures")[1].match(/```html\n([\s\S]*?)```/)[1];
}

const skip = BROWSER !== "chromium" && "layout-shift entries are Chromium's";
let server, base, browser;
before(async () => {
  if (skip) return;
  ({ server, base } = await serve({ "/inline.html": documentedInlinePage() }));
  browser = await launch();
});
after(async () => {
  await browser?.close();
  server?.close();
});

/// A page at `width`×`height` that records every layout shift not caused by input, from before
/// its first paint.
async function shiftRecordingPage(width, height) {
  const page = await browser.newPage({ viewport: { width, height }, colorScheme: "light" });
  const errors = [];
  page.on("console", (msg) => { if (msg.type() === "error") errors.push(msg.text()); });
  page.on("pageerror", (err) => errors.push(String(err)));
  await page.addInitScript(() => {
    window.__shifts = [];
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        if (entry.hadRecentInput) continue;
        const where = entry.sources.map((s) => {
          const node = s.node;
          const name = node?.nodeType === 1 ? `${node.localName}${node.className ? `.${node.className}` : ""}` : String(node?.nodeName);
          return `${name} ${s.previousRect.y}→${s.currentRect.y}`;
        });
        window.__shifts.push({ value: entry.value, at: entry.startTime, where });
      }
    }).observe({ type: "layout-shift", buffered: true });
  });
  return { page, errors };
}

const allReady = (page) => page.waitForFunction(() => [...document.querySelectorAll("checkpoint-lab")].every((lab) => lab.dataset.ready), null, { timeout: 60000 });
const heights = (page) => page.evaluate(() => [...document.querySelectorAll("checkpoint-lab")].map((lab) => lab.getBoundingClientRect().height));

for (const [width, height] of SIZES) {
  test(`docs/embedding.md's inline figures at ${width}×${height}: cumulative layout shift 0 while loading`, { skip }, async () => {
    const { page, errors } = await shiftRecordingPage(width, height);
    await page.goto(`${base}/inline.html`);
    await allReady(page);
    await settled(page);
    const shifts = await page.evaluate(() => window.__shifts);
    const total = shifts.reduce((sum, shift) => sum + shift.value, 0);
    assert.equal(total, 0, `layout shifts: ${JSON.stringify(shifts)}`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test(`docs/embedding.md's inline figures at ${width}×${height}: each inline figure stands at its final height before the engine's module is in`, { skip }, async () => {
    const { page, errors } = await shiftRecordingPage(width, height);
    // The lab's module is held until the heights while loading are taken.
    let release;
    const held = new Promise((resolve) => { release = resolve; });
    await page.route("**/checkpoint_lab_bg.wasm", async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${base}/inline.html`);
    await page.waitForFunction(() => [...document.querySelectorAll("checkpoint-lab")].every((lab) => lab.shadowRoot?.querySelector("[data-loading]")));
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const loading = await heights(page);
    assert.ok(loading.every((h) => h > 300), `every element has its height while loading: ${loading}`);
    release();
    await allReady(page);
    await settled(page);
    // The inline figures; the full component below them (out of view at both sizes) grows by its
    // crash table's rows, which only the run knows.
    assert.deepEqual((await heights(page)).slice(0, 2), loading.slice(0, 2));
    const shifts = await page.evaluate(() => window.__shifts);
    assert.equal(shifts.reduce((sum, shift) => sum + shift.value, 0), 0, `layout shifts: ${JSON.stringify(shifts)}`);
    assert.deepEqual(errors, []);
    await page.close();
  });
}

for (const [width, height] of SIZES) {
  test(`the lesson page at ${width}×${height}: its first screen and sections load without a layout shift`, { skip }, async () => {
    // The playing figure under the title is an element the page styles before its script defines
    // it (page.css keeps its final box), so the sections below it do not move when it comes.
    const { page, errors } = await shiftRecordingPage(width, height);
    await page.goto(`${base}/index.html`);
    await page.waitForFunction(() => document.querySelector("#hero")?.dataset.ready, null, { timeout: 60000 });
    await settled(page);
    const shifts = await page.evaluate(() => window.__shifts);
    assert.equal(shifts.reduce((sum, shift) => sum + shift.value, 0), 0, `layout shifts: ${JSON.stringify(shifts)}`);
    assert.deepEqual(errors, []);
    await page.close();
  });
}

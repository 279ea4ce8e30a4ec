// The lesson page's sections, each a paragraph beside a figure that shows one idea: every figure is
// drawn, shows exactly the controls its section names, and shows its idea as the engine computes
// it (alignment holds records under backpressure and unaligned stores them instead; at-least-once
// counts records twice and exactly-once none); the first screen is the title, one paragraph and
// the mechanism playing. Screenshots of every section, light and dark at 1280 × 800 and
// 390 × 844, land in target/screenshots/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { serve, launch, open, settled, shotPath } from "./harness.mjs";

/// Each section, its figure's charts and the controls it shows (by the settings' attributes).
const SECTIONS = {
  "checkpoint-holds": { canvases: 1, controls: [] },
  crash: { canvases: 1, controls: ["crash-at"] },
  interval: { canvases: 1, controls: ["interval", "state-size", "snapshots"] },
  alignment: { canvases: 2, controls: ["alignment", "backpressure"] },
  "break-it": { canvases: 1, controls: ["checkpointing-mode", "offset-commit"] },
};

let server, base, browser;
before(async () => {
  ({ server, base } = await serve());
  browser = await launch();
});
after(async () => {
  await browser?.close();
  server?.close();
});

const figure = (id) => `#${id} checkpoint-lab`;

/// Brings a section into view and waits for its figure's run and charts.
async function reach(page, id) {
  await page.locator(`#${id}`).scrollIntoViewIfNeeded();
  await page.waitForFunction((sel) => document.querySelector(sel)?.dataset.ready, figure(id), { timeout: 30000 });
  await settled(page);
}

/// Sets a choice control of a section's figure as a student does, and waits for the new run.
async function choose(page, id, attribute, value) {
  await page.locator(`${figure(id)} select[id$="-${attribute}"]`).selectOption(value);
  await settled(page);
}

for (const [width, height, colorScheme] of [[1280, 800, "light"], [390, 844, "dark"], [1280, 800, "dark"], [390, 844, "light"]]) {
  test(`at ${width} px (${colorScheme}) every section's figure is drawn with exactly the controls it names`, async () => {
    const { page, errors } = await open(browser, `${base}/index.html`, { width, height, colorScheme });
    for (const [id, want] of Object.entries(SECTIONS)) {
      await reach(page, id);
      const seen = await page.$eval(figure(id), (lab) => {
        const root = lab.shadowRoot;
        const visible = (node) => node && node.offsetParent !== null && !node.closest("[hidden]");
        const inked = [...root.querySelectorAll("canvas")].filter(visible).filter((c) => {
          const data = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
          let ink = 0;
          for (let i = 3; i < data.length; i += 4 * 16) if (data[i] > 0) ink++;
          return ink > 100;
        }).length;
        const controls = [...root.querySelectorAll("input[type=range][id], select[id]")].filter(visible)
          .map((c) => c.id.replace(/^cl\d+-/, "")).filter((name) => !["cursor", "speed", "sink", "scenario", "window", "product"].includes(name));
        return { inked, controls, advanced: visible(root.querySelector("details.advanced")) };
      });
      assert.ok(seen.inked >= want.canvases, `${id}: ${seen.inked} charts drawn, want ${want.canvases}`);
      assert.deepEqual(seen.controls.sort(), [...want.controls].sort(), `${id}: the controls shown`);
      assert.equal(seen.advanced, false, `${id}: "More settings" stays out of a figure`);
      await page.locator(`#${id}`).screenshot({ path: shotPath(`lesson-${id}-${width}-${colorScheme}.png`) });
    }
    assert.deepEqual(errors, []);
    await page.close();
  });
}

/// The hero's pipeline canvas, as pixels.
const heroPixels = (page) => page.$eval("#hero", (lab) => lab.shadowRoot.querySelector("canvas[data-chart=pipeline]").toDataURL());

for (const [width, height, colorScheme] of [[1280, 800, "light"], [390, 844, "dark"]]) {
  test(`the first screen at ${width} × ${height} (${colorScheme}): the title, one paragraph and the mechanism playing, no scrolling`, async () => {
    const { page, errors } = await open(browser, `${base}/index.html`, { width, height, colorScheme });
    await page.waitForFunction(() => document.querySelector("#hero")?.dataset.ready, null, { timeout: 30000 });
    const boxes = await page.evaluate(() => {
      const box = (node) => { const r = node.getBoundingClientRect(); return { top: r.top, bottom: r.bottom }; };
      const hero = document.querySelector("#hero");
      return {
        title: box(document.querySelector("h1")),
        lede: box(document.querySelector(".lede")),
        picture: box(hero.shadowRoot.querySelector("canvas[data-chart=pipeline]")),
        // What comes between the title and the picture: the one paragraph.
        between: [...document.querySelector("main").children].filter((n) => n !== hero && !n.contains(document.querySelector("h1")) && n.getBoundingClientRect().top < hero.getBoundingClientRect().top).length,
        playing: hero.shadowRoot.querySelector("[data-action=play]").getAttribute("aria-pressed"),
      };
    });
    assert.ok(boxes.title.bottom <= boxes.lede.top && boxes.lede.bottom <= boxes.picture.top, JSON.stringify(boxes));
    assert.equal(boxes.between, 0, "nothing but the title and its paragraph comes before the picture");
    // The picture starts on the first screen, a good part of it in view.
    assert.ok(boxes.picture.top < height - 200, `the picture starts at ${boxes.picture.top}, below ${height - 200}`);
    assert.equal(boxes.playing, "true", "the hero plays by itself");
    // It moves: its pixels change from one drawn frame to a later one.
    const first = await heroPixels(page);
    await page.waitForFunction((before) => document.querySelector("#hero").shadowRoot.querySelector("canvas[data-chart=pipeline]").toDataURL() !== before, first, { timeout: 20000 });
    await page.screenshot({ path: shotPath(`lesson-first-screen-${width}-${colorScheme}.png`) });
    assert.deepEqual(errors, []);
    await page.close();
  });
}

test("the hero plays the crash and its recovery on a loop, stops for good at the student's touch, and not at all with reduced motion", async () => {
  const { page, errors } = await open(browser, `${base}/index.html`);
  await page.waitForFunction(() => document.querySelector("#hero")?.dataset.ready, null, { timeout: 30000 });
  // The loop is the engine's: from checkpoint 42's barrier less two seconds to catch-up and five
  // more. Every clock the hero shows lies in it, and it comes round again.
  const clocks = new Set();
  const loopFrom = "10:00:28", loopTo = "10:01:45.200";
  await page.waitForFunction(() => {
    const out = document.querySelector("#hero").shadowRoot.querySelector("[data-cursor=clock]");
    (window.__heroClocks ??= []).push(out.textContent);
    const seen = window.__heroClocks;
    // Seen late in the loop, then early again: it wrapped.
    const late = seen.findIndex((t) => t >= "10:01:3");
    return late >= 0 && seen.slice(late).some((t) => t < "10:00:4");
  }, null, { timeout: 60000, polling: "raf" });
  for (const t of await page.evaluate(() => window.__heroClocks)) clocks.add(t);
  for (const t of clocks) assert.ok(t >= loopFrom && t <= loopTo, `${t} outside the loop ${loopFrom}–${loopTo}`);
  // Play pressed: it stops and stays where it is.
  await page.locator("#hero >> [data-action=play]").click();
  assert.equal(await page.locator("#hero >> [data-action=play]").getAttribute("aria-pressed"), "false");
  const stopped = await heroPixels(page);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(r)))));
  assert.equal(await heroPixels(page), stopped, "stopped, the picture holds still");
  assert.deepEqual(errors, []);
  await page.close();

  const calm = await browser.newPage({ viewport: { width: 1280, height: 800 }, reducedMotion: "reduce" });
  await calm.goto(`${base}/index.html`);
  await calm.waitForFunction(() => document.querySelector("#hero")?.dataset.ready, null, { timeout: 30000 });
  await settled(calm);
  assert.equal(await calm.locator("#hero >> [data-action=play]").getAttribute("aria-pressed"), "false", "with reduced motion the student starts Play");
  await calm.close();
});

test("a shared link puts the playground under the title, before the lesson", async () => {
  const { page, errors } = await open(browser, `${base}/index.html#interval=5s`);
  const tops = await page.evaluate(() => Object.fromEntries(["h1", "#lab", "#hero", "#checkpoint-holds"]
    .map((sel) => [sel, document.querySelector(sel).getBoundingClientRect().top])));
  assert.ok(tops.h1 < tops["#lab"] && tops["#lab"] < tops["#hero"] && tops["#hero"] < tops["#checkpoint-holds"], JSON.stringify(tops));
  const plain = await open(browser, `${base}/index.html`);
  const plainTops = await plain.page.evaluate(() => [document.querySelector("#hero"), document.querySelector("#checkpoint-holds"), document.querySelector("#lab")].map((n) => n.getBoundingClientRect().top));
  assert.ok(plainTops[0] < plainTops[1] && plainTops[1] < plainTops[2], `without a link the playground comes last: ${plainTops}`);
  assert.deepEqual(errors, []);
  await page.close();
  await plain.page.close();
});

test("alignment: aligned, the fast channels' records are held while the slow barrier comes; unaligned, they are stored in the checkpoint", async () => {
  const { page, errors } = await open(browser, `${base}/index.html`);
  await reach(page, "alignment");
  const figures = () => page.$eval(figure("alignment"), (lab) => {
    const r = lab.report();
    return { alignment: r.config.alignment, aligning_ms: r.aligning_ms, in_flight_bytes: r.restored_checkpoint.in_flight_bytes, backpressure_ms: r.config.backpressure_ms };
  });
  const aligned = await figures();
  assert.equal(aligned.alignment, "aligned");
  assert.equal(aligned.backpressure_ms, 3000, "the section's scenario puts partition 0 3 s behind");
  assert.ok(aligned.aligning_ms > 0, "aligned checkpoints wait for the slow channel's barrier");
  assert.equal(aligned.in_flight_bytes, 0, "an aligned checkpoint stores no records in flight");
  await choose(page, "alignment", "alignment", "unaligned");
  const unaligned = await figures();
  assert.equal(unaligned.alignment, "unaligned");
  assert.equal(unaligned.aligning_ms, 0, "the barrier overtakes the queued records: no wait");
  assert.ok(unaligned.in_flight_bytes > 0, "the records it overtook are written into the checkpoint");
  // With no backpressure there is nothing in flight to store.
  await page.$eval(figure("alignment"), (lab) => lab.setAttribute("backpressure", "0s"));
  await settled(page);
  assert.equal((await figures()).in_flight_bytes, 0);
  assert.deepEqual(errors, []);
  await page.close();
});

test("break it: at-least-once checkpoints count records twice, said under the figure from its own run; exactly-once none", async () => {
  const { page, errors } = await open(browser, `${base}/index.html`);
  await reach(page, "break-it");
  const caption = () => page.$eval("[data-counted-twice]", (p) => ({ count: Number(p.dataset.count), text: p.textContent }));
  await page.waitForFunction(() => document.querySelector("[data-counted-twice]").dataset.count !== undefined);
  assert.equal((await caption()).count, 0);
  assert.match((await caption()).text, /^Counted twice: none\./);
  await choose(page, "break-it", "checkpointing-mode", "at_least_once");
  await page.waitForFunction(() => Number(document.querySelector("[data-counted-twice]").dataset.count) > 0);
  const engine = await page.$eval(figure("break-it"), (lab) => lab.report().counted_twice_events);
  const shown = await caption();
  assert.equal(shown.count, engine, "the caption is the figure's own run");
  assert.ok(shown.text.includes(engine.toLocaleString("en-US")), shown.text);
  // Exactly once again, offsets committed on a timer apart from the state: the commit before the
  // crash lies past the restored checkpoint's offsets, and the events between are lost.
  await choose(page, "break-it", "checkpointing-mode", "exactly_once");
  await choose(page, "break-it", "offset-commit", "on_timer");
  await page.waitForFunction(() => Number(document.querySelector("[data-counted-twice]").dataset.lost) > 0);
  const report = await page.$eval(figure("break-it"), (lab) => {
    const r = lab.report();
    return { lost: r.skipped_events, twice: r.counted_twice_events, mode: r.config.checkpointing_mode };
  });
  assert.equal(report.mode, "exactly_once");
  assert.equal(report.twice, 0);
  const lost = await page.$eval("[data-counted-twice]", (p) => ({ count: Number(p.dataset.lost), text: p.textContent }));
  assert.equal(lost.count, report.lost, "the caption is the figure's own run");
  assert.match(lost.text, /^Lost: /);
  assert.ok(lost.text.includes(report.lost.toLocaleString("en-US")), lost.text);
  assert.deepEqual(errors, []);
  await page.close();
});

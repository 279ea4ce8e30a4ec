// End to end in headless Chromium against the release build: the lesson page loads, every
// slider redraws the figures and the charts it affects, the crash table is the engine's, and the
// page reads at 1280 and 360 px wide without console errors.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { serve, launch, open, settled, shotPath, fullScreenshot } from "./harness.mjs";

let server, base, browser;
before(async () => {
  ({ server, base } = await serve());
  browser = await launch();
});
after(async () => {
  await browser?.close();
  server?.close();
});

const CHARTS = ["replay", "latency", "sink-window", "tradeoff", "checkpoints"];

/// A checksum of every chart's pixels, by chart name.
function chartPixels(page) {
  return page.evaluate((names) => {
    const out = {};
    for (const name of names) {
      const c = document.querySelector("checkpoint-lab:not(.figure)").shadowRoot.querySelector(`[data-chart=${name}]`);
      const data = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
      let h = 2166136261, ink = 0;
      for (let i = 0; i < data.length; i += 4) {
        h = Math.imul(h ^ (data[i] + 3 * data[i + 1] + 7 * data[i + 2]), 16777619);
        if (data[i + 3] && data[i] + data[i + 1] + data[i + 2] < 600) ink++;
      }
      out[name] = { h, ink };
    }
    return out;
  }, CHARTS);
}

function figures(page) {
  return page.$$eval("#lab >> [data-figure]", (els) => Object.fromEntries(els.map((e) => [e.dataset.figure, e.textContent])));
}

/// Presses an arrow key `times` times on a focused slider, letting each frame draw.
async function press(page, selector, key, times) {
  await page.focus(selector);
  for (let i = 0; i < times; i++) {
    await page.keyboard.press(key);
    await settled(page);
  }
}

test("share links: the URL restores the settings", async () => {
  const { page, errors } = await open(browser, `${base}/index.html#interval=5s&crash-at=10:02:10`);
  assert.equal(await page.$eval("#lab >> [data-control=interval]", (e) => e.getAttribute("aria-valuetext")), "5 s");
  assert.match(await page.textContent("#lab >> [data-table=crash]"), /10:02:10/);
  await press(page, "#lab >> [data-control=interval]", "ArrowRight", 1);
  assert.match(await page.evaluate(() => location.hash), /interval=10s/);
  assert.deepEqual(errors, []);
});

test("the page loads its script and the element as one file, and exports the module the element runs", async () => {
  const { page, errors } = await open(browser, `${base}/index.html`);
  const seen = await page.evaluate(async () => {
    const scripts = performance.getEntriesByType("resource").map((e) => new URL(e.name).pathname).filter((p) => p.endsWith(".js"));
    const { element } = await import("/pkg/lesson-page.js");
    const lab = document.querySelector("checkpoint-lab:not(.figure)");
    return {
      scripts,
      same: customElements.get("checkpoint-lab") === element.CheckpointLabElement && lab instanceof element.CheckpointLabElement,
      memory: (await element.wasmMemoryBytes()) > 0,
    };
  });
  assert.deepEqual(seen.scripts, ["/pkg/lesson-page.js"], "no module of the element fetched apart on the lesson page");
  assert.ok(seen.same, "the element on the page is the bundled module's");
  assert.ok(seen.memory);
  assert.deepEqual(errors, []);
});

test("a change's link is written once its frame is shown, in a task of its own, not in the input's", async () => {
  const { page, errors } = await open(browser, `${base}/index.html`);
  const written = await page.evaluate(async () => {
    const view = document.querySelector("checkpoint-lab:not(.figure)").view;
    const input = view.shadow.querySelector("[data-control=interval]");
    input.value = String(Number(input.value) + 1);
    input.dispatchEvent(new Event("input", { bubbles: true }));
    // The frame's callbacks run after the input's task, microtasks included.
    const atFrame = await new Promise((resolve) => requestAnimationFrame(() => resolve(location.hash)));
    const started = performance.now();
    while (!location.hash.includes("interval=") && performance.now() - started < 2000) await new Promise((r) => setTimeout(r, 10));
    return { atFrame, after: location.hash };
  });
  assert.equal(written.atFrame, "", "the link is not rewritten before the change's frame");
  assert.match(written.after, /interval=45s/, "the link follows the change once its frame is shown");
  assert.deepEqual(errors, []);
});

test("the default scenario's figures are on the page", async () => {
  const { page, errors } = await open(browser, `${base}/index.html`);
  const f = await figures(page);
  assert.equal(f.replayed_events, "30,000");
  assert.equal(f.interval_replay_events, "60,000");
  assert.equal(f.worst_case_replay_events, "64,200");
  assert.equal(f.recovery_s, "55.2 s");
  assert.equal(f.store_write_bytes_per_min, "4 GB/min");
  assert.equal(f["append_only.duplicate_rows"], "1,500");
  assert.equal(f["upsert.duplicate_rows"], "0");
  for (const [name, px] of Object.entries(await chartPixels(page))) assert.ok(px.ink > 500, `${name} has ink`);
  assert.deepEqual(errors, []);
});

test("each slider changes the figures and the charts it affects", async () => {
  const { page, errors } = await open(browser, `${base}/index.html`);
  const cases = [
    ["#lab >> [data-control=interval]", "ArrowRight", 3, "interval_replay_events", ["replay", "tradeoff", "checkpoints"]],
    ["#lab >> [data-control=state-size]", "ArrowRight", 2, "recovery_s", ["replay", "tradeoff", "checkpoints"]],
    ["#lab >> [data-control=crash-at]", "ArrowRight", 20, "replayed_events", ["replay", "latency", "sink-window"]],
  ];
  for (const [slider, key, times, figure, affected] of cases) {
    const before = { f: await figures(page), px: await chartPixels(page), v: await page.$eval(slider, (e) => e.value) };
    await press(page, slider, key, times);
    const after = { f: await figures(page), px: await chartPixels(page), v: await page.$eval(slider, (e) => e.value) };
    assert.equal(Number(after.v), Number(before.v) + times, `${slider}: arrow keys move the focused slider`);
    assert.notEqual(after.f[figure], before.f[figure], `${slider} changes ${figure}`);
    for (const chart of affected) assert.notEqual(after.px[chart].h, before.px[chart].h, `${slider} redraws ${chart}`);
  }
  // The recovery figure and the crash table's last line say the same time in the same units.
  const seconds = (text) => [...text.matchAll(/([\d.]+) (min|s)\b/g)].reduce((t, [, n, unit]) => t + Number(n) * (unit === "min" ? 60 : 1), 0);
  const recovery = (await figures(page)).recovery_s;
  const caughtUp = await page.evaluate(() => [...document.querySelector("checkpoint-lab:not(.figure)").shadowRoot.querySelectorAll("[data-table=crash] td")]
    .map((td) => td.textContent).find((text) => text.includes("from crash to catch-up")));
  assert.match(recovery, /^\d+ min( [\d.]+ s)?$/, "over a minute, in minutes and seconds");
  // One rounding rule for durations: the figure is the table's very words.
  assert.equal(recovery, caughtUp.match(/caught up: (.*) from crash to catch-up/)?.[1], `${recovery} against "${caughtUp}"`);
  assert.ok(seconds(recovery) > 60);
  // A real mouse drag on the crash-time slider.
  const box = await (await page.$("#lab >> [data-control=crash-at]")).boundingBox();
  const before = await figures(page);
  await page.mouse.move(box.x + box.width * 0.1, box.y + box.height / 2);
  await page.mouse.down();
  for (let i = 1; i <= 10; i++) await page.mouse.move(box.x + box.width * (0.1 + i * 0.03), box.y + box.height / 2);
  await page.mouse.up();
  await settled(page);
  assert.notEqual((await figures(page)).replayed_events, before.replayed_events, "dragging the crash time re-runs");
  assert.deepEqual(errors, []);
});

test("during a drag only the charts in view are redrawn; the others follow when it pauses or as they come into view", async () => {
  const { page, errors } = await open(browser, `${base}/index.html`);
  const result = await page.evaluate(async () => {
    const view = document.querySelector("checkpoint-lab:not(.figure)").view;
    const root = document.querySelector("checkpoint-lab:not(.figure)").shadowRoot;
    const canvas = (name) => root.querySelector(`[data-chart=${name}]`);
    const pixels = (name) => {
      const c = canvas(name);
      const data = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
      let h = 2166136261;
      for (let i = 0; i < data.length; i += 4) h = Math.imul(h ^ (data[i] + 3 * data[i + 1] + 7 * data[i + 2]), 16777619);
      return h;
    };
    const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const input = root.querySelector("[data-control=interval]");
    const move = async (value) => {
      input.value = String(value);
      input.dispatchEvent(new Event("input", { bubbles: true }));
      await frame();
      while (view.busy) await frame();
    };
    const inView = (name) => { const r = canvas(name).getBoundingClientRect(); return r.top < innerHeight && r.bottom > 0; };
    // The playground at the top of the window, as a student who scrolled to it sees it.
    document.querySelector("#lab").scrollIntoView({ block: "start" });
    await frame();
    await frame();
    const before = { pipeline: pixels("pipeline"), tradeoff: pixels("tradeoff"), replay: pixels("replay") };
    const out = { pipelineInView: inView("pipeline"), tradeoffInView: inView("tradeoff"), replayInView: inView("replay") };
    // A drag: a new value every frame or two, never pausing.
    const start = Number(input.value);
    for (let i = 1; i <= 6; i++) await move(start + i);
    out.pipelineRedrawn = pixels("pipeline") !== before.pipeline;
    out.tradeoffDuringDrag = pixels("tradeoff") !== before.tradeoff;
    out.pendingDuringDrag = [...view.outOfView].sort();
    // The drag goes on while the student scrolls to the replay chart: it is drawn as it comes near.
    canvas("replay").scrollIntoView({ block: "center" });
    await move(start + 7);
    await frame();
    out.replayAfterScroll = pixels("replay") !== before.replay;
    // The drag pauses: the charts still out of view are drawn too.
    await new Promise((r) => setTimeout(r, 600));
    out.tradeoffAfterPause = pixels("tradeoff") !== before.tradeoff;
    out.pendingAfterPause = view.outOfView.size;
    return out;
  });
  assert.equal(result.pipelineInView, true, "the pipeline view is on screen under the sliders");
  assert.equal(result.tradeoffInView, false, "the trade-off chart is below the fold at 1280 × 900");
  assert.equal(result.replayInView, false, "the replay chart is below the fold at 1280 × 900");
  assert.equal(result.pipelineRedrawn, true, "the chart in view follows the drag");
  assert.equal(result.tradeoffDuringDrag, false, "a chart out of view waits during the drag");
  assert.ok(result.pendingDuringDrag.includes("tradeoff") && !result.pendingDuringDrag.includes("pipeline"), `waiting: ${result.pendingDuringDrag}`);
  assert.equal(result.replayAfterScroll, true, "a chart scrolled into view mid-drag is drawn at once");
  assert.equal(result.tradeoffAfterPause, true, "once the drag pauses the charts out of view are drawn");
  assert.equal(result.pendingAfterPause, 0);
  assert.deepEqual(errors, []);
});

test("the crash table is the engine's table for the current settings", async () => {
  const { page, errors } = await open(browser, `${base}/index.html`);
  await press(page, "#lab >> [data-control=crash-at]", "ArrowLeft", 14);
  const shown = await page.$$eval("#lab >> [data-table=crash] tbody tr", (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent)));
  const expected = await page.evaluate(async () => {
    const { simulate } = await import("/pkg/checkpoint-lab.js");
    return (await simulate({ crash_at_ms: 36_031_000 })).crash_table.map((r) => [r.at.at, r.offset == null ? "" : r.offset.toLocaleString("en-US"), r.what]);
  });
  assert.deepEqual(shown, expected);
  assert.ok(shown.some((r) => r[2].startsWith("checkpoint 41 restored")), "a crash at 10:00:31 restores checkpoint 41");
  assert.deepEqual(errors, []);
});

test("presets, reset, warnings and the text alternatives", async () => {
  const { page, errors } = await open(browser, `${base}/index.html`);
  await page.selectOption("#lab >> [data-control=scenario]", "slow-store");
  await settled(page);
  assert.match(await page.textContent("#lab >> .warnings"), /cannot absorb/);
  await page.click("#lab >> [data-action=reset]");
  await settled(page);
  assert.equal(await page.textContent("#lab >> .warnings"), "");
  assert.equal((await figures(page)).replayed_events, "30,000");
  await page.click("#lab >> details.alt >> nth=0");
  await page.waitForSelector("#lab >> details.alt[open] table tbody tr");
  assert.match(await page.textContent("#lab >> details.alt[open] .alt-summary"), /10:00:45/);
  // The text alternatives follow the last change after a short pause.
  await page.waitForTimeout(400);
  for (const name of CHARTS) {
    assert.ok((await page.getAttribute(`#lab >> [data-chart=${name}]`, "aria-label")).length > 40, `${name} has a text alternative`);
  }
  assert.deepEqual(errors, []);
});

test("Play moves a time cursor through the crash and recovery", async () => {
  // Tall enough to show the replay chart beside the controls: a chart out of view is redrawn
  // only once the cursor stops.
  const { page, errors } = await open(browser, `${base}/index.html`, { height: 2000 });
  // The figures above the playground have drawn too: the button stands where it will stay.
  await settled(page);
  const before = (await chartPixels(page)).replay.h;
  await page.click("#lab >> [data-action=play]");
  assert.equal(await page.getAttribute("#lab >> [data-action=play]", "aria-pressed"), "true");
  await page.waitForTimeout(400);
  const moving = (await chartPixels(page)).replay.h;
  assert.notEqual(moving, before, "the cursor is drawn");
  await page.waitForTimeout(300);
  assert.notEqual((await chartPixels(page)).replay.h, moving, "and it moves");
  await page.click("#lab >> [data-action=play]");
  assert.equal(await page.textContent("#lab >> [data-action=play]"), "Play");
  const paused = (await chartPixels(page)).replay.h;
  await page.waitForTimeout(300);
  assert.equal((await chartPixels(page)).replay.h, paused, "paused: the cursor stays");
  assert.deepEqual(errors, []);
});

test("a chart that fails to draw says so; the others and the text alternatives follow the run, and the next change draws it", async () => {
  const { page, errors } = await open(browser, `${base}/index.html`);
  await settled(page);
  await page.evaluate(() => {
    const getContext = HTMLCanvasElement.prototype.getContext;
    HTMLCanvasElement.prototype.getContext = function (...args) {
      return this.dataset.chart === window.__failing ? null : getContext.apply(this, args);
    };
  });
  const error = () => page.evaluate(() => document.querySelector("checkpoint-lab:not(.figure)").shadowRoot.querySelector(".error").textContent);
  // The pipeline view is the first run's first chart, drawn in the run's own task; the replay
  // chart is drawn frames later.
  for (const failing of ["pipeline", "replay"]) {
    // That chart's canvas gives no 2d context; the element is moved, so that a new view makes its
    // first run (with the settings the student left).
    const shown = (await figures(page)).replayed_events;
    await page.evaluate(async (failing) => {
      window.__failing = failing;
      const lab = document.querySelector("checkpoint-lab:not(.figure)");
      const parent = lab.parentNode, next = lab.nextSibling;
      lab.remove();
      await new Promise((r) => setTimeout(r, 50));
      parent.insertBefore(lab, next);
    }, failing);
    await page.waitForFunction(() => /2d context/.test(document.querySelector("checkpoint-lab:not(.figure)").shadowRoot.querySelector(".error").textContent));
    await page.waitForTimeout(800);
    assert.match(await error(), /2d context/, `${failing}: the error stands after the run is shown`);
    const labels = await page.evaluate(() => Object.fromEntries([...document.querySelector("checkpoint-lab:not(.figure)").shadowRoot.querySelectorAll("[data-chart]")]
      .map((c) => [c.dataset.chart, c.getAttribute("aria-label") ?? ""])));
    for (const name of ["pipeline", "replay", "checkpoints"]) {
      assert.ok(labels[name].length > 40, `${failing} failing: ${name} has this run's text alternative: ${labels[name]}`);
    }
    assert.equal((await figures(page)).replayed_events, shown, "the figures are shown, for the settings the student left");
    // The canvas works again: the next change clears the error and draws every chart.
    await page.evaluate(() => { window.__failing = undefined; });
    await press(page, "#lab >> [data-control=interval]", failing === "pipeline" ? "ArrowRight" : "ArrowLeft", 1);
    assert.equal(await error(), "", `${failing}: the next change clears the error`);
    const pixels = await chartPixels(page);
    for (const name of CHARTS) assert.ok(pixels[name].ink > 1000, `${failing}: ${name} is drawn after`);
  }
  assert.ok(errors.every((e) => /2d context/.test(e)), `no other error: ${errors}`);
});

test("heavy settings run in slices over frames, and a newer value cancels an older run", async () => {
  const { page, errors } = await open(browser, `${base}/index.html`);
  await page.click("#lab >> .advanced summary");
  await press(page, "#lab >> [data-control=rate]", "End", 1); // 20,000 events/s
  await press(page, "#lab >> [data-control=capacity]", "End", 1); // 40,000 events/s
  // One input that slows one input channel (backpressure): the readers go partition by partition
  // and every millisecond of both ten-minute runs is simulated, so the run does not finish inside
  // the input's frame; a progress bar shows meanwhile. (Moving the interval at 20,000 events/s
  // reuses the data plane and now fits one frame.)
  const sliced = await page.evaluate(async () => {
    const lab = document.querySelector("checkpoint-lab:not(.figure)");
    const input = lab.shadowRoot.querySelector("[data-control=backpressure]");
    input.value = String(Number(input.value) + 1);
    input.dispatchEvent(new Event("input", { bubbles: true }));
    let frames = 0, sawProgress = false;
    do {
      await new Promise((r) => requestAnimationFrame(r));
      frames += 1;
      sawProgress ||= !lab.shadowRoot.querySelector(".running").hidden;
    } while (lab.busy && frames < 600);
    return { frames, sawProgress };
  });
  assert.ok(sliced.frames >= 3, `the run spread over ${sliced.frames} frames`);
  assert.ok(sliced.sawProgress, "a progress bar showed while it ran");
  // Quick successive values: each replaces the run before it, and the last one wins.
  await page.focus("#lab >> [data-control=interval]");
  for (let i = 0; i < 4; i++) await page.keyboard.press("ArrowLeft"); // 30 s → 5 s
  await settled(page);
  assert.equal((await figures(page)).interval_replay_events, "100,000", "5 s × 20,000 events/s");
  assert.deepEqual(errors, []);
});

test("on a phone the crash table's rows stack, what happens under its time and offset, and it stays a table", async () => {
  for (const width of [1280, 360]) {
    const { page, errors } = await open(browser, `${base}/index.html`, { width });
    await settled(page);
    const rows = await page.$$eval("#lab >> [data-table=crash] tbody tr", (trs) => trs.map((tr) => {
      const [time, , what] = [...tr.cells].map((c) => c.getBoundingClientRect());
      return { time, what, row: tr.getBoundingClientRect(), role: tr.getAttribute("role"), cells: [...tr.cells].map((c) => c.getAttribute("role")) };
    }));
    assert.ok(rows.length >= 5, "the crash table has rows");
    for (const r of rows) {
      assert.equal(r.role, "row");
      assert.deepEqual(r.cells, ["cell", "cell", "cell"]);
      if (width === 360) {
        assert.ok(r.what.top >= r.time.bottom - 1, `at 360 px what happens stands under the time (${r.what.top} < ${r.time.bottom})`);
        assert.ok(r.what.width >= 0.9 * r.row.width, "and spans the row");
      } else {
        assert.equal(Math.round(r.what.top), Math.round(r.time.top), "at 1280 px a row is one line of three cells");
      }
    }
    assert.equal(await page.$eval("#lab >> [data-table=crash]", (t) => t.getAttribute("role")), "table");
    assert.deepEqual(errors, []);
  }
});

test("screenshots at 1280 and 360 px, light and dark", async () => {
  for (const [width, scheme] of [[1280, "light"], [360, "light"], [1280, "dark"]]) {
    const { page, errors } = await open(browser, `${base}/index.html`, { width, colorScheme: scheme });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `no horizontal scrolling at ${width} px (${overflow})`);
    await fullScreenshot(page, { path: shotPath(`page-${width}-${scheme}.png`) });
    assert.deepEqual(errors, []);
    await page.close();
  }
});

// The pipeline at the cursor, end to end in headless Chromium: seeking to the lesson's instants
// gives a description whose status, checkpoint, offsets and sink counts agree with report() and
// with simulate() of the same run stopped at that instant; the picture changes between them; Play
// (drawing the pipeline every animation frame, records moving along its channels),
// the previous/next-event buttons, reduced motion, clicks on a time chart, the share link, seek(),
// the first screen at 1280×900 and 360×740, and a small inline figure. Screenshots of the view at
// each instant, light and dark, 1280 and 360 px wide, land in target/screenshots/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { serve, launch, open, settled, shotPath, ROOT, fullScreenshot } from "./harness.mjs";

const INSTANTS = ["10:00:20", "10:00:31", "10:00:46", "10:00:58", "10:01:08", "10:01:45"];
/// The timeline kinds the event buttons step between.
const STEP_KINDS = ["barrier", "checkpoint_completed", "crash", "detected", "restore_started", "restored", "replay_done", "caught_up"];

const INLINE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'">
<title>Inline figures</title><script type="module" src="/pkg/checkpoint-lab.js"></script></head>
<body><main>
<p>Where does a crash send the job back to? Move the crash time.</p>
<checkpoint-lab id="small" charts="pipeline" controls="crash-at" cursor="10:01:08"></checkpoint-lab>
<p>What does the lag look like?</p>
<checkpoint-lab id="lag" charts="replay latency" controls=""></checkpoint-lab>
</main></body></html>`;

/// The lesson page with two inline figures and one full component in docs/embedding.md (section
/// "Inline figures").
function documentedInlinePage() {
  const doc = fs.readFileSync(path.join(ROOT, "docs", "embedding.md"), "utf8");
  return doc.split("## Inline figures")[1].match(/```html\n([\s\S]*?)```/)[1];
}

let server, base, browser;
before(async () => {
  ({ server, base } = await serve({ "/inline.html": INLINE, "/documented-inline.html": documentedInlinePage() }));
  browser = await launch();
});
after(async () => {
  await browser?.close();
  server?.close();
});

const lab = (page, selector = "checkpoint-lab:not(.figure)") => page.$(selector);

/// Moves the cursor with the element's attribute and waits for the description to follow.
async function seek(page, clockText, selector = "checkpoint-lab:not(.figure)") {
  await page.$eval(selector, (e, t) => e.setAttribute("cursor", t), clockText);
  const ms = await page.$eval(selector, (e, t) => {
    const [h, m, s] = t.split(":").map(Number);
    return (h * 3600 + m * 60 + s) * 1000 - e.report().config.start_time_ms;
  }, clockText);
  await page.waitForFunction(([sel, want]) => {
    const d = document.querySelector(sel).shadowRoot.querySelector("[data-pipeline-description]");
    return d.dataset.cursorMs === String(want);
  }, [selector, ms]);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  return ms;
}

function description(page, selector = "checkpoint-lab:not(.figure)") {
  return page.$eval(selector, (e) => {
    const d = e.shadowRoot.querySelector("[data-pipeline-description]");
    return { text: d.textContent, status: d.dataset.status, ms: Number(d.dataset.cursorMs) };
  });
}

/// A hash of the pipeline view's pixels, once it shows the current run at the cursor (a view out
/// of sight draws it when the changes pause).
async function pipelinePixels(page, selector = "checkpoint-lab:not(.figure)") {
  await page.waitForFunction((sel) => {
    const view = document.querySelector(sel).view;
    const key = view.drawnKeys.pipeline ?? "";
    return !view.busy && key.startsWith(`${view.runId} `) && key.endsWith(` ${view.cursorMs() / 1000}`);
  }, selector);
  return page.$eval(selector, (e) => {
    const c = e.shadowRoot.querySelector("[data-chart=pipeline]");
    const data = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    let h = 2166136261;
    for (let i = 0; i < data.length; i += 4) h = Math.imul(h ^ (data[i] + 3 * data[i + 1] + 7 * data[i + 2]), 16777619);
    return h;
  });
}

const cursorMs = (page, selector = "checkpoint-lab:not(.figure)") => page.$eval(selector, (e) => e.view.cursorMs());

const n = (v) => v.toLocaleString("en-US");

/// What the report says the job is doing at `t` (ms since midnight): the status word and the
/// checkpoint in flight or being restored.
function expected(report, t) {
  const at = (stamp) => stamp?.ms ?? Infinity;
  const kind = (k) => report.timeline.filter((e) => e.kind === k).map((e) => e.at.ms);
  const crash = at(report.crash?.at);
  const inFlight = report.timeline.filter((e) => e.kind === "barrier" && e.at.ms <= t).map((e) => e.checkpoint)
    .find((id) => !report.timeline.some((e) => (e.kind === "checkpoint_completed" || e.kind === "checkpoint_discarded") && e.checkpoint === id && e.at.ms <= t));
  // The timeline lists the restore's start only when a restart delay separates it from detection.
  const restoreStarted = kind("restore_started")[0] ?? at(report.detected_at) + (report.phases?.restart_s ?? 0) * 1000;
  if (t >= crash && t < at(report.detected_at)) return { status: "down", restoring: report.restored_checkpoint.id };
  if (t >= at(report.detected_at) && t < restoreStarted) return { status: "restarting", restoring: report.restored_checkpoint.id };
  if (t >= restoreStarted && t < at(report.restored_at)) return { status: "restoring", restoring: report.restored_checkpoint.id };
  if (t >= at(report.restored_at) && t < at(report.replay_done_at)) return { status: "replaying" };
  if (t >= at(report.replay_done_at) && t < at(report.caught_up_at)) return { status: "catching up" };
  if (inFlight !== undefined) return { status: "taking a checkpoint", checkpoint: inFlight };
  if (t >= at(report.caught_up_at)) return { status: "caught up" };
  return { status: "running" };
}

test("seeking to the lesson's instants: the description agrees with report() and simulate()", async () => {
  const { page, errors } = await open(browser, `${base}/index.html`);
  const report = await page.$eval("#lab", (e) => e.report());
  const start = report.config.start_time_ms;
  const pixels = new Set();
  for (const clockText of INSTANTS) {
    const ms = await seek(page, clockText);
    const t = start + ms;
    const d = await description(page);
    assert.ok(d.text.startsWith(`${clockText}.`), `${clockText}: the description starts with the clock: ${d.text}`);
    const want = expected(report, t);
    assert.equal(d.status, want.status, `${clockText}: status`);
    assert.match(d.text, new RegExp(`Status: ${want.status}`), `${clockText}: the status word is in the text`);
    if (want.checkpoint !== undefined) assert.match(d.text, new RegExp(`Checkpoint in progress: ${want.checkpoint}\\.`), clockText);
    if (want.restoring !== undefined) assert.match(d.text, new RegExp(`(To restore: |Restoring )checkpoint ${want.restoring}\\.`), clockText);
    if (want.status === "replaying") {
      assert.ok(d.text.includes(`replaying from offset ${n(report.replayed_offsets.from)} to the crash offset ${n(report.replayed_offsets.to)}`), d.text);
    }
    // The same run stopped at this instant: its readers' position and what its sinks hold.
    const stopped = await page.evaluate(async ([config, horizon, crashBefore]) => {
      const { simulate } = await import("/pkg/checkpoint-lab.js");
      return simulate({ ...config, horizon_ms: horizon, crash_at_ms: crashBefore ? config.crash_at_ms : null });
    }, [report.config, ms, report.config.crash_at_ms < t]);
    const last = stopped.series.at(-1);
    assert.equal(last.at.ms, t, "the stopped run's last sample is the instant");
    const reading = want.restoring !== undefined ? "Readers stopped at offset" : "Reading at offset";
    assert.ok(d.text.includes(`${reading} ${n(last.position)}`), `${clockText}: offset ${n(last.position)} in ${d.text}`);
    assert.ok(d.text.includes(`log end ${n(last.log_end)}, lag ${n(last.lag_events)} events`), `${clockText}: lag in ${d.text}`);
    const sinks = stopped.sinks;
    const sinkText = `append-only ${n(sinks.append_only.rows)} rows, ${n(sinks.append_only.duplicate_rows)} duplicates; ` +
      `upsert ${n(sinks.upsert.rows)} rows, ${n(sinks.upsert.duplicate_rows)} duplicates; ` +
      `transactional ${n(sinks.transactional.rows)} rows, ${n(sinks.transactional.duplicate_rows)} duplicates; ` +
      `dedupe view ${n(sinks.dedupe_view.rows)} rows, ${n(sinks.dedupe_view.duplicate_rows)} duplicates.`;
    assert.ok(d.text.endsWith(`Sinks so far: ${sinkText}`), `${clockText}: sinks\n${d.text}\n${sinkText}`);
    pixels.add(await pipelinePixels(page));
  }
  assert.equal(pixels.size, INSTANTS.length, "the pipeline looks different at every instant");
  assert.equal(await page.getAttribute("#lab >> [data-pipeline-description]", "aria-live"), "polite");
  assert.deepEqual(errors, []);
});

test("screenshots of the pipeline at each instant, light and dark, 1280 and 360 px", async () => {
  for (const [width, scheme] of [[1280, "light"], [1280, "dark"], [360, "light"], [360, "dark"]]) {
    const { page, errors } = await open(browser, `${base}/index.html`, { width, height: width === 360 ? 740 : 900, colorScheme: scheme });
    for (const clockText of INSTANTS) {
      await seek(page, clockText);
      const figure = await page.$("#lab >> .pipeline-figure");
      await figure.screenshot({ path: shotPath(`pipeline-${width}-${scheme}-${clockText.replaceAll(":", "")}.png`) });
    }
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `no horizontal scrolling at ${width} px (${overflow})`);
    assert.deepEqual(errors, []);
  }
});

test("Play advances the cursor; the event buttons land on the report's events", async () => {
  const { page, errors } = await open(browser, `${base}/index.html`);
  const report = await page.$eval("#lab", (e) => e.report());
  const start = report.config.start_time_ms;
  const events = [...new Set(report.timeline.filter((e) => STEP_KINDS.includes(e.kind)).map((e) => e.at.ms - start))].sort((a, b) => a - b);
  await seek(page, "10:00:20");
  const from = await cursorMs(page);
  await page.click("#lab >> [data-action=play]");
  await page.waitForTimeout(600);
  const moving = await cursorMs(page);
  assert.ok(moving > from, `Play moved the cursor from ${from} to ${moving}`);
  await page.click("#lab >> [data-action=play]");
  const paused = await cursorMs(page);
  await page.waitForTimeout(300);
  assert.equal(await cursorMs(page), paused, "paused: the cursor stays");

  await seek(page, "10:00:20");
  let at = await cursorMs(page);
  for (let i = 0; i < 8; i++) {
    await page.click("#lab >> [data-action=next-event]");
    const next = await cursorMs(page);
    assert.equal(next, events.find((t) => t > at), `next event after ${at}`);
    at = next;
  }
  for (let i = 0; i < 4; i++) {
    await page.click("#lab >> [data-action=previous-event]");
    const previous = await cursorMs(page);
    assert.equal(previous, events.findLast((t) => t < at), `previous event before ${at}`);
    at = previous;
  }
  // The keyboard: the control takes arrow keys; a time chart takes arrows and ] for the next event.
  await page.focus("#lab >> [data-control=cursor]");
  await page.keyboard.press("ArrowRight");
  assert.equal(await cursorMs(page), at + 100, "the Scenario time control steps 100 ms");
  await page.focus("#lab >> [data-chart=replay]");
  await page.keyboard.press("]");
  assert.equal(await cursorMs(page), events.find((t) => t > at + 100), "] on a chart jumps to the next event");
  await page.keyboard.press("ArrowLeft");
  assert.equal(await cursorMs(page), events.find((t) => t > at + 100) - 1000, "← on a chart steps a second back");
  assert.ok(await page.isVisible("#lab >> [data-readout=replay]"), "a focused chart shows its readout");
  // The sink-window chart runs over the clock too: hovering it shows its readout (the cursor
  // follows), and clicking it moves the cursor.
  const sinkWindow = page.locator("#lab >> [data-chart=sink-window]");
  await sinkWindow.scrollIntoViewIfNeeded();
  const box = await sinkWindow.boundingBox();
  await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.5);
  assert.ok(await page.isVisible("#lab >> [data-readout=sink-window]"), "hovering the sink-window chart shows its readout");
  const hovered = await cursorMs(page);
  await page.mouse.click(box.x + box.width * 0.3, box.y + box.height * 0.5);
  const clicked = await cursorMs(page);
  assert.ok(clicked < hovered, `a click further left on the sink-window chart moves the cursor back: ${clicked} < ${hovered}`);
  assert.deepEqual(errors, []);
});

/// A fingerprint of the pipeline canvas's channels (the gap between the partitions' logs and the
/// operator, where records and barriers travel), read in an animation frame, with the cursor then.
function channelPixelsNextFrame(page, selector = "checkpoint-lab:not(.figure)") {
  return page.$eval(selector, (e) => new Promise((resolve) => requestAnimationFrame(() => {
    const c = e.shadowRoot.querySelector("[data-chart=pipeline]");
    const [x0, x1] = [Math.round(c.width * 0.355), Math.round(c.width * 0.455)];
    const data = c.getContext("2d").getImageData(x0, 0, x1 - x0, c.height).data;
    let h = 2166136261;
    for (let i = 0; i < data.length; i += 4) h = Math.imul(h ^ (data[i] + 3 * data[i + 1] + 7 * data[i + 2]), 16777619);
    resolve({ hash: h, ms: e.view.cursorMs() });
  })));
}

test("Play draws the pipeline every animation frame: records move along the channels from one frame to the next", async () => {
  const { page, errors } = await open(browser, `${base}/index.html`);
  await seek(page, "10:00:20");
  const still = [await channelPixelsNextFrame(page), await channelPixelsNextFrame(page)];
  assert.equal(still[0].hash, still[1].hash, "paused: nothing moves");
  await page.click("#lab >> [data-action=play]");
  const frames = [];
  for (let i = 0; i < 6; i++) frames.push(await channelPixelsNextFrame(page));
  await page.click("#lab >> [data-action=play]");
  assert.equal(await page.getAttribute("#lab >> [data-action=play]", "aria-pressed"), "false");
  const moves = frames.slice(1).filter((f, i) => f.ms !== frames[i].ms);
  assert.ok(moves.length >= 4, `the cursor moved in most frames: ${frames.map((f) => f.ms)}`);
  const changed = frames.slice(1).filter((f, i) => f.ms !== frames[i].ms && f.hash !== frames[i].hash);
  assert.equal(changed.length, moves.length, `the channels changed in every frame the cursor moved: ${JSON.stringify(frames)}`);
  // A frame moves the cursor by the frame's duration times the speed (10×): a fraction of a second.
  for (const [i, f] of frames.slice(1).entries()) assert.ok(f.ms - frames[i].ms < 2000, `${frames[i].ms} → ${f.ms}`);
  assert.deepEqual(errors, []);
});

test("with reduced motion, Play jumps from event to event", async () => {
  const { page, errors } = await open(browser, `${base}/index.html`);
  await page.emulateMedia({ reducedMotion: "reduce" });
  const report = await page.$eval("#lab", (e) => e.report());
  const start = report.config.start_time_ms;
  const events = new Set(report.timeline.filter((e) => STEP_KINDS.includes(e.kind)).map((e) => e.at.ms - start));
  await seek(page, "10:00:20");
  await page.click("#lab >> [data-action=play]");
  const seen = [];
  for (let i = 0; i < 6; i++) {
    seen.push(await cursorMs(page));
    await page.waitForTimeout(400);
  }
  // In every animation frame the cursor stands on an event: Play does not animate (how many
  // jumps fall in eight frames depends on how far apart the frames come, so it is not asserted).
  const frames = [];
  for (let i = 0; i < 8; i++) frames.push((await channelPixelsNextFrame(page)).ms);
  await page.click("#lab >> [data-action=play]");
  const moved = seen.filter((ms, i) => i === 0 || ms !== seen[i - 1]);
  assert.ok(moved.length >= 2, `the cursor moved: ${seen}`);
  for (const ms of [...seen, ...frames]) assert.ok(events.has(ms), `${ms} is an event instant, not a frame of an animation`);
  assert.deepEqual(errors, []);
});

test("clicking the lag chart moves the cursor there, and the cursor is in the share link", async () => {
  const { page, errors } = await open(browser, `${base}/index.html#cursor=10:01:08`);
  assert.ok((await description(page)).text.startsWith("10:01:08."), "the link's cursor is restored");
  const canvas = await page.$("#lab >> [data-chart=replay]");
  await canvas.scrollIntoViewIfNeeded();
  const box = await canvas.boundingBox();
  const axis = await page.$eval("#lab", (e) => {
    const c = e.shadowRoot.querySelector("[data-chart=replay]");
    return { ...e.view.axes.replay, ratio: c.width / c.getBoundingClientRect().width };
  });
  // Click halfway along the clock axis.
  const x = box.x + ((axis.x0 + axis.x1) / 2) / axis.ratio;
  await page.mouse.click(x, box.y + box.height / 2);
  const ms = await cursorMs(page);
  const middle = ((axis.from_s + axis.to_s) / 2) * 1000;
  assert.ok(Math.abs(ms - middle) <= 2000, `the cursor went to ${ms}, the axis' middle is ${middle}`);
  const shown = await page.$eval("#lab", (e) => e.shadowRoot.querySelector("[data-cursor=clock]").textContent);
  assert.notEqual(shown, "10:01:08", "the cursor moved");
  // The link follows (after a short pause) and carries the cursor the page shows.
  await page.waitForFunction((want) => new URLSearchParams(location.hash.slice(1)).get("cursor") === want, shown);
  assert.deepEqual(errors, []);
});

test("dragging the crash marker on the lag chart moves the crash", async () => {
  const { page, errors } = await open(browser, `${base}/index.html`);
  const canvas = await page.$("#lab >> [data-chart=replay]");
  await canvas.scrollIntoViewIfNeeded();
  const box = await canvas.boundingBox();
  const { axis, ratio, crashS } = await page.$eval("#lab", (e) => {
    const c = e.shadowRoot.querySelector("[data-chart=replay]");
    return { axis: e.view.axes.replay, ratio: c.width / c.getBoundingClientRect().width, crashS: e.report().crash.at.s };
  });
  const xAt = (s) => box.x + (axis.x0 + ((s - axis.from_s) / (axis.to_s - axis.from_s)) * (axis.x1 - axis.x0)) / ratio;
  const y = box.y + box.height / 2;
  await page.mouse.move(xAt(crashS), y);
  await page.mouse.down();
  for (let i = 1; i <= 10; i++) await page.mouse.move(xAt(crashS + i * 6), y);
  await page.mouse.up();
  await settled(page);
  const moved = await page.$eval("#lab", (e) => e.report().crash.at.s);
  assert.ok(Math.abs(moved - (crashS + 60)) <= 2, `the crash moved from ${crashS} s to ${moved} s, about 60 s later`);
  assert.match(await page.$eval("#lab", (e) => e.shadowRoot.querySelector("[data-control=crash-at]").getAttribute("aria-valuetext")),
    new RegExp(`\\+${Math.round(moved)} s`));
  assert.deepEqual(errors, []);
});

test("acting on the diagram: a click on the source log crashes the job there, a drag of a barrier on the timeline sets the interval", async () => {
  const { page, errors } = await open(browser, `${base}/index.html`);
  // The log: its width is a page of the scenario clock (the engine says which, with the axis).
  const pipeline = await page.$("#lab >> [data-chart=pipeline]");
  await pipeline.scrollIntoViewIfNeeded();
  await settled(page);
  const log = await page.$eval("#lab", (e) => {
    const c = e.shadowRoot.querySelector("[data-chart=pipeline]");
    return { ...e.view.axes.pipeline, ratio: c.width / c.getBoundingClientRect().width, start: e.report().config.start_time_ms };
  });
  assert.ok(log.to_s > log.from_s, JSON.stringify(log));
  let box = await pipeline.boundingBox();
  // A third of the way along the log, in the middle of its rows.
  const wantS = log.from_s + (log.to_s - log.from_s) / 3;
  await page.mouse.click(box.x + (log.x0 + (log.x1 - log.x0) / 3) / log.ratio, box.y + ((log.y0 + log.y1) / 2) / log.ratio);
  await settled(page);
  const crashed = await page.$eval("#lab", (e) => ({ s: e.report().crash.at.s, cursor: e.view.cursorMs(), at: e.report().crash.at.ms - e.report().config.start_time_ms }));
  assert.ok(Math.abs(crashed.s - wantS) <= 1, `the crash at ${crashed.s} s, the click at ${wantS} s`);
  assert.equal(crashed.cursor, crashed.at + 1000, "the picture shows the job a second after its new crash");
  assert.match(await page.$eval("#lab", (e) => e.shadowRoot.querySelector("[data-control=crash-at]").getAttribute("aria-valuetext")), new RegExp(`\\+${Math.round(crashed.s)} s`));

  // The timeline: checkpoint 42's barrier, at 30 s, dragged to 10 s asks for a 10-second interval.
  await page.$eval("#lab", (e) => e.setAttribute("crash-at", "10:02:00"));
  await settled(page);
  const timeline = await page.$("#lab >> [data-chart=checkpoints]");
  await timeline.scrollIntoViewIfNeeded();
  await settled(page);
  box = await timeline.boundingBox();
  const { axis, ratio } = await page.$eval("#lab", (e) => {
    const c = e.shadowRoot.querySelector("[data-chart=checkpoints]");
    return { axis: e.view.axes.checkpoints, ratio: c.width / c.getBoundingClientRect().width };
  });
  const xAt = (s) => box.x + (axis.x0 + ((s - axis.from_s) / (axis.to_s - axis.from_s)) * (axis.x1 - axis.x0)) / ratio;
  const y = box.y + box.height / 2;
  // Hovering the timeline moves the cursor there; pressing on the barrier then drags it.
  await page.mouse.move(xAt(30), y);
  const before = await cursorMs(page);
  await page.mouse.down();
  for (const s of [26, 20, 14, 10]) await page.mouse.move(xAt(s), y);
  assert.match(await page.$eval("#lab", (e) => e.shadowRoot.querySelector("[data-readout=checkpoints]").textContent), /^checkpoint interval 10 s$/);
  await page.mouse.up();
  await settled(page);
  assert.equal(await page.$eval("#lab", (e) => e.report().config.interval_ms), 10_000);
  assert.equal(await cursorMs(page), before, "a barrier's drag does not move the cursor");
  assert.equal(await page.$eval("#lab", (e) => e.shadowRoot.querySelector("[data-control=interval]").getAttribute("aria-valuetext")), "10 s");
  // A double click on the timeline crashes the job there, to the second.
  await page.mouse.dblclick(xAt(200.4), y);
  await settled(page);
  assert.equal(await page.$eval("#lab", (e) => e.report().crash.at.s), 200);
  assert.deepEqual(errors, []);
  await page.close();
});

test("hovering a time chart far below the pipeline view shows the pipeline beside it, at the top of the window; not on a phone", async () => {
  for (const [width, height] of [[1280, 800], [390, 844]]) {
    const { page, errors } = await open(browser, `${base}/index.html`, { width, height });
    await page.evaluate(() => document.querySelector("#lab").shadowRoot.querySelector("[data-chart=checkpoints]").scrollIntoView({ block: "end" }));
    await settled(page);
    const chart = await page.$("#lab >> [data-chart=checkpoints]");
    const box = await chart.boundingBox();
    const mini = () => page.$eval("#lab", (e) => {
      const c = e.shadowRoot.querySelector("[data-mini=pipeline]");
      const r = c.getBoundingClientRect();
      const data = r.width ? c.getContext("2d").getImageData(0, 0, c.width, c.height).data : [];
      let h = 2166136261;
      for (let i = 0; i < data.length; i += 4) h = Math.imul(h ^ (data[i] + 3 * data[i + 1] + 7 * data[i + 2]), 16777619);
      return { top: r.top, bottom: r.bottom, width: r.width, hash: h };
    });
    await page.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2);
    await settled(page);
    const first = await mini();
    if (width < 700) {
      assert.equal(first.width, 0, "no copy of the pipeline on a phone");
    } else {
      const pipelineTop = await page.$eval("#lab", (e) => e.shadowRoot.querySelector("[data-chart=pipeline]").getBoundingClientRect().bottom);
      assert.ok(pipelineTop < 0, "the pipeline view itself is far above, out of the window");
      assert.ok(first.top >= 0 && first.bottom <= box.y + 1, `the copy stands in the window above the chart: ${JSON.stringify(first)}`);
      await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2);
      await settled(page);
      assert.notEqual((await mini()).hash, first.hash, "it shows the job at the hovered time");
    }
    assert.deepEqual(errors, []);
    await page.close();
  }
});

test("the playground's first screen: sliders, headline figures and the pipeline at 1280×900; its picture within 1.5 screens at 360×740", async () => {
  // The playground's top at the top of the window: where a student who scrolled to it, or came by
  // a shared link, starts.
  const toPlayground = (page) => page.evaluate(() => new Promise((r) => {
    document.querySelector("#lab").scrollIntoView({ block: "start" });
    requestAnimationFrame(() => requestAnimationFrame(r));
  }));
  {
    const { page, errors } = await open(browser, `${base}/index.html`, { width: 1280, height: 900 });
    await toPlayground(page);
    for (const selector of ["[data-control=interval]", "[data-control=state-size]", "[data-control=crash-at]", ".figures", "[data-chart=pipeline]"]) {
      const box = await (await page.$(`#lab >> ${selector}`)).boundingBox();
      assert.ok(box.y >= 0 && box.y + box.height <= 900, `${selector} is on the first screen (${box.y} to ${box.y + box.height})`);
    }
    // Moving a slider visibly changes the picture on the first screen.
    const before = await pipelinePixels(page);
    await page.focus("#lab >> [data-control=interval]");
    await page.keyboard.press("ArrowLeft");
    await settled(page);
    assert.notEqual(await pipelinePixels(page), before, "the interval slider changes the pipeline view");
    await page.screenshot({ path: shotPath("first-screen-1280x900.png") });
    assert.deepEqual(errors, []);
  }
  {
    const { page, errors } = await open(browser, `${base}/index.html`, { width: 360, height: 740 });
    await toPlayground(page);
    const box = await (await page.$("#lab >> [data-chart=pipeline]")).boundingBox();
    assert.ok(box.y < 1.5 * 740, `the pipeline starts at ${box.y} px, within a screen and a half`);
    const top = await page.evaluate(() => scrollY);
    await fullScreenshot(page, { path: shotPath("first-screens-360x740.png"), clip: { x: 0, y: top, width: 360, height: 1110 } });
    assert.deepEqual(errors, []);
  }
});

test("inline figures: charts and controls choose the views; a pipeline figure is small and works", async () => {
  const { page, errors } = await open(browser, `${base}/inline.html`, { ready: "checkpoint-lab#lag[data-ready=true]" });
  await page.waitForSelector("checkpoint-lab#small[data-ready=true]", { state: "attached" });
  await settled(page);
  const small = await (await lab(page, "#small")).boundingBox();
  assert.ok(small.height < 600, `the inline pipeline figure is ${small.height} px tall`);
  const visible = (sel, inner) => page.$eval(sel, (e, q) => {
    const node = e.shadowRoot.querySelector(q);
    return Boolean(node && node.getClientRects().length && !node.closest("[hidden]"));
  }, inner);
  assert.ok(await visible("#small", "[data-chart=pipeline]"));
  assert.ok(await visible("#small", "[data-control=crash-at]"));
  for (const hidden of ["[data-chart=replay]", "[data-control=interval]", ".figures", "[data-table=crash]"]) {
    assert.equal(await visible("#small", hidden), false, `${hidden} is not part of the inline figure`);
  }
  assert.ok((await description(page, "#small")).text.startsWith("10:01:08."), "the cursor attribute places the cursor");
  assert.ok(await visible("#lag", "[data-chart=replay]") && await visible("#lag", "[data-chart=latency]"));
  assert.equal(await visible("#lag", "[data-chart=pipeline]"), false);
  // The crash slider re-runs the small figure and redraws its pipeline.
  const before = await pipelinePixels(page, "#small");
  await page.focus("#small >> [data-control=crash-at]");
  for (let i = 0; i < 5; i++) await page.keyboard.press("ArrowRight");
  await settled(page);
  assert.notEqual(await pipelinePixels(page, "#small"), before, "moving the crash redraws the pipeline");
  // Unknown names are refused, naming the option.
  await page.$eval("#lag", (e) => e.setAttribute("charts", "replay pie"));
  assert.match(await page.$eval("#lag", (e) => e.shadowRoot.querySelector(".error").textContent), /^charts: unknown name "pie"/);
  const refused = await page.evaluate(async () => {
    const { mount } = await import("/pkg/checkpoint-lab.js");
    const out = [];
    try { await mount(document.body, { charts: ["pipeline", "radar"] }); } catch (e) { out.push(e.message); }
    const handle = await mount(document.body, { charts: "pipeline", controls: [] });
    handle.seek("10:00:58");
    out.push(handle.world().status);
    handle.seek(68_000);
    out.push(handle.world().status);
    for (const bad of ["25:00:00", "10:20:00", -1, Number.NaN, {}, "soon"]) {
      try { handle.seek(bad); out.push("accepted"); } catch (e) { out.push(e.message); }
    }
    out.push(handle.element.getBoundingClientRect().height);
    handle.destroy();
    return out;
  });
  assert.match(refused[0], /^charts: unknown name "radar"/);
  assert.equal(refused[1], "restoring");
  assert.equal(refused[2], "replaying");
  for (const message of refused.slice(3, 9)) assert.match(String(message), /^cursor: /);
  assert.ok(refused[9] < 600, `a mounted pipeline figure is ${refused[9]} px tall`);
  assert.deepEqual(errors, []);
});

test("docs/embedding.md's lesson page: two inline figures and one full component", async () => {
  const { page, errors } = await open(browser, `${base}/documented-inline.html`, { ready: "checkpoint-lab" });
  await page.waitForFunction(() => [...document.querySelectorAll("checkpoint-lab")].every((l) => l.dataset.ready));
  await settled(page);
  const views = await page.evaluate(() => [...document.querySelectorAll("checkpoint-lab")].map((lab) => {
    const shown = (q) => [...lab.shadowRoot.querySelectorAll(q)].filter((n) => n.getClientRects().length && !n.closest("[hidden]"));
    return {
      height: lab.getBoundingClientRect().height,
      charts: shown("canvas[data-chart]").map((c) => c.dataset.chart),
      controls: shown("[data-control]").filter((c) => c.closest(".control")).map((c) => c.dataset.control),
      description: lab.shadowRoot.querySelector("[data-pipeline-description]").textContent,
    };
  }));
  assert.equal(views.length, 3);
  assert.deepEqual(views[0].charts, ["pipeline"]);
  assert.deepEqual(views[0].controls, ["crash-at"]);
  assert.ok(views[0].description.startsWith("10:00:46."), views[0].description);
  assert.deepEqual(views[1].charts, ["replay"]);
  assert.deepEqual(views[1].controls, ["interval"]);
  for (const inline of views.slice(0, 2)) assert.ok(inline.height < 600, `an inline figure is ${inline.height} px tall`);
  assert.equal(views[2].charts.length, 6, "the full component shows every chart");
  // `controls` shows exactly what it names: the first figure names the live description but not
  // the cursor or Play; the full component shows them all.
  const parts = await page.evaluate(() => [...document.querySelectorAll("checkpoint-lab")].map((lab) => {
    const shown = (q) => Boolean(lab.shadowRoot.querySelector(q).getClientRects().length);
    return { cursor: shown("[data-control=cursor]"), play: shown("[data-action=play]"), description: shown("[data-pipeline-description]") };
  }));
  assert.deepEqual(parts[0], { cursor: false, play: false, description: true });
  assert.deepEqual(parts[1], { cursor: false, play: false, description: false });
  assert.deepEqual(parts[2], { cursor: true, play: true, description: true });
  // cursor="crash+1s" follows the crash: five seconds later, the figure shows 10:00:51.
  const first = "checkpoint-lab:first-of-type";
  await page.focus(`${first} >> [data-control=crash-at]`);
  for (let i = 0; i < 5; i++) await page.keyboard.press("ArrowRight");
  await settled(page);
  // The cursor's clock (the description follows it, at most every 600 ms while it moves).
  const followed = await page.$eval(first, (lab) => [lab.shadowRoot.querySelector("[data-control=crash-at] + output").textContent,
    lab.shadowRoot.querySelector("[data-cursor=clock]").textContent]);
  assert.deepEqual(followed, ["10:00:50 (+50 s)", "10:00:51"]);
  await fullScreenshot(page, { path: shotPath("documented-inline-page.png") });
  assert.deepEqual(errors, []);
});

test("while a prediction is pending the pipeline view is hidden, since it would give the answer away", async () => {
  const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Predict</title>
<script type="module" src="/pkg/checkpoint-lab.js"></script></head>
<body><checkpoint-lab exercise="replay-15s-after-barrier"></checkpoint-lab></body></html>`;
  const local = await serve({ "/predict.html": page });
  try {
    const { page: p, errors } = await open(browser, `${local.base}/predict.html`, { ready: "checkpoint-lab[data-ready=true]" });
    await settled(p);
    const shown = () => p.$eval("checkpoint-lab", (e) => e.shadowRoot.querySelector(".pipeline-figure").getClientRects().length > 0);
    assert.equal(await shown(), false, "hidden while the student predicts");
    await p.click("checkpoint-lab >> [data-exercise=reveal]");
    await settled(p);
    assert.equal(await shown(), true, "shown once the answer is revealed");
    assert.deepEqual(errors, []);
  } finally {
    local.server.close();
  }
});

test("the first picture is the pipeline view at the crash, drawn before the whole first run is in, as the whole run draws it", async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
  // Every text the pipeline view writes, with when.
  await page.addInitScript(() => {
    window.pipelineTexts = [];
    const fillText = CanvasRenderingContext2D.prototype.fillText;
    CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
      // The lab's own view: the page's figures draw theirs too.
      if (this.canvas.dataset.chart === "pipeline" && this.canvas.getRootNode().host?.id === "lab") window.pipelineTexts.push([performance.now(), String(text)]);
      return fillText.call(this, text, ...rest);
    };
  });
  await page.goto(`${base}/index.html`);
  await page.waitForSelector("body[data-ready=true]", { state: "attached" });
  const { first, run, texts } = await page.evaluate(() => {
    const view = document.querySelector("checkpoint-lab:not(.figure)").view;
    return { first: view.firstChartAt, run: view.firstRunAt, texts: window.pipelineTexts };
  });
  assert.ok(first < run, `first chart at ${first} ms, the whole first run in at ${run} ms`);
  const before = texts.filter(([t]) => t < run).map(([, text]) => text);
  const after = texts.filter(([t]) => t >= run).map(([, text]) => text);
  assert.ok(before.includes("10:00:45") && before.length > 20, before.join(" | "));
  assert.deepEqual(after, before);
  await page.close();
});

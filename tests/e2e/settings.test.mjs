// No setting is lost: values between the sliders' steps, beyond their ends and past the default
// horizon run exactly as given through attributes and mount().set(); the slider sits on the
// nearest step while the readout shows the exact value; the crash slider follows the horizon.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { serve, launch, open, settled } from "./harness.mjs";

const page = (body) => `<!doctype html><html lang="en"><head><meta charset="utf-8">
<link rel="icon" href="data:,"><title>Settings</title>
<script type="module">
  import { mount } from "/pkg/checkpoint-lab.js";
  const labs = [...document.querySelectorAll("checkpoint-lab")];
  await Promise.all(labs.map((lab) => customElements.whenDefined("checkpoint-lab").then(() => lab.whenReady())));
  window.__handle = await mount(document.getElementById("mounted"));
  document.body.dataset.ready = "true";
</script></head><body>${body}<div id="mounted"></div></body></html>`;

let server, base, browser;
before(async () => {
  ({ server, base } = await serve({
    "/settings.html": page(`
      <checkpoint-lab id="seven" interval="7s"></checkpoint-lab>
      <checkpoint-lab id="hour" interval="1h"></checkpoint-lab>
      <checkpoint-lab id="long" horizon="20m" crash-at="10:15:00"></checkpoint-lab>`),
  }));
  browser = await launch();
});
after(async () => {
  await browser?.close();
  server?.close();
});

/// What one lab ran and shows: its report's config, a figure, and a slider's position and readout.
function shown(p, id, control) {
  return p.evaluate(([id, control]) => {
    const lab = document.getElementById(id);
    const input = lab.shadowRoot.querySelector(`[data-control=${control}]`);
    const report = lab.report();
    return {
      config: report.config,
      crash: report.crash?.at.at,
      replay: report.interval_replay_events,
      slider: { value: Number(input.value), max: Number(input.max), text: input.getAttribute("aria-valuetext") },
    };
  }, [id, control]);
}

test("attributes between and beyond the slider steps run exactly as given", async () => {
  const { page: p, errors } = await open(browser, `${base}/settings.html`);
  await settled(p);
  const seven = await shown(p, "seven", "interval");
  assert.equal(seven.config.interval_ms, 7000);
  assert.equal(seven.replay, 14000, "2,000 events/s x 7 s");
  assert.equal(seven.slider.text, "7 s", "the readout shows the exact value");
  assert.equal(seven.slider.value, 3, "the thumb sits on the nearest step, 5 s");

  const hour = await shown(p, "hour", "interval");
  assert.equal(hour.config.interval_ms, 3_600_000);
  assert.equal(hour.slider.text, "1 h");
  assert.equal(hour.slider.value, hour.slider.max, "beyond the last step the thumb sits at the end");

  const long = await shown(p, "long", "crash-at");
  assert.equal(long.config.horizon_ms, 1_200_000);
  assert.equal(long.config.crash_at_ms, 36_900_000);
  assert.equal(long.crash, "10:15:00");
  assert.equal(long.slider.max, 1198, "one step per second of the twenty-minute horizon");
  assert.equal(long.slider.text, "10:15:00 (+900 s)");
  assert.deepEqual(errors, []);
});

test("mount().set() with a value between steps runs it, and moving the slider picks a step", async () => {
  const { page: p, errors } = await open(browser, `${base}/settings.html`);
  await settled(p);
  const run = await p.evaluate(async () => {
    await window.__handle.set({ interval_ms: 7000 });
    return { interval: window.__handle.report().config.interval_ms, replay: window.__handle.summary().interval_replay_events };
  });
  assert.deepEqual(run, { interval: 7000, replay: 14000 });
  await p.evaluate(() => { window.__handle.element.id = "handle"; });
  assert.equal((await shown(p, "handle", "interval")).slider.text, "7 s");
  await p.focus("#handle >> [data-control=interval]");
  await p.keyboard.press("ArrowRight");
  await settled(p);
  const moved = await shown(p, "handle", "interval");
  assert.equal(moved.config.interval_ms, 10_000, "the next step after 5 s");
  assert.equal(moved.slider.text, "10 s");
  // A choice in the command line's spelling runs, and the control shows it.
  const mode = await p.evaluate(async () => {
    await window.__handle.set({ mode: "micro-batch" });
    const root = window.__handle.element.shadowRoot;
    const select = root.querySelector("[data-control=mode]");
    const timeline = root.querySelector("[data-chart=checkpoints]");
    const figure = timeline.closest("figure");
    const summary = figure.querySelector("summary").textContent, table = figure.querySelector("table.data").getAttribute("aria-label");
    const control = (name) => root.querySelector(`[data-control=${name}]`);
    const supervisor = { label: control("heartbeat-timeout").labels[0].textContent, enabled: !control("heartbeat-timeout").disabled,
      greyed: ["failure", "restart-strategy"].filter((name) => control(name).disabled) };
    return { mode: window.__handle.report().config.mode, shown: select.value, summary, table, supervisor };
  });
  // The checkpoint timeline is the batch timeline now, in its text alternative's names too; the
  // supervisor's notice time is the one Flink control of failures that still means something.
  assert.deepEqual(mode, {
    mode: "micro_batch", shown: "micro_batch", summary: "Batch timeline: summary and data", table: "Batch timeline: data",
    supervisor: { label: "Supervisor notices after", enabled: true, greyed: ["failure", "restart-strategy"] },
  });
  // With the crash set to none, moving the crash slider brings a crash back.
  await p.evaluate(async () => { await window.__handle.set({ mode: "barrier", crash_at_ms: null }); });
  assert.equal(await p.evaluate(() => window.__handle.report().crash), null);
  await p.focus("#handle >> [data-control=crash-at]");
  await p.keyboard.press("ArrowRight");
  await settled(p);
  assert.notEqual(await p.evaluate(() => window.__handle.report().crash), null, "the slider's time runs again");
  assert.deepEqual(errors, []);
});

test("a slider moved to a setting the engine refuses shows the value chosen and says why", async () => {
  const { page: p, errors } = await open(browser, `${base}/settings.html`);
  await settled(p);
  await p.evaluate(async () => {
    await window.__handle.set({ heartbeat_interval_ms: 30_000, heartbeat_timeout_ms: 30_000 });
    window.__handle.element.id = "handle";
  });
  assert.equal((await shown(p, "handle", "heartbeat-timeout")).slider.text, "30 s");
  // The first step, 10 s, is shorter than the 30 s heartbeat interval: the run is refused.
  await p.evaluate(() => {
    const input = window.__handle.element.shadowRoot.querySelector("[data-control=heartbeat-timeout]");
    input.value = "0";
    input.dispatchEvent(new Event("input", { bubbles: true }));
  });
  await settled(p);
  const after = await p.evaluate(() => {
    const root = window.__handle.element.shadowRoot;
    const input = root.querySelector("[data-control=heartbeat-timeout]");
    return { text: input.getAttribute("aria-valuetext"), error: root.querySelector(".error").textContent, ran: window.__handle.report().config.heartbeat_timeout_ms };
  });
  assert.equal(after.text, "10 s", "the readout shows the value chosen");
  assert.match(after.error, /heartbeat_timeout_ms/, "the error names the setting");
  assert.equal(after.ran, 30_000, "the last valid run stays in place");
  assert.deepEqual(errors, []);
});

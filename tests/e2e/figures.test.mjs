// A student's laptop: ten inline figures of two charts each on one page
// (tests/e2e/fixture/ten-figures.html). They share one instance of the lab's module, each builds
// the charts it names and no other, and each keeps of its run what those charts and its controls
// need: the world's sink tables indexed only under a pipeline view, the finished run only beside
// a control whose next run reuses it. What they report is the same whatever they show. Structural
// facts only: the memory and the tasks this saves are benchmarks (scripts/bench-memory.mjs).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { serve, launch, open, settled } from "./harness.mjs";

let server, base, browser;
before(async () => {
  ({ server, base } = await serve());
  browser = await launch();
});
after(async () => {
  await browser?.close();
  server?.close();
});

/// Per figure: the charts it names, its controls, the chart canvases built and those shown, and
/// what its lab keeps besides the report.
const figures = (page) => page.evaluate(() => [...document.querySelectorAll("checkpoint-lab")].map((lab) => {
  const canvases = [...lab.shadowRoot.querySelectorAll("canvas[data-chart]")];
  return {
    charts: lab.getAttribute("charts").split(" "),
    controls: lab.getAttribute("controls").split(" "),
    built: canvases.map((c) => c.dataset.chart),
    shown: canvases.filter((c) => !c.closest("[hidden]")).map((c) => c.dataset.chart),
    kept: lab.view.lab.kept(),
  };
}));

test("ten two-chart figures share the module and build and keep only what they show", async () => {
  const { page, errors } = await open(browser, `${base}/tests/e2e/fixture/ten-figures.html`, { ready: "checkpoint-lab" });
  const wasmRequests = [];
  page.on("request", (r) => { if (r.url().endsWith(".wasm")) wasmRequests.push(r.url()); });
  await page.reload();
  await page.waitForFunction(() => [...document.querySelectorAll("checkpoint-lab")].every((lab) => lab.dataset.ready), null, { timeout: 60000 });
  await settled(page);
  // One module, fetched once, for all ten.
  assert.deepEqual(wasmRequests.map((url) => new URL(url).pathname), ["/pkg/checkpoint_lab_bg.wasm"]);
  // A pipeline view's world is indexed in the idle time after its charts are drawn.
  await page.waitForFunction(() => [...document.querySelectorAll("checkpoint-lab")]
    .filter((lab) => lab.getAttribute("charts").split(" ").includes("pipeline"))
    .every((lab) => lab.view.lab.kept().world_rows_indexed > 0), null, { timeout: 20000 });
  const all = await figures(page);
  assert.equal(all.length, 10);
  for (const figure of all) {
    const named = figure.charts.filter((name) => name !== "crash-table");
    // The pipeline view's figure holds the cursor: it is built in every view, shown only where named.
    assert.deepEqual(new Set(figure.built), new Set([...named, "pipeline"]), `${figure.charts}: only the charts named are built`);
    assert.deepEqual(new Set(figure.shown), new Set(named), `${figure.charts}: the charts named are shown`);
    const pipeline = figure.charts.includes("pipeline");
    assert.equal(figure.kept.world_rows_indexed > 0, pipeline, `${figure.charts}: the world's sink tables indexed only under a pipeline view`);
    const reruns = figure.controls.some((name) => ["crash-at", "interval", "state-size"].includes(name));
    assert.equal(figure.kept.outcome, reruns, `${figure.controls}: the finished run kept only for a control that reuses it`);
  }
  // The same report as the engine's own run of those settings, whatever is shown.
  const same = await page.evaluate(async () => {
    const { simulate } = await import("/pkg/checkpoint-lab.js");
    const out = [];
    for (const [i, config] of [[1, { interval_ms: 10_000 }], [5, { backpressure_ms: 3_000 }], [7, { mode: "micro_batch" }]]) {
      const lab = document.querySelectorAll("checkpoint-lab")[i];
      out.push(JSON.stringify(lab.report()) === JSON.stringify(await simulate(config)));
    }
    return out;
  });
  assert.deepEqual(same, [true, true, true]);
  // A figure shown another chart builds it, and what that chart needs, from its next run.
  await page.$eval("checkpoint-lab:nth-of-type(2)", (lab) => lab.setAttribute("charts", "pipeline replay"));
  await settled(page);
  const [, second] = await figures(page);
  assert.deepEqual(new Set(second.shown), new Set(["pipeline", "replay"]));
  // Indexed in the idle time after its charts are drawn, as above.
  const indexed = await page.waitForFunction(() => document.querySelectorAll("checkpoint-lab")[1].view.lab.kept().world_rows_indexed > 0, null, { timeout: 20000 })
    .then(() => true, () => false);
  assert.ok(indexed, "the pipeline view shown: the world's sink tables indexed");
  assert.deepEqual(errors, []);
});

test("a figure builds only the controls it names, and builds one named later", async () => {
  const { page, errors } = await open(browser, `${base}/tests/e2e/fixture/ten-figures.html`, { ready: "checkpoint-lab" });
  await page.waitForFunction(() => [...document.querySelectorAll("checkpoint-lab")].every((lab) => lab.dataset.ready), null, { timeout: 60000 });
  await settled(page);
  // The settings' inputs in a figure's shadow root, shown or not (the cursor's slider is not one).
  const inputs = (lab) => page.$eval(lab, (e) => [...e.shadowRoot.querySelectorAll(".control [data-control]")].map((input) => ({
    name: input.dataset.control, shown: Boolean(input.getClientRects().length && !input.closest("[hidden]")),
  })));
  // The two-chart figure with the crash slider: that slider only.
  await page.$eval("checkpoint-lab[controls=crash-at]", (lab) => { lab.id = "crash"; });
  const crash = "#crash";
  assert.deepEqual(await inputs(crash), [{ name: "crash-at", shown: true }]);
  // Two named: those two, in the table's order.
  assert.deepEqual((await inputs("checkpoint-lab[controls='interval state-size']")).map((i) => i.name), ["interval", "state-size"]);
  // An advanced setting named on its own is built, and none of "More settings" with it.
  assert.deepEqual((await inputs("checkpoint-lab[controls='alignment backpressure']")).map((i) => i.name), ["alignment", "backpressure"]);
  assert.deepEqual((await inputs("checkpoint-lab[controls=cursor]")).map((i) => i.name), []);
  // Named later: the interval's slider is built, with its readout, and runs the figure.
  await page.$eval(crash, (lab) => lab.setAttribute("controls", "crash-at interval"));
  await settled(page);
  assert.deepEqual(await inputs(crash), [{ name: "interval", shown: true }, { name: "crash-at", shown: true }]);
  const interval = "#crash >> [data-control=interval]";
  assert.equal(await page.$eval(interval, (input) => input.getAttribute("aria-valuetext")), "30 s");
  await page.focus(interval);
  await page.keyboard.press("ArrowRight");
  await settled(page);
  assert.equal(await page.$eval(crash, (lab) => lab.report().config.interval_ms), 45_000, "the step after 30 s");
  // "advanced" builds "More settings"; a control no longer named stays built, hidden.
  await page.$eval(crash, (lab) => lab.setAttribute("controls", "crash-at advanced"));
  await settled(page);
  const advanced = await inputs(crash);
  assert.deepEqual(advanced.filter((i) => i.shown && i.name === "interval"), []);
  assert.ok(advanced.some((i) => i.name === "sink") && advanced.some((i) => i.name === "alignment"), "More settings is built");
  assert.deepEqual(errors, []);
});

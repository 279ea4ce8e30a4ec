// Embedding: two independent instances on a lesson page with a hostile stylesheet and a strict
// Content-Security-Policy; attributes, events, the mount() handle and its typed errors; and the
// copy-paste examples of docs/embedding.md and the README, loaded exactly as written.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { serve, launch, open, settled, shotPath, ROOT, fullScreenshot } from "./harness.mjs";

/// The first ```html block of a document's section (from its heading to the next).
function example(file, heading) {
  const text = fs.readFileSync(path.join(ROOT, file), "utf8");
  const section = text.split(heading)[1];
  assert.ok(section, `${file} has the section ${JSON.stringify(heading)}`);
  return section.match(/```html\n([\s\S]*?)```/)[1];
}

let server, base, browser;
before(async () => {
  ({ server, base } = await serve({
    "/embedding-example.html": example("docs/embedding.md", "## Embed it in a lesson page"),
    "/readme-example.html": example("README.md", "## Embed it"),
  }));
  browser = await launch();
});
after(async () => {
  await browser?.close();
  server?.close();
});

const FIXTURE = "/tests/e2e/fixture/lesson.html";

/// Per instance: its figures and a checksum of its replay chart's pixels.
function state(page) {
  return page.evaluate(() => [...document.querySelectorAll("checkpoint-lab")].map((lab) => {
    const root = lab.shadowRoot;
    const figures = Object.fromEntries([...root.querySelectorAll("[data-figure]")].map((e) => [e.dataset.figure, e.textContent]));
    const canvas = root.querySelector("[data-chart=replay]");
    const data = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
    let h = 0, ink = 0;
    for (let i = 0; i < data.length; i += 4) { h = (h * 31 + data[i] + data[i + 1] * 7) | 0; if (data[i + 3] && data[i] < 200) ink++; }
    return { figures, h, ink, width: canvas.getBoundingClientRect().width, inputWidth: root.querySelector("input[type=range]").getBoundingClientRect().width };
  }));
}

const frames = settled;

test("two instances render under a hostile stylesheet and a strict CSP, and change independently", async () => {
  const { page, errors } = await open(browser, base + FIXTURE);
  await page.waitForFunction(() => [...document.querySelectorAll("checkpoint-lab")].every((l) => l.dataset.ready));
  // Ready is the first picture; a mounted lab may still finish its first run over later frames.
  await frames(page);
  let [a, b] = await state(page);
  // Nothing inside either component reaches past its box, whatever the host's text styles.
  const overflow = await page.evaluate(() => [...document.querySelectorAll("checkpoint-lab")].map((lab) => {
    const box = lab.shadowRoot.querySelector(".lab").getBoundingClientRect();
    const outside = [...lab.shadowRoot.querySelectorAll(".lab *")].filter((e) => {
      const r = e.getBoundingClientRect();
      return r.width > 0 && !e.closest("details:not([open])") && (r.right > box.right + 1 || r.left < box.left - 1);
    });
    return outside.map((e) => `${e.tagName.toLowerCase()}.${e.className}`).slice(0, 5);
  }));
  assert.deepEqual(overflow, [[], []], "every element stays inside its component");
  const letterSpacing = await page.evaluate(() => getComputedStyle(document.getElementById("first").shadowRoot.querySelector("label")).letterSpacing);
  assert.equal(letterSpacing, "normal", "the host's letter-spacing stops at the shadow root");
  const headingSize = await page.evaluate(() => getComputedStyle(document.getElementById("first").shadowRoot.querySelector("h3")).fontSize);
  assert.equal(headingSize, "17.6px", "sizes do not follow the host's root font size");
  for (const s of [a, b]) {
    assert.ok(s.ink > 1000, "the chart is drawn");
    assert.ok(s.width > 300, "the canvas is visible despite canvas { display: none }");
    assert.ok(s.inputWidth > 50, "the sliders keep their width despite input { width: 0 }");
  }
  assert.equal(a.figures.interval_replay_events, "10,000", "first: interval=5s");
  assert.equal(b.figures.interval_replay_events, "120,000", "second: mounted with interval_ms 60000");
  // Changing an attribute of the first re-runs and redraws the first only.
  await page.evaluate(() => document.getElementById("first").setAttribute("crash-at", "10:00:31"));
  await frames(page);
  const [a2, b2] = await state(page);
  assert.notEqual(a2.h, a.h, "the first redrew");
  assert.notEqual(a2.figures.replayed_events, a.figures.replayed_events);
  assert.equal(b2.h, b.h, "the second did not change");
  assert.deepEqual(b2.figures, b.figures);
  // The controls attribute: the first shows only interval and crash time.
  const shown = await page.evaluate(() => [...document.getElementById("first").shadowRoot.querySelectorAll(".control")].filter((c) => c.offsetParent && !c.closest("[hidden]")).map((c) => c.querySelector("label").textContent));
  assert.deepEqual(shown, ["Checkpoint interval", "Crash time"]);
  await fullScreenshot(page, { path: shotPath("fixture-hostile.png") });
  assert.deepEqual(await page.evaluate(() => window.__violations), []);
  assert.deepEqual(errors, []);
});

test("the change event carries the headline figures", async () => {
  const { page, errors } = await open(browser, base + FIXTURE);
  await page.evaluate(() => { window.__events.length = 0; document.getElementById("first").setAttribute("crash-at", "10:00:31"); });
  await page.waitForFunction(() => window.__events.length > 0);
  const event = (await page.evaluate(() => window.__events))[0];
  assert.equal(event.target, "first");
  // interval 5s: at 10:00:31 the checkpoint taken at 10:00:30 has not completed (2.1 s), so the
  // one from 10:00:25 is restored: 6 s of input, 12,000 events.
  assert.equal(event.detail.replayed_events, 12000);
  assert.equal(event.detail.interval_replay_events, 10000);
  assert.equal(typeof event.detail.duplicate_rows.append_only, "number");
  // A student's slider input fires it too, and it bubbles out of the shadow root.
  await page.evaluate(() => { window.__events.length = 0; });
  await page.focus("#first >> [data-control=interval]");
  await page.keyboard.press("ArrowRight");
  await page.waitForFunction(() => window.__events.length > 0);
  assert.equal((await page.evaluate(() => window.__events))[0].detail.interval_replay_events, 20000);
  assert.deepEqual(errors, []);
});

test("bad input throws an Error naming the field, and the instance stays usable", async () => {
  const { page, errors } = await open(browser, base + FIXTURE);
  const results = await page.evaluate(async () => {
    const cases = [
      ["interval_ms", NaN], ["interval_ms", Infinity], ["interval_ms", -1000], ["interval_ms", 1500.5],
      ["state_bytes", 2 ** 60], ["partitions", "12"], ["interval_ms", null], ["rate_per_s", 0],
      ["interval_ms", 0], ["crash_at_ms", 1], ["alignment", "sideways"], ["no_such_field", 1],
      ["sink", "spreadsheet"], ["theme", "neon"], ["scenario", "mars"], ["state_bytes", {}],
    ];
    const out = [];
    for (const [key, value] of cases) {
      try {
        window.__handle.set({ [key]: value });
        out.push([key, String(value), "no error"]);
      } catch (e) {
        out.push([key, String(value), e instanceof Error ? e.message : `not an Error: ${e}`]);
      }
    }
    return out;
  });
  for (const [key, value, message] of results) {
    const named = key === "no_such_field" ? /unknown field "no_such_field"/ : new RegExp(key);
    assert.match(message, named, `${key} = ${value}: ${message}`);
  }
  assert.match(results.find((r) => r[0] === "interval_ms" && r[1] === "0")[2], /between 100 ms and 1 h/);
  // Still usable: a good value works and the figures follow.
  const figure = await page.evaluate(async () => {
    await window.__handle.set({ interval_ms: 10000 });
    return window.__handle.summary().interval_replay_events;
  });
  assert.equal(figure, 20000);
  assert.equal((await page.evaluate(() => window.__handle.report().config.interval_ms)), 10000);
  // The module API on its own: defaults() and simulate(), with simulate()'s errors.
  const api = await page.evaluate(async () => {
    const { defaults, simulate } = await import("/pkg/checkpoint-lab.js");
    const d = await defaults();
    const r = await simulate({ interval_ms: 5000 });
    let error;
    try { await simulate({ interval_ms: "5s" }); } catch (e) { error = e instanceof Error && e.message; }
    return { interval: d.interval_ms, replay: r.interval_replay_events, error };
  });
  assert.deepEqual(api, { interval: 30000, replay: 10000, error: "interval_ms: must be a number (got the string \"5s\")" });
  assert.deepEqual(await page.evaluate(() => window.__violations), []);
  assert.deepEqual(errors, []);
});

test("view options are checked like settings, a failed mount leaves nothing, report() waits for a run", async () => {
  const { page, errors } = await open(browser, base + FIXTURE);
  const results = await page.evaluate(async () => {
    const cases = [
      ["exercises", 5], ["exercises", {}], ["exercises", true], ["controls", true], ["controls", "banana <b>x</b>"],
      ["controls", ["interval", 7]], ["sink", 5], ["theme", {}], ["scenario", ["lesson"]], ["exercise", 12],
    ];
    const out = [];
    for (const [key, value] of cases) {
      try {
        window.__handle.set({ [key]: value });
        out.push([key, "no error"]);
      } catch (e) {
        out.push([key, e instanceof Error && !(e instanceof TypeError) ? e.message : `not a plain Error: ${e}`]);
      }
    }
    return out;
  });
  for (const [key, message] of results) assert.match(message, new RegExp(`^${key}: `), `${key}: ${message}`);
  assert.match(results[4][1], /unknown name "banana"/);
  // The handle still works, and an unknown control in an attribute is shown inside the component.
  assert.equal(await page.evaluate(async () => { await window.__handle.set({ interval_ms: 10000 }); return window.__handle.summary().interval_replay_events; }), 20000);
  await page.evaluate(() => document.getElementById("first").setAttribute("controls", "banana <b>x</b>"));
  assert.match(await page.evaluate(() => document.getElementById("first").shadowRoot.querySelector(".error").textContent), /controls: unknown name "banana"/);
  // A setting's attribute out of its range is named as the author wrote it, not by its config key.
  await page.evaluate(() => { const first = document.getElementById("first"); first.setAttribute("controls", "interval crash-at"); first.setAttribute("interval", "0s"); });
  await page.waitForFunction(() => document.getElementById("first").shadowRoot.querySelector(".error").textContent.startsWith("interval:"));
  // The rest of the attributes run, the refused one at its default, and the message says so.
  assert.equal(await page.evaluate(() => document.getElementById("first").shadowRoot.querySelector(".error").textContent), "interval: must be between 100 ms and 1 h (got 0 ms). The lab shows that setting at the lesson's default instead.");
  await page.evaluate(() => document.getElementById("first").setAttribute("interval", "5s"));
  // A mount whose options are refused leaves no element and no engine behind.
  const left = await page.evaluate(async () => {
    const { mount } = await import("/pkg/checkpoint-lab.js");
    const target = document.createElement("div");
    document.body.append(target);
    let message;
    for (let i = 0; i < 3; i++) {
      try { await mount(target, { interval_ms: 0 }); } catch (e) { message = e.message; }
    }
    return { children: target.querySelectorAll("checkpoint-lab").length, message };
  });
  assert.deepEqual(left, { children: 0, message: "interval_ms: must be between 100 ms and 1 h (got 0 ms)" });
  // Before its first run an element has no report.
  assert.equal(await page.evaluate(() => { const lab = document.createElement("checkpoint-lab"); document.body.append(lab); return lab.report(); }), undefined);
  assert.deepEqual(errors, []);
});

test("hostile JavaScript values are refused with an Error, and nothing is poisoned", async () => {
  const { page, errors } = await open(browser, base + FIXTURE);
  const results = await page.evaluate(async () => {
    const engine = await import("/pkg/checkpoint-lab.js");
    const { proxy: revoked, revoke } = Proxy.revocable({}, {});
    revoke();
    const cyclic = { interval_ms: 5000 };
    cyclic.self = cyclic;
    const cases = {
      "ownKeys throws": () => new Proxy({}, { ownKeys() { throw new Error("boom"); } }),
      "getter throws": () => ({ get interval_ms() { throw new Error("boom"); } }),
      "get trap throws": () => new Proxy({ interval_ms: 1 }, { get() { throw new Error("boom"); } }),
      "revoked proxy": () => revoked,
      "symbol value": () => ({ interval_ms: Symbol("x") }),
      "bigint value": () => ({ interval_ms: 5000n }),
      "long string": () => ({ mode: "x".repeat(1_000_000) }),
      "long key": () => ({ ["k".repeat(100_000)]: 1 }),
      "many keys": () => Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i])),
      "cyclic object": () => cyclic,
      "array": () => [1, 2, 3],
      "function": () => () => 1,
    };
    const out = {};
    for (const [name, make] of Object.entries(cases)) {
      const messages = new Set();
      for (let i = 0; i < 50; i++) {
        for (const call of [(v) => engine.simulate(v), (v) => window.__handle.set(v), (v) => engine.toAttributes(v)]) {
          try { await call(make()); messages.add("no error"); } catch (e) { messages.add(e instanceof Error ? "Error" : `not an Error: ${e}`); }
        }
      }
      out[name] = [...messages];
    }
    // Still working afterwards: the module, the handle and the elements.
    const report = await engine.simulate({ interval_ms: 5000 });
    await window.__handle.set({ interval_ms: 10000 });
    return { out, replay: report.interval_replay_events, handle: window.__handle.summary().interval_replay_events };
  });
  for (const [name, kinds] of Object.entries(results.out)) assert.deepEqual(kinds, ["Error"], `${name}: ${kinds}`);
  assert.equal(results.replay, 10000);
  assert.equal(results.handle, 20000);
  assert.deepEqual(errors, []);
});

test("deep, cyclic and hostile exercises are refused with an Error naming the field, and nothing is poisoned", async () => {
  const { page, errors } = await open(browser, base + FIXTURE);
  const results = await page.evaluate(async () => {
    const engine = await import("/pkg/checkpoint-lab.js");
    const exercise = () => ({ id: "mine", title: "t", prompt: "p", kind: "number", answer: "replayed_events",
      check: "answer == replayed_events", feedback: { right: "r", wrong: "w" }, explanation: "e" });
    let deep = [];
    for (let i = 0; i < 10_000; i++) deep = [deep];
    const cyclic = exercise();
    cyclic.start = { loop: cyclic };
    const cases = {
      "10,000 nested arrays": () => deep,
      "10,000 nested arrays in a field": () => [{ ...exercise(), hints: deep }],
      "a cyclic exercise": () => [cyclic],
      "a check 1,000 parentheses deep": () => [{ ...exercise(), check: `${"(".repeat(1000)}answer${")".repeat(1000)} == replayed_events` }],
      "a throwing getter": () => [{ ...exercise(), get check() { throw new Error("boom"); } }],
      "an ownKeys trap that throws": () => [new Proxy(exercise(), { ownKeys() { throw new Error("boom"); } })],
      "a huge sparse array": () => { const a = []; a.length = 4_000_000_000; return a; },
      "a symbol": () => [{ ...exercise(), title: Symbol("t") }],
      "a BigInt": () => [{ ...exercise(), start: { interval_ms: 5000n } }],
      "a function": () => [{ ...exercise(), feedback: () => 1 }],
    };
    const out = {};
    for (const [name, make] of Object.entries(cases)) {
      try { await engine.registerExercises(make()); out[name] = "no error"; } catch (e) { out[name] = e instanceof Error ? e.message : `not an Error: ${e}`; }
    }
    const report = await engine.simulate({ interval_ms: 5000 });
    await window.__handle.set({ interval_ms: 10000 });
    return { out, ids: await engine.registerExercises([exercise()]), replay: report.interval_replay_events, handle: window.__handle.summary().interval_replay_events };
  });
  const expected = {
    "10,000 nested arrays": /^exercises\[0\](\[0\])+: nests deeper than 16 levels/,
    "10,000 nested arrays in a field": /^exercises\[0\]\.hints(\[0\])+: nests deeper than 16 levels/,
    "a cyclic exercise": /^exercises\[0\]\.start\.loop\.start\.loop.*: nests deeper than 16 levels \(or refers to itself\)/,
    "a check 1,000 parentheses deep": /^exercise "mine": check: nests deeper than 32 levels at 32$/,
    "a throwing getter": /^exercises\[0\]\.check: could not be read$/,
    "an ownKeys trap that throws": /^exercises\[0\]: its keys could not be read$/,
    "a huge sparse array": /^exercises: has 4000000000 items, more than the 1000 allowed$/,
    "a symbol": /^exercises\[0\]\.title: must be JSON data.*\(got symbol\)$/,
    "a BigInt": /^exercises\[0\]\.start\.interval_ms: must be JSON data.*\(got bigint\)$/,
    "a function": /^exercises\[0\]\.feedback: must be JSON data.*\(got a function\)$/,
  };
  for (const [name, pattern] of Object.entries(expected)) assert.match(results.out[name], pattern, name);
  assert.deepEqual(results.ids, ["mine"]);
  assert.equal(results.replay, 10000);
  assert.equal(results.handle, 20000);
  assert.deepEqual(errors, []);
});

test("a panic in the engine restarts it: simulate(), the elements and a handle keep working", async (t) => {
  // The same page over a lab that can panic on purpose (feature test-hooks), which the package's
  // lab cannot: `scripts/build-wasm.sh --test-hooks` builds it into target/pkg-hooks.
  const hooks = path.join(ROOT, "target", "pkg-hooks");
  assert.ok(fs.existsSync(path.join(hooks, "checkpoint_lab_bg.wasm")), "target/pkg-hooks is built by scripts/build-wasm.sh --test-hooks");
  const hooked = await serve({}, ROOT, { mounts: { "/pkg/": hooks } });
  t.after(() => hooked.server.close());
  const { page, errors } = await open(browser, hooked.base + FIXTURE);
  await page.waitForFunction(() => [...document.querySelectorAll("checkpoint-lab")].every((l) => l.dataset.ready));
  const messages = await page.evaluate(async () => {
    // The glue is the module the element loads (the same URL, so the same instance); the test
    // build's one extra export panics inside the engine.
    const glue = await import("/pkg/checkpoint_lab.js");
    // Play runs on an engine timer, which must stop with the old instance.
    document.getElementById("first").view.togglePlay();
    const out = [];
    for (let i = 0; i < 3; i++) {
      try { glue.__panicForTests(); out.push("no error"); } catch (e) { out.push(e instanceof WebAssembly.RuntimeError ? e.message : `not a trap: ${e}`); }
      await new Promise((r) => setTimeout(r, 100));
    }
    return out;
  });
  for (const message of messages) assert.match(message, /^unreachable( executed)?$/);
  await frames(page);
  const after = await page.evaluate(async () => {
    const engine = await import("/pkg/checkpoint-lab.js");
    const report = await engine.simulate({ interval_ms: 5000 });
    await window.__handle.set({ interval_ms: 10000 });
    const fresh = await engine.mount(document.body, { interval_ms: 20000 });
    const figures = { simulate: report.interval_replay_events, handle: window.__handle.summary().interval_replay_events, fresh: fresh.summary().interval_replay_events };
    fresh.destroy();
    return { ...figures, playing: Boolean(document.getElementById("first").view.player), reportAfter: window.__handle.report().config.interval_ms };
  });
  assert.deepEqual(after, { simulate: 10000, handle: 20000, fresh: 40000, playing: false, reportAfter: 10000 });
  // The element re-ran its own settings in the new instance and still follows its attributes.
  assert.equal((await state(page))[0].figures.interval_replay_events, "10,000");
  await page.evaluate(() => document.getElementById("first").setAttribute("interval", "30s"));
  await frames(page);
  const [first] = await state(page);
  assert.equal(first.figures.interval_replay_events, "60,000");
  assert.ok(first.ink > 1000, "the first element draws its charts again");
  await new Promise((r) => setTimeout(r, 300)); // the old Play timer would have ticked by now
  // The only console errors are the three panics' own messages.
  const others = errors.filter((e) => !e.includes("a panic forced by a test"));
  assert.deepEqual(others, []);
  assert.equal(errors.length, 3);
});

test("destroy() removes the instance and leaves the other working", async () => {
  const { page, errors } = await open(browser, base + FIXTURE);
  await page.evaluate(() => window.__handle.destroy());
  assert.equal(await page.evaluate(() => document.querySelectorAll("checkpoint-lab").length), 1);
  await page.evaluate(() => document.getElementById("first").setAttribute("interval", "30s"));
  await frames(page);
  assert.equal((await state(page))[0].figures.interval_replay_events, "60,000");
  assert.deepEqual(errors, []);
});

test("docs/embedding.md's embedding example works as written", async () => {
  const { page, errors } = await open(browser, `${base}/embedding-example.html`, { ready: "checkpoint-lab[data-ready=true]" });
  const [lab] = await state(page);
  assert.ok(lab.ink > 1000);
  assert.equal(lab.figures.interval_replay_events, "20,000");
  await page.focus("[data-control=interval]");
  await page.keyboard.press("ArrowRight");
  await page.waitForFunction(() => document.querySelector("#progress").textContent.includes("30,000"));
  assert.deepEqual(errors, []);
});

test("the README's ten-line embedding works as written", async () => {
  const { page, errors } = await open(browser, `${base}/readme-example.html`, { ready: "checkpoint-lab[data-ready=true]" });
  const [lab] = await state(page);
  assert.ok(lab.ink > 1000);
  assert.equal(lab.figures.interval_replay_events, "20,000");
  const shown = await page.evaluate(() => [...document.querySelector("checkpoint-lab").shadowRoot.querySelectorAll("[data-control]")]
    .filter((e) => e.getClientRects().length).map((e) => e.dataset.control));
  assert.ok(shown.includes("interval") && shown.includes("crash-at"), `the two controls show: ${shown}`);
  assert.deepEqual(errors, []);
});

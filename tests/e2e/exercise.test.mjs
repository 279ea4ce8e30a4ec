// Exercises in the component: a wrong answer, then the right one, with feedback, the explanation
// and the checkpointlab-exercise event; a set-the-slider exercise checked by the engine; and an
// author's exercise registered from a page module.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { serve, launch, open, settled, ROOT, BROWSER } from "./harness.mjs";

/// The complete example for authors in docs/exercises.md, served as the lesson page's exercise file.
function documentedExercises() {
  const doc = fs.readFileSync(path.join(ROOT, "docs", "exercises.md"), "utf8");
  return doc.split("# Writing exercises")[1].split("```json\n")[1].split("```")[0];
}

const page = (body, script = "") => `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'">
<title>exercise</title><script type="module" src="/pkg/checkpoint-lab.js"></script>
<script type="module" src="/tests/e2e/fixture/record-exercises.js"></script>${script}</head><body>${body}</body></html>`;

let server, base, browser;
before(async () => {
  ({ server, base } = await serve({
    "/predict.html": page(`<checkpoint-lab exercise="replay-15s-after-barrier"></checkpoint-lab>`),
    "/set.html": page(`<checkpoint-lab exercises="largest-interval-10k sla-rule"></checkpoint-lab>`),
    "/author.html": page(`<checkpoint-lab exercises-src="/author-exercises.json" exercise="replay-at-10-02-10"></checkpoint-lab>`),
    "/author-exercises.json": documentedExercises(),
  }));
  browser = await launch();
});
after(async () => {
  await browser?.close();
  server?.close();
});

const ready = { ready: "checkpoint-lab[data-ready=true]" };
const events = (p) => p.evaluate(() => window.__exerciseEvents);

test("the exercises' module loads only where exercises are shown, also when they are named later", async () => {
  // What the page fetched of the exercises' module, from its resource timing entries.
  const fetched = (p) => p.evaluate(() => performance.getEntriesByType("resource").map((e) => new URL(e.name).pathname)
    .filter((path) => path.includes("checkpoint_lab_exercises") || path.includes("exercise-panel")).sort());
  const both = ["/pkg/checkpoint_lab_exercises.js", "/pkg/checkpoint_lab_exercises_bg.wasm", "/pkg/exercise-panel.js"];
  const { page: lesson, errors } = await open(browser, `${base}/index.html`);
  assert.deepEqual(await fetched(lesson), [], "the lesson page, which shows no exercises, never fetches their module");
  // An unknown id is refused at once, from the built-in ids, without the module.
  const text = () => lesson.evaluate(() => document.querySelector("#lab").shadowRoot.querySelector(".error").textContent);
  await lesson.evaluate(() => document.querySelector("#lab").setAttribute("exercise", "no-such-exercise"));
  assert.match(await text(), /^exercise: unknown exercise "no-such-exercise"; known: replay-15s-after-barrier, /);
  const refused = await lesson.evaluate(async () => {
    const { mount } = await import("/pkg/checkpoint-lab.js");
    const handle = await mount(document.body.appendChild(document.createElement("div")));
    window.__mounted = handle;
    try { handle.set({ exercises: "replay-15s-after-barrier nope" }); return "no error"; } catch (e) { return e.message; }
  });
  assert.match(refused, /^exercise: unknown exercise "nope"/);
  assert.deepEqual(await fetched(lesson), [], "nothing refused loads the module");
  // Named after the element is up: the module loads, then the panel shows; set()'s Promise
  // waits for it.
  const shown = await lesson.evaluate(async () => {
    await window.__mounted.set({ exercise: "crash-before-completion" });
    return window.__mounted.element.shadowRoot.querySelector(".exercise").textContent;
  });
  assert.match(shown, /Exercise 1 of 1/);
  assert.deepEqual(await fetched(lesson), both);
  await lesson.evaluate(() => document.querySelector("#lab").setAttribute("exercise", "replay-15s-after-barrier"));
  await lesson.waitForSelector("[data-exercise=answer]");
  assert.equal(await text(), "", "the error said before is gone with the run the change started");
  assert.deepEqual(errors, []);
  await lesson.close();
  const { page: practice } = await open(browser, `${base}/predict.html`, ready);
  assert.deepEqual(await fetched(practice), both, "a page showing an exercise from the start fetches it");
  await practice.close();
});

test("an exercises' module that cannot be loaded is said inside the component, and stays said", { skip: BROWSER !== "chromium" && "needs request interception" }, async () => {
  const p = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await p.route("**/checkpoint_lab_exercises_bg.wasm", (route) => route.abort());
  await p.goto(`${base}/predict.html`);
  await p.waitForSelector("checkpoint-lab[data-ready=true]", { state: "attached" });
  const error = () => p.evaluate(() => document.querySelector("checkpoint-lab").shadowRoot.querySelector(".error").textContent);
  await p.waitForFunction(() => /^exercises: could not be loaded/.test(document.querySelector("checkpoint-lab").shadowRoot.querySelector(".error").textContent));
  // A later run keeps it said; the lab itself works.
  await p.evaluate(() => document.querySelector("checkpoint-lab").setAttribute("interval", "10s"));
  await p.waitForFunction(() => document.querySelector("checkpoint-lab").summary()?.interval_replay_events === 20000);
  assert.match(await error(), /^exercises: could not be loaded/);
  // Named no more, it is said no more.
  await p.evaluate(() => document.querySelector("checkpoint-lab").removeAttribute("exercise"));
  await p.waitForFunction(() => document.querySelector("checkpoint-lab").shadowRoot.querySelector(".error").textContent === "");
  await p.close();
});

test("a prediction: wrong, then right, with feedback and events", async () => {
  const { page: p, errors } = await open(browser, `${base}/predict.html`, ready);
  assert.match(await p.textContent("[data-exercise=answer] >> xpath=../.."), /How many events/);
  assert.equal(await p.isVisible("[data-figure=replayed_events]"), false, "the figure that gives the answer away is hidden");
  await p.fill("[data-exercise=answer]", "12345");
  await p.click("[data-exercise=check]");
  assert.match(await p.textContent("[data-exercise=feedback]"), /Not quite/);
  assert.deepEqual(await events(p), [{ id: "replay-15s-after-barrier", correct: false, attempts: 1 }]);
  await p.click("[data-exercise=hint]");
  assert.match(await p.textContent(".hints"), /last completed checkpoint/);
  await p.fill("[data-exercise=answer]", "30000");
  await p.click("[data-exercise=check]");
  assert.match(await p.textContent("[data-exercise=feedback]"), /Right/);
  assert.match(await p.textContent("[data-exercise=explanation]"), /1,060,000/);
  assert.deepEqual((await events(p))[1], { id: "replay-15s-after-barrier", correct: true, attempts: 2 });
  assert.equal(await p.isVisible("[data-figure=replayed_events]"), true, "solved: the figures show");
  assert.deepEqual(errors, []);
});

test("set the slider: the engine checks the student's settings", async () => {
  const { page: p, errors } = await open(browser, `${base}/set.html`, ready);
  assert.match(await p.textContent(".exercise .progress"), /Exercise 1 of 2/);
  await p.click("[data-exercise=check]");
  assert.equal((await events(p))[0].correct, false, "30 s replays 60,000: over the budget");
  await p.focus("[data-control=interval]");
  for (let i = 0; i < 4; i++) await p.keyboard.press("ArrowLeft"); // 30 s → 5 s
  await settled(p);
  assert.equal(await p.$eval("[data-control=interval]", (e) => e.getAttribute("aria-valuetext")), "5 s");
  await p.click("[data-exercise=check]");
  assert.equal((await events(p))[1].correct, true);
  await p.click("[data-exercise=next]");
  await settled(p);
  assert.match(await p.textContent(".exercise h3"), /interval rule/);
  await p.click("[data-exercise=reveal]");
  await settled(p);
  assert.equal(await p.$eval("[data-control=interval]", (e) => e.getAttribute("aria-valuetext")), "10 s", "reveal applies the solution");
  assert.deepEqual(errors, []);
});

test("docs/exercises.md's exercise for authors, loaded with exercises-src", async () => {
  const { page: p, errors } = await open(browser, `${base}/author.html`, ready);
  assert.match(await p.textContent(".exercise h3"), /A later crash/);
  await p.fill("[data-exercise=answer]", "20000");
  await p.click("[data-exercise=check]");
  assert.deepEqual(await events(p), [{ id: "replay-at-10-02-10", correct: true, attempts: 1 }]);
  assert.deepEqual(errors, []);
});

test("the practice page carries every built-in exercise", async () => {
  const { page: p, errors } = await open(browser, `${base}/exercises.html`);
  const builtIn = await p.evaluate(async () => (await import("/pkg/checkpoint-lab.js")).exerciseIds());
  assert.equal(builtIn.length, 16);
  assert.match(await p.textContent(".exercise .progress"), new RegExp(`Exercise 1 of ${builtIn.length}`));
  await p.click("[data-exercise=next]");
  assert.match(await p.textContent(".exercise h3"), /between barrier and completion/);
  assert.deepEqual(errors, []);
});

test("progress survives a reload, the list jumps between exercises, and reset forgets it", async () => {
  const { page: p, errors } = await open(browser, `${base}/predict.html`, ready);
  assert.equal(await p.isVisible("[data-panel=export]"), false, "the export panel stays hidden while a prediction is pending");
  await p.fill("[data-exercise=answer]", "30000");
  await p.click("[data-exercise=check]");
  assert.match(await p.textContent(".exercise .progress"), /1 solved/);
  await p.reload();
  await p.waitForSelector("checkpoint-lab[data-ready=true]", { state: "attached" });
  await p.waitForSelector("[data-exercise=explanation]");
  assert.match(await p.textContent(".exercise .progress"), /1 solved/, "solved is remembered after a reload");
  assert.equal(await p.isVisible("[data-figure=replayed_events]"), true, "a solved prediction shows the figures");
  const stored = () => p.evaluate(() => localStorage.getItem("checkpoint-lab:exercise:replay-15s-after-barrier"));
  // Reset asks first, inside the panel; Cancel keeps everything.
  await p.click("[data-exercise=reset-progress]");
  assert.match(await p.textContent("[data-exercise=reset-question]"), /Forget your progress.*cannot be undone/);
  assert.match(await p.textContent(".exercise .progress"), /1 solved/, "asking forgets nothing");
  assert.notEqual(await stored(), null);
  await p.click("[data-exercise=reset-cancel]");
  assert.equal(await p.$("[data-exercise=reset-question]"), null, "Cancel takes the question away");
  assert.match(await p.textContent(".exercise .progress"), /1 solved/, "Cancel keeps the progress");
  assert.notEqual(await stored(), null);
  assert.equal(await p.evaluate(() => document.querySelector("checkpoint-lab").shadowRoot.activeElement?.dataset.exercise), "reset-progress", "focus returns to the reset button");
  // Escape cancels too; then the confirmed reset forgets.
  await p.click("[data-exercise=reset-progress]");
  await p.keyboard.press("Escape");
  assert.equal(await p.$("[data-exercise=reset-question]"), null);
  assert.match(await p.textContent(".exercise .progress"), /1 solved/);
  await p.click("[data-exercise=reset-progress]");
  await p.click("[data-exercise=reset-confirm]");
  assert.match(await p.textContent(".exercise .progress"), /0 solved/);
  assert.equal(await stored(), null);

  const { page: q } = await open(browser, `${base}/set.html`, ready);
  const titles = await q.$$eval("[data-exercise=list] option", (os) => os.map((o) => o.textContent));
  assert.equal(titles.length, 2);
  await q.selectOption("[data-exercise=list]", "1");
  await settled(q);
  assert.match(await q.textContent(".exercise .progress"), /Exercise 2 of 2/);
  assert.match(await q.textContent(".exercise h3"), new RegExp(titles[1].replace(/^2\. /, "").replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
  assert.deepEqual(errors, []);
});

test("a common wrong answer gets its own diagnosis: 90,000 counts from checkpoint 41", async () => {
  const { page: p, errors } = await open(browser, `${base}/predict.html`, ready);
  await p.fill("[data-exercise=answer]", "90000");
  await p.click("[data-exercise=check]");
  const feedback = await p.textContent("[data-exercise=feedback]");
  assert.match(feedback, /checkpoint 41/);
  assert.doesNotMatch(feedback, /Not quite/, "the diagnosis replaces the general sentence");
  assert.equal(await p.getAttribute("[data-exercise=feedback]", "data-mistake"), "0");
  assert.deepEqual(await events(p), [{ id: "replay-15s-after-barrier", correct: false, attempts: 1 }]);
  // Another mistake, another diagnosis: one partition's share.
  await p.fill("[data-exercise=answer]", "2500");
  await p.click("[data-exercise=check]");
  assert.match(await p.textContent("[data-exercise=feedback]"), /one partition's share/);
  // A wrong answer that is no listed mistake gets the general sentence.
  await p.fill("[data-exercise=answer]", "12345");
  await p.click("[data-exercise=check]");
  assert.match(await p.textContent("[data-exercise=feedback]"), /Not quite/);
  assert.equal(await p.getAttribute("[data-exercise=feedback]", "data-mistake"), null);
  assert.deepEqual(errors, []);
});

test("the page remembers the exercise the student was on, and storage that throws is tolerated", async () => {
  const { page: p, errors } = await open(browser, `${base}/set.html`, ready);
  assert.match(await p.textContent(".exercise .progress"), /Exercise 1 of 2/);
  await p.click("[data-exercise=next]");
  await settled(p);
  assert.equal(await p.evaluate(() => localStorage.getItem("checkpoint-lab:exercise-current")), "sla-rule");
  await p.reload();
  await p.waitForSelector("checkpoint-lab[data-ready=true]", { state: "attached" });
  await p.waitForSelector(".exercise h3");
  await settled(p);
  assert.match(await p.textContent(".exercise .progress"), /Exercise 2 of 2/, "restored after a reload");
  assert.match(await p.textContent(".exercise h3"), /interval rule/);
  assert.deepEqual(errors, []);
  await p.close();

  // Storage that throws on every call: the panel starts at the first exercise and works.
  const q = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const qErrors = [];
  q.on("pageerror", (err) => qErrors.push(String(err)));
  await q.addInitScript(() => {
    for (const name of ["getItem", "setItem", "removeItem"]) {
      Storage.prototype[name] = () => { throw new DOMException("refused", "SecurityError"); };
    }
  });
  await q.goto(`${base}/set.html`);
  await q.waitForSelector("checkpoint-lab[data-ready=true]", { state: "attached" });
  await q.waitForSelector(".exercise h3");
  assert.match(await q.textContent(".exercise .progress"), /Exercise 1 of 2/);
  await q.click("[data-exercise=next]");
  await settled(q);
  assert.match(await q.textContent(".exercise .progress"), /Exercise 2 of 2/);
  await q.click("[data-exercise=reset-progress]");
  await q.click("[data-exercise=reset-confirm]");
  assert.match(await q.textContent(".exercise .progress"), /0 solved/);
  assert.deepEqual(qErrors, []);
  await q.close();
});

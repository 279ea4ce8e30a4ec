// End to end in headless Chromium: the lesson page holds the element's first screen in its HTML
// (a declarative shadow root) with the pipeline view of the default scenario inline, so the
// browser paints both before any script runs. Its controls stand at the defaults with their
// readouts, inert; the picture stands where the engine will draw the pipeline view, in the page's
// theme, and goes once the canvas is drawn. The written screen is what the element builds
// (scripts/first-screen.mjs writes it, and fails this suite when stale). A shared link never
// shows it: there a module of its own draws the first chart before the lab's is fetched. A
// module that cannot load is said on the page.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import { serve, launch, shotPath } from "./harness.mjs";
import { firstScreenBlock, writtenBlock, policyHashes, withPolicy, SOURCE_ROUTES, PAGE } from "../../scripts/first-screen.mjs";

let server, base, browser;
before(async () => {
  ({ server, base } = await serve(SOURCE_ROUTES));
  browser = await launch();
});
after(async () => {
  await browser?.close();
  server?.close();
});

/// A new page at 1280 × 900, and the errors thrown in it.
async function watchedPage(options = {}) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, ...options });
  const errors = [];
  page.on("pageerror", (err) => errors.push(String(err)));
  return { page, errors };
}

/// A page of the lesson whose engine module is held back until `release()` (or fails to load
/// with `fail`).
async function heldBack(url, { colorScheme = "light", fail = false } = {}) {
  const { page, errors } = await watchedPage({ colorScheme });
  let release;
  const gate = new Promise((resolve) => (release = resolve));
  await page.route("**/checkpoint_lab_bg.wasm", async (route) => {
    await gate;
    if (fail) await route.fulfill({ status: 404, body: "not found" });
    else await route.continue();
  });
  await page.goto(url);
  await page.waitForFunction(() => document.querySelector("#lab")?.shadowRoot?.querySelector(".lab:not(.first-screen)"));
  return { page, errors, release };
}

/// What the first screen shows: whether it is inert, the picture shown (its theme and whether
/// it has loaded), the main readouts and the pipeline canvas's box within the lab.
function firstScreen(page) {
  return page.evaluate(() => {
    const lab = document.querySelector("#lab");
    const root = lab.shadowRoot.querySelector(".lab");
    const slot = lab.shadowRoot.querySelector("slot.first-picture");
    const shown = slot?.assignedElements().find((picture) => picture.getBoundingClientRect().width > 0);
    // Within the lab: the figures above it on the lesson page grow as their own runs come in.
    const origin = lab.getBoundingClientRect();
    const box = (e) => { const r = e?.getBoundingClientRect(); return r && [r.x - origin.x, r.y - origin.y, r.width, r.height].map(Math.round); };
    return {
      inert: root.inert,
      busy: root.getAttribute("aria-busy"),
      written: root.classList.contains("first-screen"),
      picture: shown ? { theme: shown.dataset.theme, box: box(shown) } : null,
      canvas: box(lab.shadowRoot.querySelector("[data-chart=pipeline]")),
      readouts: [...lab.shadowRoot.querySelectorAll(".controls .readout")].slice(0, 3).map((o) => o.textContent),
      thumbs: ["interval", "state-size", "crash-at"].map((n) => lab.shadowRoot.querySelector(`[data-control=${n}]`).value),
      cursor: lab.shadowRoot.querySelector("[data-cursor=clock]").textContent,
    };
  });
}

test("before the engine loads: the first screen at the defaults, the page's picture over the pipeline canvas", async () => {
  const { page, errors, release } = await heldBack(`${base}/index.html`);
  const before = await firstScreen(page);
  await page.screenshot({ path: shotPath("first-screen-before-engine.png") });
  assert.equal(before.inert, true, "the controls do not answer before the engine can run");
  assert.equal(before.busy, "true");
  assert.equal(before.written, false, "the element's own view replaced the page's");
  assert.equal(before.picture?.theme, "light", "the light picture, and only it, is shown");
  assert.deepEqual(before.picture.box, before.canvas, "the picture covers the canvas's box exactly");
  assert.deepEqual(before.readouts, ["30 s", "2 GB", "10:00:45 (+45 s)"]);
  assert.equal(before.cursor, "10:00:45");
  // The dark picture is neither shown nor fetched in the light theme.
  const dark = await page.evaluate(() => performance.getEntriesByType("resource").some((e) => e.name.endsWith("first-picture-dark.svg")));
  assert.equal(dark, false, "the dark picture loads only where it is shown");

  release();
  await page.waitForSelector("body[data-ready=true]", { state: "attached" });
  const after = await firstScreen(page);
  assert.equal(after.inert, false);
  assert.equal(after.busy, null);
  assert.equal(after.picture, null, "the engine's canvas replaces the picture");
  // The controls stand where they stood: the defaults, as the engine formats them.
  assert.deepEqual(after.readouts, before.readouts);
  assert.deepEqual(after.thumbs, before.thumbs);
  assert.equal(after.cursor, before.cursor);
  assert.deepEqual(after.canvas, before.canvas, "the first screen did not move");
  // The page's defaults (from the settings table) are the engine's.
  const [engine, table] = await page.evaluate(async () => {
    const { defaults } = await import("/pkg/checkpoint-lab.js");
    const { SETTINGS } = await import("/pkg/settings.js");
    return [await defaults(), Object.fromEntries(SETTINGS.map((s) => [s.key, s.default]))];
  });
  // The same keys and values, in whichever order each lists them.
  assert.deepEqual(table, engine, "settings.js holds the engine's defaults");
  assert.deepEqual(errors, []);
  await page.close();
});

test("the dark theme shows the dark picture", async () => {
  const { page, release } = await heldBack(`${base}/index.html`, { colorScheme: "dark" });
  const screen = await firstScreen(page);
  assert.equal(screen.picture?.theme, "dark");
  release();
  await page.close();
});

test("a shared link, another theme or a narrow page never shows the default scenario's picture", async () => {
  for (const [url, options] of [
    [`${base}/index.html#interval=5s`, {}],
    [`${base}/index.html#cursor=10:01:00`, {}],
  ]) {
    const { page, release } = await heldBack(url, options);
    await page.waitForTimeout(300);
    // A picture the page's head drew from the link (a canvas, see below) may stand there.
    const defaults = await page.evaluate(() => [...document.querySelector("#lab").querySelectorAll(":scope > [slot=first-picture]")]
      .filter((picture) => picture.localName !== "canvas" && picture.getBoundingClientRect().width > 0).length);
    assert.equal(defaults, 0, url);
    release();
    await page.waitForSelector("body[data-ready=true]", { state: "attached" });
    await page.close();
  }
  const page = await browser.newPage({ viewport: { width: 360, height: 800 } });
  let release;
  const gate = new Promise((resolve) => (release = resolve));
  await page.route("**/checkpoint_lab_bg.wasm", async (route) => { await gate; await route.continue(); });
  await page.goto(`${base}/index.html`);
  await page.waitForFunction(() => document.querySelector("#lab")?.shadowRoot?.querySelector(".lab:not(.first-screen)"));
  assert.equal((await firstScreen(page)).picture, null, "the compact layout has no wide picture");
  release();
  await page.close();
});

test("a shared link: the page's head draws the first chart from the first chart's module before the element's view is built, and the element keeps it", async () => {
  const url = `${base}/index.html#interval=5s&crash-at=10:01:10&sink=upsert`;
  const { page, errors } = await watchedPage();
  // The page's script (and with it the element) is held back: what shows then is the head's.
  let releaseScript, releaseLab;
  const scriptGate = new Promise((resolve) => (releaseScript = resolve));
  const labGate = new Promise((resolve) => (releaseLab = resolve));
  await page.route("**/pkg/lesson-page.js", async (route) => { await scriptGate; await route.continue(); });
  await page.route("**/checkpoint_lab_bg.wasm", async (route) => { await labGate; await route.continue(); });
  await page.goto(url, { waitUntil: "commit" });
  await page.waitForFunction(() => document.documentElement.dataset.firstChart !== undefined);
  const headOnly = await page.evaluate(() => {
    const lab = document.querySelector("#lab");
    const canvas = lab.querySelector(":scope > canvas[slot=first-picture]");
    const r = canvas.getBoundingClientRect();
    const visible = (e) => getComputedStyle(e).visibility === "visible";
    return {
      defined: Boolean(customElements.get("checkpoint-lab")), shown: visible(canvas) && r.width > 0,
      controlsShown: [...lab.shadowRoot.querySelectorAll(".controls .readout")].some((e) => visible(e) && e.getBoundingClientRect().width > 0),
      pictures: lab.querySelectorAll(":scope > [slot=first-picture]").length,
      image: canvas.toDataURL(), blank: (() => { const c = document.createElement("canvas"); [c.width, c.height] = [canvas.width, canvas.height]; return c.toDataURL(); })(),
    };
  });
  await page.screenshot({ path: shotPath("first-chart-by-head.png") });
  assert.equal(headOnly.defined, false, "drawn before the element is defined");
  assert.equal(headOnly.shown, true, "the head's drawing is shown");
  assert.equal(headOnly.controlsShown, false, "the first screen's controls, at the defaults, are hidden");
  assert.equal(headOnly.pictures, 1, "the default scenario's picture is taken away");
  assert.notEqual(headOnly.image, headOnly.blank);

  releaseScript();
  await page.waitForFunction(() => document.querySelector("#lab").built?.firstChartAt !== undefined);
  const before = await firstScreen(page);
  const by = await page.evaluate(() => document.querySelector("#lab").built.firstChartBy);
  await page.screenshot({ path: shotPath("first-chart-before-lab.png") });
  assert.equal(by, "page");
  assert.equal(before.inert, true, "the controls wait for the lab");
  assert.equal(before.picture?.theme, "light", "the element shows the head's drawing in its slot");
  assert.deepEqual(before.readouts, ["5 s", "2 GB", "10:01:10 (+70 s)"], "the controls stand at the link's settings");
  assert.equal(before.cursor, "10:01:10", "the cursor stands at the crash the chart shows");

  releaseLab();
  await page.waitForSelector("body[data-ready=true]", { state: "attached" });
  const after = await firstScreen(page);
  const late = await page.evaluate(() => {
    const lab = document.querySelector("#lab");
    const canvas = lab.shadowRoot.querySelector("[data-chart=pipeline]");
    const at = (name) => performance.getEntriesByType("resource").find((e) => e.name.endsWith(name))?.startTime;
    return {
      image: canvas.toDataURL(), size: [canvas.width, canvas.height], firstChartAt: lab.view.firstChartAt,
      labRequested: at("/checkpoint_lab_bg.wasm"), firstRequested: at("/checkpoint_lab_first_bg.wasm"),
    };
  });
  assert.ok(late.firstRequested < late.firstChartAt, "the first chart's module came first");
  assert.ok(late.labRequested >= late.firstChartAt, "the lab's module is fetched once the first chart is drawn");
  assert.deepEqual(late.size, [1052, 330], "the lab's canvas is the head's drawing's size here");
  assert.equal(late.image, headOnly.image, "the lab's whole run draws the very picture the head drew");
  assert.equal(after.picture, null, "the drawing gives way to the lab's canvas");
  assert.deepEqual(after.readouts, before.readouts);
  assert.deepEqual(after.thumbs, before.thumbs);
  assert.equal(after.cursor, before.cursor);
  assert.deepEqual(errors, []);
  await page.close();

  // Narrower than the wide picture's layout, the head leaves it to the element, which draws the
  // first chart on its own canvas with the first chart's module before the lab's is fetched.
  const phone = await browser.newPage({ viewport: { width: 640, height: 900 } });
  const phoneErrors = [];
  phone.on("pageerror", (err) => phoneErrors.push(String(err)));
  await phone.goto(url);
  await phone.waitForSelector("body[data-ready=true]", { state: "attached" });
  const seen = await phone.evaluate(() => ({
    by: document.querySelector("#lab").view.firstChartBy,
    head: document.documentElement.dataset.firstChart,
    readout: document.querySelector("#lab").shadowRoot.querySelector(".controls .readout").textContent,
  }));
  assert.deepEqual(seen, { by: "first-chart", head: undefined, readout: "5 s" });
  assert.deepEqual(phoneErrors, []);
  await phone.close();

  // The lesson page as written fetches no first-chart module: its picture is in the HTML.
  const plain = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await plain.goto(`${base}/index.html`);
  await plain.waitForSelector("body[data-ready=true]", { state: "attached" });
  const fetched = await plain.evaluate(() => performance.getEntriesByType("resource").some((e) => e.name.includes("checkpoint_lab_first")));
  assert.equal(fetched, false);
  await plain.close();
});

test("a shared link: the page's head compiles the first chart's module while the HTML is parsed, and the element instantiates that very module, whichever comes first", async () => {
  // Either the head draws before the page's script runs (the script held back until it has), or
  // the element is defined before the compilation is in (the module held back until it is), and
  // then awaits that compilation rather than fetching the module again.
  for (const first of ["head", "element"]) {
    const { page, errors } = await watchedPage();
    // Every instantiation of a compiled module, in order.
    await page.addInitScript(() => {
      window.instantiated = [];
      WebAssembly.Instance = new Proxy(WebAssembly.Instance, {
        construct(target, args) {
          window.instantiated.push(args[0]);
          return Reflect.construct(target, args);
        },
      });
      const instantiate = WebAssembly.instantiate;
      WebAssembly.instantiate = (source, imports) => {
        if (source instanceof WebAssembly.Module) window.instantiated.push(source);
        return instantiate(source, imports);
      };
    });
    let release;
    const gate = new Promise((resolve) => (release = resolve));
    await page.route(first === "head" ? "**/pkg/lesson-page.js" : "**/checkpoint_lab_first_bg.wasm", async (route) => { await gate; await route.continue(); });
    await page.goto(`${base}/index.html#interval=5s&crash-at=10:01:10`, { waitUntil: "commit" });
    if (first === "head") await page.waitForFunction(() => document.documentElement.dataset.firstChart !== undefined);
    else await page.waitForFunction(() => customElements.get("checkpoint-lab"));
    release();
    await page.waitForSelector("body[data-ready=true]", { state: "attached" });
    const seen = await page.evaluate(() => {
      const early = globalThis[Symbol.for("checkpoint-lab.first-chart-module")];
      const fetched = performance.getEntriesByType("resource").filter((e) => e.name.endsWith("/checkpoint_lab_first_bg.wasm"));
      return {
        compiled: early?.module instanceof WebAssembly.Module,
        glue: typeof early?.glue?.drawFirstChart,
        usedByElement: window.instantiated.includes(early?.module),
        fetches: fetched.length,
        fetchedBeforeElement: fetched[0]?.startTime < performance.getEntriesByName(document.querySelector("script[type=module][src]").src)[0]?.startTime,
        by: document.querySelector("#lab").view.firstChartBy,
        // A link with no sink: the head's drawing highlights the sink the lab highlights by default.
        sameAsLab: early?.drawn ? early.drawn.canvas.toDataURL() === document.querySelector("#lab").shadowRoot.querySelector("[data-chart=pipeline]").toDataURL() : null,
      };
    });
    const expected = first === "head" ? { by: "page", sameAsLab: true } : { by: "first-chart", sameAsLab: null };
    assert.deepEqual(seen, { compiled: true, glue: "function", usedByElement: true, fetches: 1, fetchedBeforeElement: true, ...expected }, first);
    assert.deepEqual(errors, [], first);
    await page.close();
  }
});

test("a page that leaves something else where the first chart's module is looked for still gets its first chart from that module", async () => {
  const cases = {
    "nothing usable, a failed compilation": () => {
      const compiled = Promise.reject(new Error("compile failed"));
      compiled.catch(() => {});
      return { module: {}, glue: {}, compiled };
    },
    // A compiled module, but not the first chart's (an empty one), with a glue that throws.
    "another module": () => {
      const empty = new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));
      return { module: empty, compiled: Promise.resolve(empty), glue: { initSync() { throw new Error("not this module"); }, drawFirstChart() { throw new Error("never called"); } } };
    },
  };
  for (const [name, make] of Object.entries(cases)) {
    const { page, errors } = await watchedPage();
    // Set before the page's own head script, which cannot replace it.
    await page.addInitScript(`Object.defineProperty(globalThis, Symbol.for("checkpoint-lab.first-chart-module"), { value: (${make})(), writable: false });`);
    await page.goto(`${base}/index.html#interval=5s&crash-at=10:01:10`);
    await page.waitForSelector("body[data-ready=true]", { state: "attached" });
    const seen = await page.evaluate(() => {
      const lab = document.querySelector("#lab");
      return { by: lab.view.firstChartBy, readout: lab.shadowRoot.querySelector(".controls .readout").textContent };
    });
    assert.deepEqual(seen, { by: "first-chart", readout: "5 s" }, name);
    assert.deepEqual(errors, [], name);
    await page.close();
  }
});

/// The lesson page with no script run but its inline one: what the browser paints from the HTML
/// alone, before any module has arrived (their requests are held, not failed: a page whose
/// script failed to load says so, see student.test.mjs).
async function withoutModules(url, { width = 1280, colorScheme = "light" } = {}) {
  const page = await browser.newPage({ viewport: { width, height: 900 }, colorScheme });
  const errors = [];
  page.on("console", (msg) => { if (msg.type() === "error" && !msg.text().startsWith("Failed to load resource")) errors.push(msg.text()); });
  await page.route("**/*.js", () => new Promise(() => {}));
  await page.goto(url, { waitUntil: "commit" });
  // The page's stylesheets block its first paint: wait for them as the browser does before it
  // paints (on a busy machine they may arrive after the HTML is parsed).
  await page.waitForFunction(() => document.readyState !== "loading"
    && [...document.querySelectorAll("link[rel=stylesheet]")].every((link) => link.sheet)
    && [...document.images].every((img) => img.loading === "lazy" || img.complete));
  return { page, errors };
}

test("from the HTML alone, before any module runs: the first screen at the defaults and the picture over the canvas's box", async () => {
  for (const [colorScheme, theme] of [["light", "light"], ["dark", "dark"]]) {
    const { page, errors } = await withoutModules(`${base}/index.html`, { colorScheme });
    const screen = await firstScreen(page);
    await page.screenshot({ path: shotPath(`first-screen-html-${theme}.png`) });
    assert.equal(screen.written, true, "the page's own first screen");
    assert.equal(screen.inert, true);
    assert.equal(screen.picture?.theme, theme, `the ${theme} picture, and only it`);
    assert.deepEqual(screen.picture.box, screen.canvas, "the picture covers the canvas's box exactly");
    assert.deepEqual(screen.readouts, ["30 s", "2 GB", "10:00:45 (+45 s)"]);
    const background = await page.evaluate(() => getComputedStyle(document.querySelector("#lab").shadowRoot.querySelector(".lab")).backgroundColor);
    assert.equal(background, theme === "dark" ? "rgb(24, 26, 31)" : "rgb(255, 255, 255)", "the component's styles, in the reader's theme");
    assert.equal(await page.evaluate(() => document.documentElement.dataset.sharedLink), undefined);
    assert.deepEqual(errors, [], "the inline script runs under the page's policy");
    await page.close();
  }
  // The written view's thumbs are where the element puts them.
  const { page, release } = await heldBack(`${base}/index.html`);
  const built = await firstScreen(page);
  release();
  await page.close();
  const { page: html } = await withoutModules(`${base}/index.html`);
  const written = await firstScreen(html);
  await html.close();
  assert.deepEqual(written.thumbs, built.thumbs);
  assert.deepEqual(written.readouts, built.readouts);
  assert.deepEqual(written.canvas, built.canvas, "the written screen lays out as the element's");
  assert.deepEqual(written.picture.box, built.picture.box);
});

test("a shared link leaves the page's first screen out of layout, its space kept, until the element has built its own", async () => {
  for (const width of [1280, 360]) {
    const { page: written } = await withoutModules(`${base}/index.html`, { width });
    const screenHeight = await written.evaluate(() => document.querySelector("#lab").getBoundingClientRect().height);
    await written.close();
    const { page, errors } = await withoutModules(`${base}/index.html#interval=5s`, { width });
    const state = await page.evaluate(() => {
      const lab = document.querySelector("#lab");
      const style = getComputedStyle(lab);
      const screen = lab.shadowRoot.querySelector(".first-screen");
      return {
        link: document.documentElement.dataset.sharedLink, visibility: style.visibility, contentVisibility: style.contentVisibility,
        display: getComputedStyle(screen).display, boxes: screen.getClientRects().length, height: lab.getBoundingClientRect().height,
      };
    });
    assert.equal(state.link, "", "the inline script marked the link");
    assert.equal(state.visibility, "hidden");
    assert.equal(state.display, "none", "the written screen is not laid out");
    assert.equal(state.boxes, 0);
    assert.equal(state.contentVisibility, "visible", "no display lock for the browser to open once the document is parsed");
    assert.ok(Math.abs(state.height - screenHeight) < 0.05 * screenHeight, `${width} px wide, the space is kept: ${state.height} px against the first screen's ${screenHeight} px`);
    assert.deepEqual(errors, []);
    await page.close();
  }
});

test("the page's first screen is what the element builds, and its policy names exactly its inline script and styles", async () => {
  const html = fs.readFileSync(PAGE, "utf8");
  const expected = await firstScreenBlock(browser, base);
  assert.ok(writtenBlock(html) === expected, "index.html's first screen is stale: run node scripts/first-screen.mjs");
  assert.deepEqual(policyHashes(html).map((h) => h.kind).sort(), ["script", "style"], "one inline script, one copy of the styles");
  assert.ok(withPolicy(html) === html, "the policy's hashes are stale: run node scripts/first-screen.mjs");
  // Each hash is the digest of what the browser runs or applies.
  const policy = html.match(/Content-Security-Policy" content="([^"]*)"/)[1];
  for (const [, text] of [...html.matchAll(/<script>([^<]*)<\/script>/g), ...html.matchAll(/<style[^>]*>([\s\S]*?)<\/style>/g)]) {
    const hash = crypto.createHash("sha256").update(text).digest("base64");
    assert.ok(policy.includes(`'sha256-${hash}'`), `the policy names 'sha256-${hash}'`);
  }
});

test("an engine module that cannot load is said on the page", async () => {
  const { page, release } = await heldBack(`${base}/index.html`, { fail: true });
  release();
  const error = await page.waitForFunction(() => {
    const text = document.querySelector("#lab").shadowRoot.querySelector(".error")?.textContent;
    return text || undefined;
  });
  assert.match(await error.jsonValue(), /^The simulation could not load \(the file is missing or damaged\)\. Reload the page; if this keeps happening, tell the course team\.$/);
  const screen = await firstScreen(page);
  assert.equal(screen.inert, true);
  assert.equal(screen.picture, null, "no picture of a chart that will not come");
  await page.close();
});

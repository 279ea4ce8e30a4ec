// The npm package as a course site uses it: `npm pack` ships every file the element needs;
// esbuild keeps the element when a page only imports "checkpoint-lab"; a page bundled from the
// packed tarball, with the wasm copied next to the bundle, shows the element with its
// charts in Chromium; and a site's build step can import the package in Node (nothing happens) and
// run simulate() from "checkpoint-lab/engine".
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import * as esbuild from "esbuild";
import { serve, launch, open, ROOT } from "./harness.mjs";

const PKG = path.join(ROOT, "pkg");
let work, site, browser;

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "checkpoint-lab-package-"));
  // Install the packed tarball the way npm would: node_modules/checkpoint-lab.
  const [packed] = JSON.parse(execFileSync("npm", ["pack", "--json", "--pack-destination", work], { cwd: PKG, encoding: "utf8" }));
  execFileSync("tar", ["-xzf", path.join(work, packed.filename), "-C", work]);
  fs.mkdirSync(path.join(work, "node_modules"));
  fs.renameSync(path.join(work, "package"), path.join(work, "node_modules", "checkpoint-lab"));
  site = path.join(work, "site");
  fs.mkdirSync(site);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

test("npm pack ships the element, the engine, the first chart's and the exercises' modules, the wasm, the styles, the types and the licences", () => {
  const [dry] = JSON.parse(execFileSync("npm", ["pack", "--dry-run", "--json"], { cwd: PKG, encoding: "utf8" }));
  const files = dry.files.map((f) => f.path).sort();
  for (const name of ["checkpoint-lab.js", "checkpoint-lab.css", "checkpoint-lab.d.ts", "settings.js", "exercise-panel.js", "checkpoint_lab.js",
    "checkpoint_lab.d.ts", "checkpoint_lab_bg.wasm", "checkpoint_lab_exercises.js", "checkpoint_lab_exercises.d.ts",
    "checkpoint_lab_exercises_bg.wasm", "checkpoint_lab_first.js", "checkpoint_lab_first.d.ts", "checkpoint_lab_first_bg.wasm", "first-picture.svg", "first-picture-dark.svg", "custom-elements.json", "vscode.html-custom-data.json", "LICENSE-MIT", "LICENSE-APACHE", "package.json", "README.md"]) {
    assert.ok(files.includes(name), `${name} is in the package: ${files.join(", ")}`);
  }
  const pkg = JSON.parse(fs.readFileSync(path.join(PKG, "package.json"), "utf8"));
  assert.equal(pkg.name, "checkpoint-lab");
  assert.equal(pkg.main, "checkpoint-lab.js");
  assert.equal(pkg.types, "checkpoint-lab.d.ts");
  assert.equal(pkg.exports["."].default, "./checkpoint-lab.js");
  assert.equal(pkg.exports["./engine"].default, "./checkpoint_lab.js");
  assert.equal(pkg.exports["./exercises"].default, "./checkpoint_lab_exercises.js");
  assert.equal(pkg.exports["./first-chart"].default, "./checkpoint_lab_first.js");
  assert.ok(pkg.sideEffects.includes("./checkpoint-lab.js"), "bundlers keep the element's definition");
  for (const entry of pkg.sideEffects) assert.ok(files.includes(entry.replace(/^\.\//, "")), `sideEffects names a file the package ships: ${entry}`);
  assert.match(pkg.engines.node, /^>=\d/, "the package says which Node it needs");
  assert.equal(pkg.customElements, "custom-elements.json");
  for (const [entry, target] of Object.entries(pkg.typesVersions["*"])) {
    assert.equal(`./${entry}` in pkg.exports && pkg.exports[`./${entry}`].types, target[0], `typesVersions maps ${entry} as exports does`);
  }
  assert.equal(pkg.license, "MIT OR Apache-2.0");
  // The README npm shows is the one for lesson authors, not the repository's.
  const readme = fs.readFileSync(path.join(PKG, "README.md"), "utf8");
  assert.equal(readme, fs.readFileSync(path.join(ROOT, "www", "package-README.md"), "utf8"));
  assert.match(readme, /<checkpoint-lab /, "the package's README shows the element");
  assert.doesNotMatch(readme, /scripts\/serve\.sh|scripts\/test\.sh|cargo /, "the package's README is not the repository's");
});

test("a page bundled with esbuild from the packed tarball shows the element with charts", async () => {
  fs.writeFileSync(path.join(work, "entry.js"), 'import "checkpoint-lab";\n');
  const result = await esbuild.build({
    absWorkingDir: work, entryPoints: ["entry.js"], bundle: true, format: "esm", outfile: path.join(site, "app.js"),
    metafile: true, logLevel: "silent",
  });
  const bundle = fs.readFileSync(path.join(site, "app.js"), "utf8");
  assert.match(bundle, /customElements\.define\("checkpoint-lab"/, "the element survives tree shaking");
  const bytes = result.metafile.outputs[Object.keys(result.metafile.outputs)[0]].bytes;
  console.log(`# bundle of import "checkpoint-lab": ${bytes} bytes of JS`);
  // What the bundle loads relative to itself, as docs/embedding.md and the package's README tell
  // esbuild users to copy.
  for (const file of ["checkpoint_lab_bg.wasm", "checkpoint_lab_first_bg.wasm", "checkpoint_lab_exercises_bg.wasm"]) {
    fs.copyFileSync(path.join(work, "node_modules", "checkpoint-lab", file), path.join(site, file));
  }
  const coursePage = (body) => `<!doctype html><html lang="en"><head><meta charset="utf-8">
<link rel="icon" href="data:,"><title>A course page</title><script type="module" src="app.js"></script></head>
<body>${body}</body></html>`;
  fs.writeFileSync(path.join(site, "index.html"), coursePage(`<checkpoint-lab interval="10s"></checkpoint-lab>`));
  fs.writeFileSync(path.join(site, "practice.html"), coursePage(`<checkpoint-lab exercise="replay-15s-after-barrier"></checkpoint-lab>`));
  const { server, base } = await serve({}, site);
  try {
    // The practice page loads the exercises' module from beside the bundle and shows the exercise.
    const practice = await open(browser, `${base}/practice.html`, { ready: "checkpoint-lab[data-ready=true]" });
    await practice.page.waitForSelector("[data-exercise=answer]");
    assert.deepEqual(practice.errors, []);
    await practice.page.close();
    const { page, errors } = await open(browser, `${base}/index.html`, { ready: "checkpoint-lab[data-ready=true]" });
    const shown = await page.evaluate(() => {
      const lab = document.querySelector("checkpoint-lab");
      const canvas = lab.shadowRoot.querySelector("[data-chart=replay]");
      const data = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
      let ink = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i + 3] && data[i] < 200) ink++;
      const styled = getComputedStyle(lab.shadowRoot.querySelector(".lab")).display;
      return { interval: lab.report().config.interval_ms, ink, styled };
    });
    assert.equal(shown.interval, 10000);
    assert.ok(shown.ink > 1000, "the replay chart is drawn");
    assert.notEqual(shown.styled, "inline", "the component's styles loaded from beside the bundle");
    assert.deepEqual(errors, []);
  } finally {
    server.close();
  }
});

test("in Node the package imports without defining anything, its simulate() runs, and the engine simulates", async () => {
  const installed = path.join(work, "node_modules", "checkpoint-lab");
  const element = await import(pathToFileURL(path.join(installed, "checkpoint-lab.js")).href);
  assert.equal(typeof element.mount, "function");
  assert.equal(globalThis.customElements, undefined, "no element is defined outside a browser");
  assert.deepEqual(Object.keys(element).filter((name) => name.startsWith("_")), [], "no test-only export");
  // The main entry reads its wasm from the file beside it (fetch() cannot load a file: URL).
  const simulated = await element.simulate({ interval_ms: 5000 });
  assert.equal(simulated.interval_replay_events, 10000);
  assert.deepEqual(await element.registerExercises([]), []);
  const engine = await import(pathToFileURL(path.join(installed, "checkpoint_lab.js")).href);
  await engine.default({ module_or_path: fs.readFileSync(path.join(installed, "checkpoint_lab_bg.wasm")) });
  assert.deepEqual(Object.keys(engine).filter((name) => /panic/i.test(name)), [], "the engine entry has no test-only export");
  const wasmExports = WebAssembly.Module.exports(new WebAssembly.Module(fs.readFileSync(path.join(installed, "checkpoint_lab_bg.wasm"))));
  assert.deepEqual(wasmExports.map((e) => e.name).filter((name) => /panic/i.test(name)), [], "the engine's wasm has no test-only export");
  const report = engine.simulate({ interval_ms: 5000 });
  assert.equal(report.config.interval_ms, 5000);
  assert.equal(report.interval_replay_events, 10000);
  const exercises = await import(pathToFileURL(path.join(installed, "checkpoint_lab_exercises.js")).href);
  await exercises.default({ module_or_path: fs.readFileSync(path.join(installed, "checkpoint_lab_exercises_bg.wasm")) });
  const first = exercises.builtinExercises().find((e) => e.id === "replay-15s-after-barrier");
  // The exercises' module carries no engine: each check runs the engine module's simulate().
  assert.equal(exercises.checkExercise(first, 30000, engine.simulate).correct, true);
  assert.equal(exercises.checkExercise(first, 12345, engine.simulate).correct, false);
  assert.throws(() => exercises.checkExercise(first, 30000, () => { throw new Error("no engine here"); }), /simulate: no engine here/);
});

test("custom-elements.json is current, lists every attribute the element reads, and VS Code's custom data is made from it", async () => {
  const { manifest, customData } = await import(pathToFileURL(path.join(ROOT, "scripts", "custom-elements.mjs")).href);
  const { cem, vscode } = await manifest();
  const shipped = JSON.parse(fs.readFileSync(path.join(PKG, "custom-elements.json"), "utf8"));
  assert.deepEqual(shipped, cem, "pkg/custom-elements.json is what scripts/custom-elements.mjs writes now (run scripts/build-wasm.sh)");
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(PKG, "vscode.html-custom-data.json"), "utf8")), customData(shipped));
  assert.deepEqual(vscode, customData(cem));
  const [element] = shipped.modules[0].declarations;
  assert.equal(element.tagName, "checkpoint-lab");
  const listed = element.attributes.map((a) => a.name);
  for (const attribute of element.attributes) {
    assert.ok(attribute.description && attribute.type.text, `${attribute.name} has a type and a description`);
  }
  // The attributes the element observes, and any it reads by name.
  const { CheckpointLabElement } = await import(pathToFileURL(path.join(PKG, "checkpoint-lab.js")).href);
  assert.deepEqual([...listed].sort(), [...CheckpointLabElement.observedAttributes].sort());
  for (const file of fs.readdirSync(path.join(ROOT, "www")).filter((f) => f.endsWith(".js"))) {
    const text = fs.readFileSync(path.join(ROOT, "www", file), "utf8");
    for (const [, name] of text.matchAll(/\b(?:this|host)\.getAttribute\("([a-z-]+)"\)/g)) {
      assert.ok(listed.includes(name), `www/${file} reads the attribute ${name}, which custom-elements.json lists`);
    }
  }
  // A choice's attribute lists its values, as the declarations type them.
  assert.equal(element.attributes.find((a) => a.name === "mode").type.text, '"barrier" | "micro-batch" | "micro_batch"');
  assert.equal(element.attributes.find((a) => a.name === "interval").default, '"30s"');
  assert.deepEqual(vscode.tags[0].attributes.find((a) => a.name === "mode").values.map((v) => v.name), ["barrier", "micro-batch", "micro_batch"]);
  // Every event the element's scripts dispatch to the page.
  const dispatched = new Set();
  for (const file of fs.readdirSync(path.join(ROOT, "www")).filter((f) => f.endsWith(".js"))) {
    const text = fs.readFileSync(path.join(ROOT, "www", file), "utf8");
    for (const [, name] of text.matchAll(/new CustomEvent\("(checkpointlab-[a-z-]+)"/g)) dispatched.add(name);
  }
  assert.deepEqual(element.events.map((e) => e.name).sort(), [...dispatched].sort());
});

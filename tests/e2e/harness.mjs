// Shared end-to-end harness: a static server for the repo (release build in pkg/) on 127.0.0.1
// and a headless browser: Chromium driven by playwright-core, or with E2E_BROWSER=firefox,
// Firefox driven over WebDriver BiDi through geckodriver (./firefox.mjs). Collects console errors
// per page.
import http from "node:http";
import fs from "node:fs";
import zlib from "node:zlib";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { launchFirefox } from "./firefox.mjs";

/// The browser the suites run in: "chromium" (the default) or "firefox".
export const BROWSER = process.env.E2E_BROWSER || "chromium";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const SHOTS = path.join(ROOT, "target", "screenshots");

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".ts": "text/plain; charset=utf-8",
  ".svg": "image/svg+xml",
};

/// Serves the repository (or `root`); `routes` maps extra paths to HTML text (a page made by a test).
/// With `gzip`, files go out gzipped to a browser that accepts it, as a static host serves them;
/// `headers` go out with every file (a CDN's CORS header).
export function serve(routes = {}, root = ROOT, { gzip = false, headers = {}, mounts = {} } = {}) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, "http://127.0.0.1");
    if (routes[url.pathname]) {
      res.writeHead(200, { "content-type": TYPES[".html"] }).end(routes[url.pathname]);
      return;
    }
    // A lesson site has its own favicon; stand in for it so a page without one logs no 404.
    const pathname = url.pathname === "/favicon.ico" ? "/www/favicon.svg" : url.pathname;
    // `mounts` serves a URL prefix from another folder ({ "/pkg/": "target/pkg-hooks" }).
    const mount = Object.keys(mounts).find((prefix) => pathname.startsWith(prefix));
    const [dir, rest] = mount ? [path.resolve(root, mounts[mount]), pathname.slice(mount.length)] : [root, pathname];
    const file = path.join(dir, decodeURIComponent(rest));
    if (!file.startsWith(dir) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404).end("not found");
      return;
    }
    const type = TYPES[path.extname(file)] || "application/octet-stream";
    if (gzip && /\bgzip\b/.test(req.headers["accept-encoding"] || "")) {
      res.writeHead(200, { ...headers, "content-type": type, "content-encoding": "gzip" });
      fs.createReadStream(file).pipe(zlib.createGzip({ level: 9 })).pipe(res);
      return;
    }
    res.writeHead(200, { ...headers, "content-type": type });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => resolve({ server, base: `http://127.0.0.1:${server.address().port}` }));
  });
}

/// Launches the browser; `args` are Chromium switches a suite adds (Firefox takes none).
export async function launch({ args = [] } = {}) {
  if (BROWSER === "firefox") return launchFirefox();
  return chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
      ...args,
    ],
  });
}

/// Opens `url` in a new page of `browser`; returns the page and the list its console errors go to.
export async function open(browser, url, { width = 1280, height = 900, colorScheme = "light", ready = "body[data-ready=true]" } = {}) {
  const page = await browser.newPage({ viewport: { width, height }, deviceScaleFactor: 2, colorScheme });
  const errors = [];
  page.on("console", (msg) => { if (msg.type() === "error") errors.push(msg.text()); });
  page.on("pageerror", (err) => errors.push(String(err)));
  // E2E_CPU_SLOWDOWN=2.5 runs the page's main thread that many times slower (Chromium only): how
  // a loaded machine runs it, to see which tasks come near 50 ms before such a machine shows it.
  const slowdown = Number(process.env.E2E_CPU_SLOWDOWN || 1);
  if (slowdown > 1 && BROWSER === "chromium") {
    await (await page.context().newCDPSession(page)).send("Emulation.setCPUThrottlingRate", { rate: slowdown });
  }
  await page.goto(url);
  await page.waitForSelector(ready, { timeout: 20000, state: "attached" });
  return { page, errors };
}

/// A fingerprint of a canvas's pixels, to tell whether it was redrawn differently.
export function canvasPixels(page, selector) {
  return page.$eval(selector, (c) => c.toDataURL());
}

export function shotPath(name) {
  fs.mkdirSync(SHOTS, { recursive: true });
  return path.join(SHOTS, name);
}

/// A screenshot of the whole page with every chart painted: charts out of view skip rendering
/// (`content-visibility: auto`), which a capture of the whole document would show as blank, so
/// for the capture each lab's charts are made visible, then left as they were.
export async function fullScreenshot(page, options) {
  const toggle = (on) => page.evaluate((on) => {
    window.__allCharts ??= new CSSStyleSheet();
    window.__allCharts.replaceSync(".chart-figure > .chart { content-visibility: visible !important; }");
    for (const lab of document.querySelectorAll("checkpoint-lab")) {
      const sheets = lab.shadowRoot.adoptedStyleSheets.filter((s) => s !== window.__allCharts);
      lab.shadowRoot.adoptedStyleSheets = on ? [...sheets, window.__allCharts] : sheets;
    }
  }, on);
  await toggle(true);
  await settled(page);
  await page.screenshot({ ...options, fullPage: true });
  await toggle(false);
}

/// Waits until every lab on the page has finished its run, drawn its charts (those out of view
/// are drawn once the changes pause) and painted a frame.
export async function settled(page) {
  const frames = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const idle = () => page.waitForFunction(() => [...document.querySelectorAll("checkpoint-lab")].every((lab) => !lab.busy && !lab.view?.outOfView?.size), null, { timeout: 20000 });
  // Input events reach the page before their frame: let them start, then wait for the runs.
  await frames();
  await idle();
  await frames();
}

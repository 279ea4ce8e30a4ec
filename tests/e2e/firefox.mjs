// A small WebDriver BiDi client for Firefox through geckodriver, with the part of the page API the
// end-to-end suites use (navigation and reloads, evaluate, waiting, selectors that reach into
// shadow roots, with XPath steps, focus, keys, clicks, pointer drags, screenshots), so the same
// suites run in Firefox and in Chromium. Console errors and page errors arrive as BiDi
// `log.entryAdded` events.
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import WebSocket from "ws";

const GECKODRIVER = process.env.GECKODRIVER || path.join(os.homedir(), ".cargo", "bin", "geckodriver");
const FIREFOX = process.env.FIREFOX || "/usr/bin/firefox";

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/// Finds elements by a CSS selector in the document and every open shadow root, like the
/// selectors of the Chromium driver: "a >> b" looks for b inside each a, "nth=N" picks one.
/// Runs in the page (it is sent as source text).
function deepQueryAll(selector) {
  const within = (root, css) => {
    const found = [...root.querySelectorAll(css)];
    for (const element of root.querySelectorAll("*")) if (element.shadowRoot) found.push(...within(element.shadowRoot, css));
    return found;
  };
  let scope = [document];
  for (const part of selector.split(">>").map((p) => p.trim())) {
    const nth = /^nth=(-?\d+)$/.exec(part);
    const xpath = /^xpath=(.+)$/.exec(part);
    if (xpath) {
      // An XPath from each element found so far ("xpath=../.." is its grandparent).
      scope = scope.flatMap((node) => {
        const found = document.evaluate(xpath[1], node, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
        return Array.from({ length: found.snapshotLength }, (_, i) => found.snapshotItem(i));
      });
    } else if (nth) {
      const i = Number(nth[1]);
      scope = scope.length ? [scope.at(i)].filter(Boolean) : [];
    } else {
      scope = scope.flatMap((root) => within(root.shadowRoot ?? root, part));
    }
  }
  return scope;
}

/// Key names as the Chromium driver spells them, in WebDriver's code points.
const KEYS = { ArrowLeft: "\uE012", ArrowUp: "\uE013", ArrowRight: "\uE014", ArrowDown: "\uE015", Enter: "\uE007", Escape: "\uE00C", Tab: "\uE004", Home: "\uE011", End: "\uE010", Space: " " };

class BidiPage {
  constructor(browser, context, userContext) {
    this.browser = browser;
    this.context = context;
    this.userContext = userContext;
    this.listeners = { console: [], pageerror: [] };
    this.pointer = { x: 0, y: 0 };
    this.keyboard = { press: (key) => this.press(key) };
    this.mouse = {
      move: (x, y) => this.pointerActions([{ type: "pointerMove", x: Math.round(x), y: Math.round(y) }], x, y),
      down: () => this.pointerActions([{ type: "pointerDown", button: 0 }]),
      up: () => this.pointerActions([{ type: "pointerUp", button: 0 }]),
    };
  }

  on(event, listener) {
    this.listeners[event].push(listener);
  }

  /// A log entry of this page's context: console errors and uncaught errors.
  log(entry) {
    if (entry.type === "javascript") {
      for (const l of this.listeners.pageerror) l(new Error(entry.text));
    } else if (entry.type === "console") {
      const message = { type: () => (entry.level === "warn" ? "warning" : entry.level), text: () => entry.text };
      for (const l of this.listeners.console) l(message);
    }
  }

  /// Like the Chromium driver's addInitScript: runs `fn` in this page before any of its own
  /// scripts, at every navigation (a BiDi preload script).
  async addInitScript(fn) {
    await this.browser.send("script.addPreloadScript", { functionDeclaration: String(fn), contexts: [this.context] });
  }

  async goto(url) {
    await this.browser.send("browsingContext.navigate", { context: this.context, url, wait: "complete" });
  }

  async reload() {
    await this.browser.send("browsingContext.reload", { context: this.context, wait: "complete" });
  }

  /// Calls `source` (a function's text) in the page with JSON arguments; returns its result
  /// through JSON (undefined stays undefined).
  async call(source, args) {
    const functionDeclaration = `async (...args) => { const deepQueryAll = ${deepQueryAll}; const value = await (${source})(...args); return value === undefined ? "undefined" : JSON.stringify(value); }`;
    const result = await this.browser.send("script.callFunction", {
      functionDeclaration,
      arguments: args.map((a) => ({ type: "string", value: JSON.stringify(a ?? null) })),
      target: { context: this.context },
      awaitPromise: true,
      resultOwnership: "none",
    });
    if (result.type === "exception") {
      const error = new Error(result.exceptionDetails?.text ?? "an exception in the page");
      error.details = result.exceptionDetails;
      throw error;
    }
    const text = result.result?.value;
    return text === "undefined" || text === undefined ? undefined : JSON.parse(text);
  }

  /// Like the Chromium driver's evaluate: a function (with one argument) or an expression.
  async evaluate(fn, arg) {
    if (typeof fn !== "string") return this.call(`(a) => (${fn})(JSON.parse(a))`, [arg]);
    const result = await this.browser.send("script.evaluate", { expression: fn, target: { context: this.context }, awaitPromise: true, resultOwnership: "none" });
    if (result.type === "exception") throw new Error(result.exceptionDetails?.text ?? "an exception in the page");
    return result.result?.value;
  }

  $eval(selector, fn, arg) {
    return this.call(`(s, a) => { const [e] = deepQueryAll(JSON.parse(s)); if (!e) throw new Error("no element matches " + JSON.parse(s)); return (${fn})(e, JSON.parse(a)); }`, [selector, arg]);
  }

  $$eval(selector, fn, arg) {
    return this.call(`(s, a) => (${fn})(deepQueryAll(JSON.parse(s)), JSON.parse(a))`, [selector, arg]);
  }

  async $(selector) {
    const found = await this.call("(s) => deepQueryAll(JSON.parse(s)).length > 0", [selector]);
    if (!found) return null;
    return {
      boundingBox: () => this.$eval(selector, (e) => {
        const r = e.getBoundingClientRect();
        return { x: r.x, y: r.y, width: r.width, height: r.height };
      }),
    };
  }

  async waitForFunction(fn, arg, { timeout = 20000 } = {}) {
    const deadline = Date.now() + timeout;
    for (;;) {
      const value = await this.evaluate(fn, arg);
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`waitForFunction: timed out after ${timeout} ms: ${fn}`);
      await sleep(25);
    }
  }

  async waitForSelector(selector, { timeout = 20000 } = {}) {
    const deadline = Date.now() + timeout;
    while (!(await this.$(selector))) {
      if (Date.now() > deadline) throw new Error(`waitForSelector: timed out after ${timeout} ms: ${selector}`);
      await sleep(25);
    }
  }

  waitForTimeout(ms) {
    return sleep(ms);
  }

  textContent(selector) {
    return this.$eval(selector, (e) => e.textContent);
  }

  getAttribute(selector, name) {
    return this.$eval(selector, (e, n) => e.getAttribute(n), name);
  }

  isVisible(selector) {
    return this.call("(s) => { const [e] = deepQueryAll(JSON.parse(s)); return Boolean(e && e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden'); }", [selector]);
  }

  focus(selector) {
    return this.$eval(selector, (e) => e.focus());
  }

  async selectOption(selector, value) {
    await this.$eval(selector, (e, v) => {
      e.value = v;
      e.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
      e.dispatchEvent(new Event("change", { bubbles: true }));
    }, value);
  }

  async fill(selector, value) {
    await this.$eval(selector, (e, v) => {
      e.focus();
      e.value = v;
      e.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
      e.dispatchEvent(new Event("change", { bubbles: true }));
    }, value);
  }

  /// A real click in the middle of the element, after scrolling it into view.
  async click(selector) {
    const box = await this.$eval(selector, (e) => {
      e.scrollIntoView({ block: "center", inline: "center" });
      const r = e.getBoundingClientRect();
      return { x: r.x + r.width / 2, y: r.y + Math.min(r.height / 2, 12) };
    });
    await this.mouse.move(box.x, box.y);
    await this.mouse.down();
    await this.mouse.up();
  }

  async pointerActions(actions, x = this.pointer.x, y = this.pointer.y) {
    this.pointer = { x, y };
    await this.browser.send("input.performActions", {
      context: this.context,
      actions: [{ type: "pointer", id: "mouse", parameters: { pointerType: "mouse" }, actions }],
    });
  }

  async press(key) {
    const value = KEYS[key] ?? key;
    await this.browser.send("input.performActions", {
      context: this.context,
      actions: [{ type: "key", id: "keyboard", actions: [{ type: "keyDown", value }, { type: "keyUp", value }] }],
    });
  }

  async screenshot({ path: file, fullPage = false } = {}) {
    const { data } = await this.browser.send("browsingContext.captureScreenshot", { context: this.context, origin: fullPage ? "document" : "viewport" });
    if (file) fs.writeFileSync(file, Buffer.from(data, "base64"));
    return Buffer.from(data, "base64");
  }

  async close() {
    await this.browser.send("browsingContext.close", { context: this.context });
    await this.browser.send("browser.removeUserContext", { userContext: this.userContext });
  }
}

/// One Firefox, driven over WebDriver BiDi. `colorScheme` is fixed per browser (Firefox takes it
/// from a preference), so a page asking for another one gets a browser of its own.
class BidiBrowser {
  static async launch({ colorScheme = "light" } = {}) {
    const port = await freePort();
    const websocketPort = await freePort();
    const driver = spawn(GECKODRIVER, ["--port", String(port), "--websocket-port", String(websocketPort), "--host", "127.0.0.1"], { stdio: "ignore" });
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      try {
        await fetch(`${base}/status`);
        break;
      } catch (e) {
        if (i > 200) throw e;
        await sleep(50);
      }
    }
    const response = await fetch(`${base}/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        capabilities: {
          alwaysMatch: {
            browserName: "firefox",
            webSocketUrl: true,
            "moz:firefoxOptions": {
              binary: FIREFOX,
              args: ["-headless"],
              prefs: {
                "layout.css.prefers-color-scheme.content-override": colorScheme === "dark" ? 0 : 1,
                "ui.systemUsesDarkTheme": colorScheme === "dark" ? 1 : 0,
                "browser.shell.checkDefaultBrowser": false,
                "datareporting.policy.dataSubmissionEnabled": false,
              },
            },
          },
        },
      }),
    });
    const session = (await response.json()).value;
    if (!session?.capabilities?.webSocketUrl) throw new Error(`geckodriver gave no BiDi session: ${JSON.stringify(session)}`);
    const browser = new BidiBrowser(driver, base, session.sessionId, colorScheme);
    await browser.connect(session.capabilities.webSocketUrl);
    return browser;
  }

  constructor(driver, base, sessionId, colorScheme) {
    Object.assign(this, { driver, base, sessionId, colorScheme });
    this.next = 0;
    this.pending = new Map();
    this.pages = new Map();
    this.others = new Map();
  }

  async connect(url) {
    this.socket = new WebSocket(url);
    await new Promise((resolve, reject) => {
      this.socket.once("open", resolve);
      this.socket.once("error", reject);
    });
    this.socket.on("message", (data) => {
      const message = JSON.parse(data);
      if (message.id !== undefined) {
        const { resolve, reject, method } = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (message.type === "error") reject(new Error(`${method}: ${message.error}: ${message.message}`));
        else resolve(message.result);
      } else if (message.method === "log.entryAdded") {
        this.pages.get(message.params.source?.context)?.log(message.params);
      }
    });
    await this.send("session.subscribe", { events: ["log.entryAdded"] });
  }

  send(method, params) {
    const id = ++this.next;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method });
      this.socket.send(JSON.stringify({ id, method, params }));
    });
  }

  async newPage({ viewport = { width: 1280, height: 900 }, deviceScaleFactor = 1, colorScheme = "light" } = {}) {
    if (colorScheme !== this.colorScheme) {
      if (!this.others.has(colorScheme)) this.others.set(colorScheme, BidiBrowser.launch({ colorScheme }));
      return (await this.others.get(colorScheme)).newPage({ viewport, deviceScaleFactor, colorScheme });
    }
    // Each page in a user context of its own, with its own storage, as each page of the Chromium
    // driver is in a context of its own: what one test keeps in localStorage, the next does not see.
    const { userContext } = await this.send("browser.createUserContext", {});
    const { context } = await this.send("browsingContext.create", { type: "tab", userContext });
    await this.send("browsingContext.setViewport", { context, viewport, devicePixelRatio: deviceScaleFactor });
    const page = new BidiPage(this, context, userContext);
    this.pages.set(context, page);
    return page;
  }

  async close() {
    for (const other of this.others.values()) await (await other).close();
    try {
      await fetch(`${this.base}/session/${this.sessionId}`, { method: "DELETE" });
    } finally {
      this.socket?.close();
      this.driver.kill();
    }
  }
}

export function launchFirefox() {
  return BidiBrowser.launch();
}

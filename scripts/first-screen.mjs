// The lesson page's first screen, written into index.html so the browser paints it before any
// script has run: the element's view at the defaults as the element builds it (a declarative
// shadow root, its controls inert) with a copy of the component's styles, and the pipeline view
// of the default scenario as the chart code draws it (www/first-picture.svg, kept current by
// tests/generated.rs), inline in the element's "first-picture" slot; its dark twin is an image
// loaded only in the dark theme. The page's policy names the copied styles and its inline script
// by their hashes. The element replaces the written view with its own once its module has run.
// tests/e2e/first-picture.test.mjs checks the block and the hashes are current.
//   node scripts/first-screen.mjs        (after scripts/build-wasm.sh) rewrites both
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { serve, launch, ROOT } from "../tests/e2e/harness.mjs";

export const PAGE = path.join(ROOT, "index.html");
const BEGIN = "<!-- <first screen> -->";
const END = "<!-- </first screen> -->";

/// The block as index.html holds it now, or undefined.
export function writtenBlock(html = fs.readFileSync(PAGE, "utf8")) {
  const begin = html.indexOf(BEGIN);
  const end = html.indexOf(END);
  return begin < 0 || end < begin ? undefined : html.slice(begin, end + END.length);
}

/// The element's view at the defaults, as markup a declarative shadow root holds: the state the
/// view keeps in properties (a slider's value, a chosen option) written as attributes, a
/// `<!--styles-->` comment before it where its styles go, the theme left to the reader's
/// preference.
function viewMarkup() {
  const lab = document.createElement("checkpoint-lab");
  document.body.append(lab);
  const root = lab.shadowRoot;
  for (const input of root.querySelectorAll("input")) {
    if (input.type === "checkbox" || input.type === "radio") input.toggleAttribute("checked", input.checked);
    else input.setAttribute("value", input.value);
  }
  for (const option of root.querySelectorAll("option")) option.toggleAttribute("selected", option.selected);
  for (const node of root.querySelectorAll("[style]")) node.removeAttribute("style");
  // The styles, written in by the caller where the view adopted them (or linked them): no
  // stylesheet to fetch before the first paint.
  for (const link of root.querySelectorAll("link[rel=stylesheet], style")) link.remove();
  root.prepend(document.createComment("styles"));
  const view = root.querySelector(".lab");
  view.classList.remove("dark");
  view.classList.add("first-screen");
  // A page's styles reach the written screen by this name (::part), to leave it out where it
  // would show the wrong settings (a shared link, see www/page.css).
  view.setAttribute("part", "first-screen");
  return root.innerHTML;
}

/// The component's styles, as the first screen holds them: checkpoint-lab.css, which the page's
/// Content-Security-Policy allows by its hash (see policyHashes).
function styles() {
  const css = fs.readFileSync(path.join(ROOT, "www", "checkpoint-lab.css"), "utf8");
  if (css.includes("</")) throw new Error("checkpoint-lab.css must not hold \"</\" to be written into a <style>");
  return css;
}

/// The hashes the page's policy must name: its inline script and styles, each 'sha256-…'.
export function policyHashes(html) {
  // Scripts without a src, and every <style>.
  return [...html.matchAll(/<(script|style)((?: [^>]*)?)>([\s\S]*?)<\/\1>/g)]
    .filter(([, , attributes]) => !/\ssrc=/.test(attributes))
    .map(([, kind, , text]) => ({ kind, hash: `'sha256-${crypto.createHash("sha256").update(text).digest("base64")}'` }));
}

/// The page with its policy naming exactly the hashes of its inline scripts and styles.
export function withPolicy(html) {
  const hashes = policyHashes(html);
  const named = (kind) => hashes.filter((h) => h.kind === kind).map((h) => ` ${h.hash}`).join("");
  return html
    .replace(/script-src 'self' 'wasm-unsafe-eval'[^;"]*/, `script-src 'self' 'wasm-unsafe-eval'${named("script")}`)
    .replace(/style-src 'self'[^;"]*/, `style-src 'self'${named("style")}`);
}

/// An inline picture for the slot: the SVG file's markup, scaled into the canvas's box from its
/// top left corner as the canvas is drawn, hidden from assistive technology (the canvas that
/// replaces it carries the description).
function inlinePicture(file, theme) {
  const svg = fs.readFileSync(path.join(ROOT, "www", file), "utf8").trim();
  return svg.replace(/^<svg /, `<svg slot="first-picture" data-theme="${theme}" aria-hidden="true" preserveAspectRatio="xMinYMin meet" `);
}

/// The whole block, built in `browser` against the release build served at `base`.
export async function firstScreenBlock(browser, base) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, colorScheme: "light" });
  // The engine's module is not needed: the view is built before it loads.
  await page.route("**/*.wasm", (route) => route.abort());
  await page.goto(`${base}/first-screen-source.html`);
  await page.evaluate(() => import("/pkg/checkpoint-lab.js"));
  const markup = await page.evaluate(viewMarkup);
  await page.close();
  return [
    BEGIN,
    `<template shadowrootmode="open">${markup.replace("<!--styles-->", () => `<style data-styles="checkpoint-lab">${styles()}</style>`)}</template>`,
    inlinePicture("first-picture.svg", "light"),
    // The dark picture as an image loaded only where it is shown: inline, it would be parsed
    // before every first paint, in the light theme too, and hold it back (BENCHMARKS.md).
    '<img slot="first-picture" data-theme="dark" src="www/first-picture-dark.svg" width="1052" height="330" alt="" loading="lazy">',
    END,
  ].join("\n");
}

/// A blank page to build the view in (the lesson page itself holds the block being made).
export const SOURCE_ROUTES = { "/first-screen-source.html": "<!doctype html><html><head><meta charset=utf-8></head><body></body></html>" };

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { server, base } = await serve(SOURCE_ROUTES);
  const browser = await launch();
  try {
    const block = await firstScreenBlock(browser, base);
    const html = fs.readFileSync(PAGE, "utf8");
    const written = writtenBlock(html);
    if (!written) throw new Error(`index.html has no block ${BEGIN} … ${END}`);
    fs.writeFileSync(PAGE, withPolicy(html.replace(written, () => block)));
    console.log(`index.html: first screen written (${block.length} characters)`);
  } finally {
    await browser.close();
    server.close();
  }
}

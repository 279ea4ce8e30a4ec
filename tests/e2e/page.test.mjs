// End to end in headless Chromium against the release build: the lesson page loads, draws, and
// redraws when the student moves a slider with the keyboard.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { serve, launch, open, canvasPixels, shotPath } from "./harness.mjs";

let server, base, browser;
before(async () => {
  ({ server, base } = await serve());
  browser = await launch();
});
after(async () => {
  await browser?.close();
  server?.close();
});

test("the interval slider redraws the replay chart", async () => {
  const { page, errors } = await open(browser, `${base}/index.html`);
  const canvas = "#chart-replay";
  const size = await page.$eval(canvas, (c) => [c.width, c.height, c.getBoundingClientRect().width]);
  assert.equal(size[0], Math.round(size[2] * 2), "the canvas is backed at devicePixelRatio");
  const drawn = await page.$eval(canvas, (c) => {
    const data = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    let ink = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i] < 200 || data[i + 1] < 200) ink++;
    return ink;
  });
  assert.ok(drawn > 1000, `the chart has ink (${drawn} pixels)`);
  const before = await canvasPixels(page, canvas);
  const figureBefore = await page.textContent("[data-figure=replayed_events]");
  await page.focus("#interval");
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("ArrowRight");
  const after = await canvasPixels(page, canvas);
  assert.notEqual(after, before, "the chart changed");
  assert.notEqual(await page.textContent("[data-figure=replayed_events]"), figureBefore);
  await page.screenshot({ path: shotPath("slice-1280.png"), fullPage: true });
  assert.deepEqual(errors, []);
});

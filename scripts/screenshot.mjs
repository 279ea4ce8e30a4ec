// Takes the README's screenshot: the lesson page's first screen at 1280 × 800 in headless
// Chromium, its playing figure held at one moment of the recovery (10:01:00, checkpoint 42 being
// restored), written to docs/screenshot.png.
//   scripts/build-wasm.sh && node scripts/screenshot.mjs
import path from "node:path";
import { serve, launch, ROOT } from "../tests/e2e/harness.mjs";

const { server, base } = await serve();
const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1, colorScheme: "light", reducedMotion: "reduce" });
  await page.goto(`${base}/index.html`);
  await page.waitForSelector("#hero[data-ready=true]", { timeout: 30000, state: "attached" });
  // With reduced motion the figure does not play: one moment of it, the same on every run.
  await page.evaluate(() => document.querySelector("#hero").setAttribute("cursor", "10:01:00"));
  // Let the charts near the viewport and the idle-time work finish before the picture.
  await page.waitForTimeout(1500);
  const file = path.join(ROOT, "docs", "screenshot.png");
  await page.screenshot({ path: file });
  console.log(`wrote ${path.relative(ROOT, file)}`);
} finally {
  await browser.close();
  server.close();
}

// Takes the README's screenshot: the lesson page's first screen at 1280 × 800 in headless
// Chromium, once the engine has drawn every chart in view, written to docs/screenshot.png.
//   scripts/build-wasm.sh && node scripts/screenshot.mjs
import path from "node:path";
import { serve, launch, ROOT } from "../tests/e2e/harness.mjs";

const { server, base } = await serve();
const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1, colorScheme: "light" });
  await page.goto(`${base}/index.html`);
  await page.waitForSelector("checkpoint-lab[data-ready=true]", { timeout: 30000, state: "attached" });
  // Let the charts near the viewport and the idle-time work finish before the picture.
  await page.waitForTimeout(1500);
  const file = path.join(ROOT, "docs", "screenshot.png");
  await page.screenshot({ path: file });
  console.log(`wrote ${path.relative(ROOT, file)}`);
} finally {
  await browser.close();
  server.close();
}

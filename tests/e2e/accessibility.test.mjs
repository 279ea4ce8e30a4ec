// Accessibility: axe-core on the lesson page and the practice page with every disclosure opened,
// in the document and inside each component's shadow root: no serious or critical violation.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import { serve, launch, open, settled } from "./harness.mjs";

const AXE = fs.readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

let server, base, browser;
before(async () => {
  ({ server, base } = await serve());
  browser = await launch();
});
after(async () => {
  await browser?.close();
  server?.close();
});

/// Opens every <details> in the document and in every open shadow root; returns how many.
function openEverything(page) {
  return page.evaluate(() => {
    let opened = 0;
    const visit = (root) => {
      for (const details of root.querySelectorAll("details")) {
        details.open = true;
        opened++;
      }
      for (const element of root.querySelectorAll("*")) if (element.shadowRoot) visit(element.shadowRoot);
    };
    visit(document);
    return opened;
  });
}

/// axe-core's verdict: violations of impact serious or critical, as { rule, impact, nodes }, and
/// how many checked nodes lie inside a shadow root (a target axe writes as a list of selectors).
async function audit(page) {
  await page.evaluate(AXE);
  const { violations, inShadow } = await page.evaluate(async () => {
    const result = await window.axe.run(document);
    const inShadow = result.passes.flatMap((p) => p.nodes).filter((n) => Array.isArray(n.target[0])).length;
    const violations = result.violations.map((v) => ({ rule: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.flat().join(" >> ")) }));
    return { violations, inShadow };
  });
  return { serious: violations.filter((v) => v.impact === "serious" || v.impact === "critical"), inShadow };
}

for (const [name, path] of [["the lesson page", "/index.html"], ["the practice page", "/exercises.html"]]) {
  for (const colorScheme of ["light", "dark"]) {
    test(`${name} (${colorScheme}) with every disclosure open has no serious or critical axe violation`, async () => {
      const { page, errors } = await open(browser, base + path, { colorScheme });
      await settled(page);
      const opened = await openEverything(page);
      assert.ok(opened >= 5, `opened ${opened} disclosures`);
      // The text alternatives fill their tables a moment after a run.
      await page.waitForTimeout(400);
      await settled(page);
      // Errors of the page itself; axe then adds an inline style of its own, which the page's CSP refuses.
      assert.deepEqual(errors, []);
      const { serious, inShadow } = await audit(page);
      assert.ok(inShadow > 100, `axe checked ${inShadow} nodes inside the shadow root`);
      assert.deepEqual(serious, []);
    });
  }
}

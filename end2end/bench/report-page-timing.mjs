// Time to interactive of a report page, in Debian's chromium: opens /runs/<id> in a fresh context (empty cache)
// several times and reads, from the page's own clock (performance.now(), 0 = navigation start):
//   - html: the page's HTML fully received (responseEnd of the navigation),
//   - dom: DOMContentLoaded,
//   - interactive: the export buttons' data-hydrated flipped to "true", i.e. the WASM has loaded and hydrated the
//     page down to the report's own controls, handlers attached (recorded by a MutationObserver installed before
//     any script runs; the frame around the report can hydrate a moment earlier).
// Usage (scripts/report-page-timing.sh runs it): node report-page-timing.mjs BASE_URL STORAGE_STATE RUN_ID [REPEATS]
import { chromium } from "playwright";

const [base, storageState, runId, repeats = "3"] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium" });
const results = [];
for (let i = 0; i < Number(repeats); i++) {
  const context = await browser.newContext({ storageState });
  await context.addInitScript(() => {
    new MutationObserver((_, observer) => {
      const buttons = document.querySelector(".export-buttons");
      if (buttons?.getAttribute("data-hydrated") === "true") {
        window.__interactiveAt = performance.now();
        observer.disconnect();
      }
    }).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-hydrated"], childList: true });
  });
  const page = await context.newPage();
  let wasmBytes = 0;
  page.on("response", (response) => {
    if (response.url().endsWith(".wasm")) response.request().sizes().then((s) => (wasmBytes += s.responseBodySize));
  });
  const response = await page.goto(`${base}/runs/${runId}`);
  const htmlBytes = (await response.body()).length;
  await page.waitForFunction(() => window.__interactiveAt !== undefined, null, { timeout: 120_000 });
  const timing = await page.evaluate(() => {
    const [nav] = performance.getEntriesByType("navigation");
    return { html: nav.responseEnd, dom: nav.domContentLoadedEventEnd, interactive: window.__interactiveAt };
  });
  results.push({ ...timing, htmlBytes, wasmBytes });
  await context.close();
}
await browser.close();
const ms = (v) => `${v.toFixed(0)} ms`;
for (const r of results) {
  console.log(`html ${ms(r.html)} (${r.htmlBytes} B), DOMContentLoaded ${ms(r.dom)}, interactive ${ms(r.interactive)} (${r.wasmBytes} B of WASM on the wire)`);
}

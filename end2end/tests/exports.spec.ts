import { test, expect, Page, Download } from "@playwright/test";
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as readline from "node:readline";

const projectRoot = path.resolve(__dirname, "../..");
const bin = path.resolve(projectRoot, process.env.LG_BIN ?? "target/debug/latency-guard");

function loginLink(): string {
  return execFileSync(bin, ["login-link"], { cwd: projectRoot, encoding: "utf8" }).trim().split("\n").pop()!;
}

// Records the media type of every Blob the page turns into a download link.
async function recordBlobTypes(page: Page) {
  await page.addInitScript(() => {
    const types: string[] = [];
    (window as any).__blobTypes = types;
    const original = URL.createObjectURL.bind(URL);
    URL.createObjectURL = (blob: Blob) => {
      types.push(blob.type);
      return original(blob);
    };
  });
}

async function download(page: Page, format: string): Promise<{ file: Download; text: string; ms: number }> {
  const started = Date.now();
  const [file] = await Promise.all([page.waitForEvent("download"), page.click(`#export-${format}`)]);
  const ms = Date.now() - started;
  const text = fs.readFileSync((await file.path())!, "utf8");
  return { file, text, ms };
}

/// Starts a run through the API as the logged-in page and waits on its page for the report.
async function runToReport(page: Page, connectorId: string, iterations: number, concurrency: number) {
  const started = await page.request.post("/api/runs/start", {
    data: {
      input: {
        connectorId,
        title: `Exports of ${iterations}`,
        agent: { name: "export-bot", tokenBudget: 4 },
        prompts: ['A "quoted", comma prompt\nwith a second line'],
        iterations,
        mode: { kind: "closed", concurrency },
      },
    },
  });
  expect(started.status()).toBe(200);
  const run = await started.json();
  await page.goto(`/runs/${run.id}`);
  await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
  await expect(page.locator("#run-progress .status")).toHaveText("completed", { timeout: 90_000 });
  await expect(page.locator("#export-csv")).toBeVisible();
  return run.id as string;
}

test("each export button downloads its file, typed, made in the browser", async ({ page }) => {
  await recordBlobTypes(page);
  await page.goto(loginLink());
  const connectors = await (await page.request.post("/api/connectors/list", { data: {} })).json();
  const demo = connectors.find((c: any) => c.name === "Demo (simulated)");
  // The page holds a view of the report; the snapshot is fetched once (in its compact form, when the page goes
  // idle or at the first click, whichever comes first), and every file is made in WASM from it.
  const requests: string[] = [];
  page.on("request", (r) => requests.push(new URL(r.url()).pathname));
  const runId = await runToReport(page, demo.id, 3, 1);

  const json = await download(page, "json");
  expect(json.file.suggestedFilename()).toMatch(/^latency-report-exports-of-3-\d{4}-\d{2}-\d{2}\.json$/);
  expect(json.text.startsWith('{\n  "report": {')).toBe(true);
  const snapshot = JSON.parse(json.text);
  // `server` follows once the demo's server was probed (the simulator speaks as vLLM, so its metrics are recorded).
  const keys = Object.keys(snapshot).filter((key) => key !== "server");
  expect(keys).toEqual(["report", "validity", "agent", "connector", "stats", "results", "honesty"]);
  // The verdict the page shows first is the file's too.
  const shown = (await page.locator("#verdict").getAttribute("class"))!.includes("invalid") ? "invalid" : "valid";
  expect(snapshot.validity.verdict).toBe(shown);
  expect(snapshot.report.id).toBe(runId);
  expect(snapshot.results).toHaveLength(3);

  const csv = await download(page, "csv");
  expect(csv.file.suggestedFilename()).toMatch(/\.csv$/);
  expect(csv.text.startsWith("report_id,agent,connector_model,prompt,iteration,ttft_ms,total_ms,")).toBe(true);
  expect(csv.text).toContain(`${runId},export-bot,sim-model,"A ""quoted"", comma prompt\nwith a second line",0,`);

  const html = await download(page, "html");
  expect(html.file.suggestedFilename()).toMatch(/\.html$/);
  expect(html.text.startsWith("<!DOCTYPE html>")).toBe(true);

  expect(await page.evaluate(() => (window as any).__blobTypes)).toEqual(["application/json", "text/csv", "text/html"]);
  expect(requests.filter((p) => p.startsWith("/api/runs/export") || p.startsWith("/api/runs/report"))).toEqual([
    "/api/runs/export",
  ]);

  // The HTML file on its own: nothing outside it is loaded or linked, and it renders and prints.
  const file = test.info().outputPath("report.html");
  fs.writeFileSync(file, html.text);
  const viewer = await page.context().newPage();
  const fetched: string[] = [];
  viewer.on("request", (r) => fetched.push(r.url()));
  await viewer.goto(`file://${file}`);
  expect(fetched).toEqual([`file://${file}`]);
  const external = await viewer.evaluate(() =>
    Array.from(document.querySelectorAll("[src], [href], [srcset], [action], [poster]")).map((e) => e.outerHTML),
  );
  expect(external).toEqual([]);
  expect(await viewer.locator("script").count()).toBe(0);
  await expect(viewer.locator("#run-title")).toHaveText("Exports of 3");
  // The verdict first, under the title, as on the page.
  await expect(viewer.locator(".run-header + #verdict")).toHaveClass(new RegExp(`\\b${shown}\\b`));
  await expect(viewer.locator("svg.scatter")).toBeVisible();
  await expect(viewer.locator("#stats .stat-card").first()).toBeVisible();
  // The server's own metrics when the demo's server was probed (above), or why there are none.
  await expect(viewer.locator("#server")).toContainText(snapshot.server ? "vLLM's /metrics at http" : "did not record its server");
  await expect(viewer.locator("#iterations tbody tr")).toHaveCount(3);
  await viewer.screenshot({ path: "test-results/export-html.png", fullPage: true });
  for (const format of ["A4", "Letter"] as const) {
    const pdf = await viewer.pdf({ format, printBackground: true });
    expect(pdf.subarray(0, 5).toString()).toBe("%PDF-");
  }
  await viewer.close();
});

test("a 10,000-iteration report exports CSV and HTML in the browser (timings recorded)", async ({ page }) => {
  test.setTimeout(180_000);
  // A fast simulator of its own, so 10,000 requests take seconds.
  const sim = spawn(bin, ["sim", "--port", "0", "--ttft-ms", "0", "--itl-ms", "0", "--tokens", "4"], {
    cwd: projectRoot,
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const line: string = await new Promise((resolve) => readline.createInterface({ input: sim.stdout! }).once("line", resolve));
    const baseUrl = line.trim().split(" ").pop()!;
    await page.goto(loginLink());
    const created = await page.request.post("/api/connectors/create", {
      data: { input: { name: "fast sim", baseUrl, model: "sim-model" } },
    });
    expect(created.status()).toBe(200);
    const runId = await runToReport(page, (await created.json()).id, 10_000, 64);
    await expect(page.locator("#stat-n .stat-value")).toHaveText("10000 (10000 ok)");

    // The page does not carry the iterations: its HTML (with the hydration data) stays small.
    const pageBytes = Buffer.byteLength(await (await page.request.get(`/runs/${runId}`)).text());
    expect(pageBytes).toBeLessThan(1_500_000);
    // The table's other pages come from the server, sorted there.
    await expect(page.locator("#table-count")).toHaveText("10000 iteration(s) · page 1 of 100");
    await page.click("#page-next");
    await expect(page.locator("#table-count")).toHaveText("10000 iteration(s) · page 2 of 100");
    await expect(page.locator("#results tbody tr").first().locator("td").first()).toHaveText("100");

    // The snapshot was fetched once, when the page went idle after hydrating; the clicks find it here.
    await expect(page.locator(".export-buttons")).toHaveAttribute("data-fetch-ms", /\d/);
    const timings: Record<string, { clickToDownloadMs: number; inWasmMs: number; bytes: number }> = {};
    for (const format of ["csv", "html"]) {
      const result = await download(page, format);
      timings[format] = {
        clickToDownloadMs: result.ms,
        inWasmMs: Number(await page.locator(`#export-${format}`).getAttribute("data-export-ms")),
        bytes: Buffer.byteLength(result.text),
      };
    }
    const snapshotFetchMs = Number(await page.locator(".export-buttons").getAttribute("data-fetch-ms"));
    expect(snapshotFetchMs).toBeGreaterThan(0);
    expect(timings.csv.bytes).toBeGreaterThan(10_000 * 50);
    expect(timings.html.bytes).toBeGreaterThan(10_000 * 100);
    // Cold: a click the moment the page has hydrated waits for the snapshot still on its way.
    await page.reload();
    await expect(page.locator(".export-buttons")).toHaveAttribute("data-hydrated", "true");
    const cold = await download(page, "csv");
    expect(Buffer.byteLength(cold.text)).toBe(timings.csv.bytes);
    const recorded = { pageBytes, snapshotFetchMs, ...timings, coldCsvClickToDownloadMs: cold.ms };
    console.log(`10,000-iteration report: ${JSON.stringify(recorded)}`);
    fs.writeFileSync("test-results/export-timings.json", JSON.stringify(recorded, null, 2));
  } finally {
    sim.kill();
  }
});

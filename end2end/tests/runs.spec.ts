import { test, expect, type Page } from "@playwright/test";
import { execFileSync } from "node:child_process";
import * as path from "node:path";

const projectRoot = path.resolve(__dirname, "../..");

function loginLink(): string {
  const bin = path.resolve(projectRoot, process.env.LG_BIN ?? "target/debug/latency-guard");
  return execFileSync(bin, ["login-link"], { cwd: projectRoot, encoding: "utf8" }).trim().split("\n").pop()!;
}

/// Opens the new-run form and fills it to send `prompt` `iterations` times to the demo connector, `tokenBudget`
/// tokens each, `concurrency` at once.
async function fillNewRun(page: Page, prompt: string, iterations: number, tokenBudget: number, concurrency = 1) {
  await page.goto("/runs/new");
  await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
  await page.selectOption("#connector", { label: "Demo (simulated) (sim-model)" });
  await page.fill("#prompts", prompt);
  await page.fill("#iterations", String(iterations));
  await page.fill("#concurrency", String(concurrency));
  await page.fill("#token-budget", String(tokenBudget));
}

test("a run's prompts start with marks of their own unless its form lets it find earlier runs' prompts", async ({ page }) => {
  await page.goto(loginLink());
  for (const warm of [false, true]) {
    await fillNewRun(page, "What is a prefix cache?", 3, 8);
    if (warm) {
      await page.locator("details.advanced summary").click();
      await page.check("#cache-warm");
      await page.locator("details.advanced").screenshot({ path: "test-results/run-form-cache-warm.png" });
      await page.setViewportSize({ width: 390, height: 844 });
      await page.locator("details.advanced").screenshot({ path: "test-results/run-form-cache-warm-phone.png" });
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    await page.click("#start-run");
    await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
    await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
    await expect(page.locator("#run-progress .progress-count")).toHaveText("3 / 3 done", { timeout: 30_000 });
    await expect(page.locator("#honesty")).toContainText(
      warm ? "Prompt marks: off." : "Prompt marks: each prompt began with a mark, one of its own per request",
    );
  }
});

test("a run of 10 iterations at concurrency 2 against the demo connector ends in a report", async ({ page }) => {
  const errors: string[] = [];
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(loginLink());
  await fillNewRun(page, "What is latency?", 10, 16, 2);
  await page.click("#start-run");

  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
  const progress = page.locator("#run-progress");
  await expect(progress.locator(".progress-count")).toHaveText("10 / 10 done", { timeout: 30_000 });
  await expect(progress.locator(".status")).toHaveText("completed");
  await expect(progress.locator("progress")).toHaveAttribute("value", "10");

  // The verdict comes first, right under the run's header: valid, every check behind it one click away.
  const verdict = page.locator("#verdict");
  await expect(verdict).toBeVisible();
  // Valid, unless the test machine was busy enough to wake the server's event loop late (then that alone is said).
  const failed = await verdict.locator("li.failed").evaluateAll((items) => items.map((i) => i.getAttribute("data-check")));
  expect(failed.filter((check) => check !== "client timing"), await verdict.innerText()).toEqual([]);
  if (failed.length === 0) await expect(verdict.locator("h3")).toHaveText("Valid: the run measured what it asked");
  await expect(verdict.locator("li[data-check='samples']")).toContainText("samples passed: 10 successful request(s)");
  await expect(verdict.locator("li[data-check='steady state']")).toContainText("in flight for");
  const [verdictTop, statsTop] = [await verdict.boundingBox(), await page.locator("#stats").boundingBox()];
  expect(verdictTop!.y).toBeLessThan(statsTop!.y);
  // The report: p50/p95/p99 for TTFT and total, honest notes, every iteration, and the scatter.
  // The first figure is what the system delivered: output throughput with requests/s over the measured span.
  await expect(page.locator("#stats .stat-card").first()).toHaveAttribute("id", "stat-throughput");
  await expect(page.locator("#stat-throughput .stat-value")).toHaveText(/^\d+\.\d tok\/s · \d+\.\d\d requests\/s over \d+\.\d s$/);
  await expect(page.locator("#stat-tps .stat-label")).toHaveText("One request's output speed");
  await expect(page.locator("#stat-ttft .stat-value")).toHaveText(/^\d+(\.\d)? ms \/ \d+(\.\d)? ms \/ \d+(\.\d)? ms$/);
  await expect(page.locator("#stat-total .stat-value")).toHaveText(/ms \/ .* ms \/ .* ms$/);
  await expect(page.locator("#stat-n .stat-value")).toHaveText("10 (10 ok)");
  await expect(page.locator("#honesty")).toContainText("linear interpolation");
  await expect(page.locator("#results tbody tr")).toHaveCount(10);
  await expect(page.locator(".chart-box svg.scatter circle.ttft")).toHaveCount(11); // 10 points + the legend
  // The distribution: histogram bars hold all 10 requests of each series, and a CDF line per series.
  const barCounts = await page.locator("#histogram svg rect.bar.total title").allTextContents();
  expect(barCounts.reduce((sum, t) => sum + Number(t.match(/: (\d+) request/)![1]), 0)).toBe(10);
  await expect(page.locator("#cdf svg polyline.cdf-line")).toHaveCount(2);
  await page.screenshot({ path: "test-results/run-report.png", fullPage: true });

  // Opened again, the finished run's page has all it shows: it neither follows the run's event stream (which
  // sends every iteration again as points, 7 MB at 100,000) nor fetches its report a second time.
  const requests: string[] = [];
  page.on("request", (r) => requests.push(new URL(r.url()).pathname));
  await page.goto(page.url());
  await expect(page.locator(".export-buttons")).toHaveAttribute("data-hydrated", "true");
  await expect(page.locator(".export-buttons")).toHaveAttribute("data-fetch-ms", /\d/); // idle: the export fetch is done
  await expect(page.locator("#stat-n .stat-value")).toHaveText("10 (10 ok)");
  await expect(page.locator(".chart-box svg.scatter circle.ttft")).toHaveCount(11);
  expect(requests.filter((p) => p.endsWith("/events") || p === "/api/runs/view")).toEqual([]);
  expect(requests).toContain("/api/runs/export");

  await page.click("a[href='/runs']");
  await expect(page.locator("tr.run-row").first()).toContainText("completed");
  expect(errors).toEqual([]);
});

test("a run of one request is invalid for its median, and its report says what to change first", async ({ page }) => {
  await page.goto(loginLink());
  await fillNewRun(page, "Just once", 1, 8);
  await page.click("#start-run");
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  const verdict = page.locator("#verdict");
  await expect(verdict).toHaveClass(/\binvalid\b/, { timeout: 30_000 });
  await expect(verdict.locator("h3")).toHaveText("Invalid: these figures do not describe the endpoint under the load asked");
  // The samples check fails; on a busy machine the client's timing may fail too, and the verdict says so.
  const reason = verdict.locator("li.failed", { hasText: "samples failed" });
  await expect(reason).toHaveCount(1);
  await expect(reason).toContainText("samples failed: 1 successful request(s); p50");
  await expect(reason.locator(".change")).toHaveText("Change: Send at least 2 requests (more iterations, or a longer time limit).");
  await verdict.screenshot({ path: "test-results/run-verdict-invalid.png" });
  await page.setViewportSize({ width: 390, height: 844 });
  await verdict.screenshot({ path: "test-results/run-verdict-invalid-phone.png" });
});

test("a running run's scatter grows as its iterations finish, drawn by the server", async ({ page }) => {
  const events: string[] = [];
  page.on("request", (r) => r.url().includes("/events") && events.push(new URL(r.url()).search));
  await page.goto(loginLink());
  await page.goto("/runs/new");
  await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
  await page.selectOption("#connector", { label: "Demo (simulated) (sim-model)" });
  await page.fill("#prompts", "What is latency?");
  await page.fill("#iterations", "20"); // about 240 ms each, one at a time: five seconds
  await page.fill("#concurrency", "1");
  await page.fill("#token-budget", "8");
  await page.click("#start-run");
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");

  // While the run goes, the chart shows more points than the page came with (circle.ttft: the points + the
  // legend; a chart of no iterations yet has neither). Once the run is over this reads -1.
  const progress = page.locator("#run-progress");
  const drawnWhileRunning = async () =>
    (await progress.locator(".status").textContent()) === "running"
      ? Math.max((await page.locator(".chart-box svg.scatter circle.ttft").count()) - 1, 0)
      : -1;
  await expect(progress.locator(".status")).toHaveText("running");
  // The figures say they are the run's so far, and no note warns of a sample that is still arriving.
  await expect(page.locator("#so-far")).toContainText("the figures over the requests finished so far");
  await expect(page.locator("#stat-n .stat-value")).toContainText("so far");
  await expect(page.locator("#stats")).not.toContainText("not measurable");
  await expect(page.locator("#honesty")).toContainText("Sample so far:");
  await expect(page.locator("#honesty")).not.toContainText("Small sample");
  const atFirst = await drawnWhileRunning();
  expect(atFirst).toBeGreaterThanOrEqual(0);
  await expect.poll(drawnWhileRunning, { timeout: 10_000 }).toBeGreaterThan(Math.max(atFirst, 2));
  await expect(progress.locator(".progress-count")).toHaveText("20 / 20 done", { timeout: 30_000 });
  await expect(page.locator(".chart-box svg.scatter circle.ttft")).toHaveCount(21);
  // Once it is over, the figures are the run's: 20 successful iterations are a small sample for p95 and p99.
  await expect(page.locator("#stat-n .stat-value")).toHaveText("20 (20 ok)");
  await expect(page.locator("#so-far")).toHaveCount(0);
  await expect(page.locator("#honesty")).toContainText("Sample: 20 measured iterations");
  // The page followed the counters alone: the points come drawn.
  expect(events).toEqual(["?points=false"]);
});

test("the run form's further settings are validated, sent, and shown with the report", async ({ page }) => {
  await page.goto(loginLink());
  await page.goto("/runs/new");
  await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
  await page.selectOption("#connector", { label: "Demo (simulated) (sim-model)" });
  await page.fill("#prompts", "Say hi\nWhat is latency?");
  await page.fill("#iterations", "2");
  await page.fill("#warmup", "2");
  await page.fill("#token-budget", "8");
  await page.click("details.advanced summary");
  await page.fill("#title", "Settings check");

  // Bad values are named before anything is sent.
  await page.fill("#tools", "[{\"type\": \"function\"");
  await page.click("#start-run");
  // Read by the browser's own JSON parser, whose message says where the text stops being JSON.
  await expect(page.locator(".error")).toContainText("agent.tools");
  await expect(page.locator(".error")).toContainText("not a JSON array of tool objects: not JSON: ");
  await page.fill("#tools", "[\"lookup\"]");
  await page.click("#start-run");
  await expect(page.locator(".error")).toContainText("tool 0 is not a JSON object");
  await page.fill("#tools", '[{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}]');
  await page.fill("#temperature", "2.5");
  await page.click("#start-run");
  await expect(page.locator(".error")).toContainText("temperature");
  await page.fill("#temperature", "0.7");
  await page.fill("#timeout", "0");
  await page.click("#start-run");
  await expect(page.locator(".error")).toContainText("timeout must be above 0");
  await page.fill("#timeout", "30");
  await page.fill("#duration", "0.5");
  await page.click("#start-run");
  await expect(page.locator(".error")).toContainText("durationS: must be between 1 and 86400 seconds");
  // A limit the 4 requests never reach: every one is sent, and the report says so.
  await page.fill("#duration", "60");
  await page.fill("#retries", "9");
  await page.click("#start-run");
  await expect(page.locator(".error")).toContainText("retries");
  await page.fill("#retries", "2");
  await page.check("#fresh-connections");
  await page.fill("#slos", "ttft_ms<=60000\nlatency<=3");
  await page.click("#start-run");
  await expect(page.locator(".error")).toContainText("slos[1]");
  await page.fill("#slos", "total_ms<=60000\nttft_p95_ms<=60000");
  await page.click("#start-run");

  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  await expect(page.locator("#run-title")).toHaveText("Settings check");
  await expect(page.locator("#run-progress .status")).toHaveText("completed", { timeout: 30_000 });
  await expect(page.locator("#run-settings")).toHaveText(
    "temperature 0.7 · timeout 30 s per request · time limit 60 s from the first measured send · up to 2 retries after HTTP 429 · " +
      "a fresh connection per request · 2 warm-up request(s), excluded from stats · 1 tool(s) sent",
  );
  // Warm-ups are run and listed, but the sample counts only the 2 prompts × 2 iterations.
  await expect(page.locator("#results tbody tr")).toHaveCount(6);
  await expect(page.locator("#results tbody tr.warmup")).toHaveCount(2);
  await expect(page.locator("#stat-n .stat-value")).toHaveText("4 (4 ok)");
  // The objectives: every request good, both objectives met, TPOT and ITL measured.
  await expect(page.locator("#stat-goodput .stat-value")).toContainText("(100.0% good: 4 of 4)");
  await expect(page.locator("#stat-objectives .stat-value")).toContainText("ttft_p95_ms<=60000 met");
  await expect(page.locator("#stat-tpot .stat-value")).not.toHaveText("not measurable");
  await expect(page.locator(".honesty")).toContainText("4 of at most 4 measured requests were sent (every one planned, before the limit)");
});

test("the report list searches, renames and deletes; the table sorts, filters and pages", async ({ page }) => {
  await page.goto(loginLink());
  const connectors = await (await page.request.post("/api/connectors/list", { data: {} })).json();
  const demo = connectors.find((c: any) => c.name === "Demo (simulated)");
  const start = async (title: string, iterations: number) => {
    const response = await page.request.post("/api/runs/start", {
      data: { input: { connectorId: demo.id, title, agent: { name: "list-bot", tokenBudget: 4 }, prompts: ["hi"],
                       iterations, mode: { kind: "closed", concurrency: 8 } } },
    });
    return (await response.json()).id as string;
  };
  const keep = await start("Nightly list check", 150);
  const drop = await start("Scratch list check", 2);
  await expect
    .poll(async () => (await (await page.request.post("/api/runs/report", { data: { id: keep } })).json()).run.status, {
      timeout: 30_000,
    })
    .toBe("completed");

  await page.goto("/runs");
  await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
  // Each run says which connector it measured and its headline figures, as the report's first cards.
  const kept = page.locator("tr.run-row", { hasText: "Nightly list check" });
  await expect(kept.locator("td").nth(1)).toContainText("Demo (simulated)");
  await expect(kept.locator("td").nth(3)).toHaveText(/^\d+\.\d tok\/s$/);
  await expect(kept.locator("td").nth(4)).toHaveText(/^\d+(\.\d+)? ms$/);
  await expect(kept.locator("td").nth(5)).toHaveText("0.0 % of 150");
  await page.fill("#run-search", "demo nightly");
  await expect(page.locator("tr.run-row")).toHaveCount(1);
  await page.fill("#run-search", "scratch LIST");
  await expect(page.locator("tr.run-row")).toHaveCount(1);
  await expect(page.locator("tr.run-row")).toContainText("Scratch list check");

  // Rename, then delete after confirming; keeping it is one click away.
  const row = page.locator("tr.run-row").first();
  await row.locator(".rename-run").click();
  await row.locator(".rename-input").fill("Scratch list check, renamed");
  await row.locator(".rename-save").click();
  await expect(row.locator("a")).toHaveText("Scratch list check, renamed");
  await row.locator(".delete-run").click();
  await expect(row.locator(".confirm")).toContainText("for good?");
  await row.getByRole("button", { name: "Keep" }).click();
  await expect(row.locator(".delete-run")).toBeVisible();
  await row.locator(".delete-run").click();
  await row.locator(".confirm-delete").click();
  await expect(page.locator("tr.run-row")).toHaveCount(0);
  expect((await page.request.post("/api/runs/report", { data: { id: drop } })).status()).toBe(404);
  await page.fill("#run-search", "");
  await expect(page.locator("tr.run-row", { hasText: "Nightly list check" })).toHaveCount(1);

  // The 150-iteration report's table: pages of 100 asked of the server, sortable, filterable to failures.
  await page.goto(`/runs/${keep}`);
  await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
  await expect(page.locator("#table-count")).toHaveText("150 iteration(s) · page 1 of 2");
  await expect(page.locator("#results tbody tr")).toHaveCount(100);
  // Units once, in the headings; the cells are numbers.
  await expect(page.locator("#results thead")).toContainText("TTFT (ms)");
  await expect(page.locator("#results thead")).toContainText("Total (ms)");
  await expect(page.locator("#results tbody tr").first().locator("td").nth(4)).toHaveText(/^\d+(\.\d+)?$/);
  const loading = async (click: Promise<void>) => {
    await Promise.all([page.waitForResponse((r) => r.url().endsWith("/api/runs/table") && r.ok()), click]);
    await expect(page.locator("#results")).toHaveAttribute("aria-busy", "false");
  };
  await loading(page.click("#page-next"));
  await expect(page.locator("#results tbody tr")).toHaveCount(50);
  await loading(page.click("button[data-sort='Total']"));
  await expect(page.locator("#table-count")).toHaveText("150 iteration(s) · page 1 of 2");
  const totals = async () =>
    (await page.locator("#results tbody tr td:nth-child(5)").allTextContents()).map((t) => parseFloat(t));
  const ascending = await totals();
  expect(ascending).toHaveLength(100);
  expect(ascending).toEqual([...ascending].sort((a, b) => a - b));
  await loading(page.click("button[data-sort='Total']"));
  const descending = await totals();
  expect(descending[0]).toBeGreaterThanOrEqual(ascending[99]);
  expect(descending).toEqual([...descending].sort((a, b) => b - a));
  await page.check("#errors-only");
  await expect(page.locator("#table-count")).toHaveText("0 iteration(s) · page 1 of 1");
  await expect(page.locator("#results tbody tr")).toHaveCount(0);
});

import { test, expect, Page } from "@playwright/test";
import { execFileSync } from "node:child_process";
import * as path from "node:path";

const projectRoot = path.resolve(__dirname, "../..");

function loginLink(): string {
  const bin = path.resolve(projectRoot, process.env.LG_BIN ?? "target/debug/latency-guard");
  return execFileSync(bin, ["login-link"], { cwd: projectRoot, encoding: "utf8" }).trim().split("\n").pop()!;
}

async function finishedRun(page: Page, connectorId: string, title: string, maxTokens: number): Promise<string> {
  const started = await page.request.post("/api/runs/start", {
    data: {
      input: {
        connectorId,
        title,
        agent: { name: "cmp-bot", tokenBudget: maxTokens },
        prompts: ["hello"],
        iterations: 4,
        mode: { kind: "closed", concurrency: 2 },
        slos: ["total_ms<=60000"],
      },
    },
  });
  const run = await started.json();
  await expect
    .poll(async () => (await (await page.request.post("/api/runs/report", { data: { id: run.id } })).json()).run.status, {
      timeout: 30_000,
    })
    .toBe("completed");
  return run.id;
}

test("two runs compared side by side, with tests, CDFs and a warning when they differ", async ({ page }) => {
  await page.goto(loginLink());
  const connectors = await (await page.request.post("/api/connectors/list", { data: {} })).json();
  const demo = connectors.find((c: any) => c.name === "Demo (simulated)");
  const before = await finishedRun(page, demo.id, "Compare before", 8);
  const after = await finishedRun(page, demo.id, "Compare after", 4);

  await page.goto("/compare");
  await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
  await page.selectOption("#baseline", before);
  await page.selectOption("#candidate", after);
  await expect(page).toHaveURL(new RegExp(`baseline=${before}`));
  await expect(page).toHaveURL(new RegExp(`candidate=${after}`));

  const figures = page.locator("#compare-figures");
  await expect(figures.locator("thead")).toContainText("Baseline: Compare before");
  // What the system delivered comes first, then the latencies; one request's speed is named as such.
  await expect(figures.locator("tbody tr").first()).toContainText(/^Output throughput \(tok\/s\)\d/);
  await expect(figures.locator("tbody tr").nth(1)).toContainText("Requests/s");
  await expect(figures.locator("tbody tr", { hasText: "One request's output speed (tok/s)" })).toBeVisible();
  const ttft = figures.locator("tbody tr", { hasText: "TTFT p50" });
  await expect(ttft).toContainText(/TTFT p50.*ms.*ms.*ms/);
  await expect(ttft.locator(".delta").last()).toHaveText(/^[+-]?\d+\.\d%$|^—$/);
  // Counts are whole numbers, on each side and as the change.
  await expect(figures.locator("tbody tr", { hasText: "Sample size" }).locator("td")).toHaveText(["4", "4", "0", "0.0%"]);
  // Goodput against each run's own objectives; the notes say why pooled requests understate run-to-run change.
  await expect(figures.locator("tbody tr", { hasText: "Good requests" }).locator("td").nth(1)).toHaveText("100.00 pp");
  await expect(figures.locator("tbody tr", { hasText: "Goodput (good req/s)" })).toBeVisible();
  await expect(page.locator("main")).toContainText("compare the repetitions on the repeated run's page, where each repetition is one observation");
  const tests = page.locator("#compare-tests tbody tr");
  await expect(tests.first()).toContainText("4 / 4");
  await expect(tests.first().locator(".p-welch")).toHaveText(/^(\d\.\d{4}|\d\.\d\de-\d+|not computable)$/);
  await expect(page.locator("#cdf-total svg polyline.cdf-line")).toHaveCount(2); // baseline and candidate
  await expect(page.locator("#cdf-ttft svg polyline.cdf-line")).toHaveCount(2);
  await expect(page.locator("#compare-warnings")).toContainText("Different max_tokens: 8 (baseline) vs 4 (candidate)");
  await page.screenshot({ path: "test-results/compare.png", fullPage: true });
});

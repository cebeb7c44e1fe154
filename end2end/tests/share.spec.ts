import { test, expect } from "@playwright/test";
import { execFileSync } from "node:child_process";
import * as path from "node:path";

const projectRoot = path.resolve(__dirname, "../..");

function loginLink(): string {
  const bin = path.resolve(projectRoot, process.env.LG_BIN ?? "target/debug/latency-guard");
  return execFileSync(bin, ["login-link"], { cwd: projectRoot, encoding: "utf8" }).trim().split("\n").pop()!;
}

test("a share link opens the report for someone without a session, until it is revoked", async ({ page, browser }) => {
  await page.goto(loginLink());
  const connectors = await (await page.request.post("/api/connectors/list", { data: {} })).json();
  const demo = connectors.find((c: any) => c.name === "Demo (simulated)");
  const started = await page.request.post("/api/runs/start", {
    data: {
      input: {
        connectorId: demo.id,
        title: "Shared with the team",
        agent: { name: "share-bot", tokenBudget: 4 },
        prompts: ["hello"],
        iterations: 3,
        mode: { kind: "closed", concurrency: 1 },
      },
    },
  });
  const run = await started.json();
  await page.goto(`/runs/${run.id}`);
  await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
  await expect(page.locator("#run-progress .status")).toHaveText("completed", { timeout: 30_000 });
  await expect(page.locator("#share-status")).toHaveText("Not shared.");

  await page.click("#share-create");
  const url = await page.locator("#share-url").inputValue();
  expect(url).toMatch(new RegExp(`^http://[^/]+/share/${run.id}#[A-Za-z0-9_-]{43}$`));
  // Copy puts the link shown once on the clipboard, and says it did.
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.click("#copy-share-url");
  await expect(page.locator("#copy-share-url")).toHaveText("Copied");
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(url);
  await expect(page.locator("#share-status")).toContainText("Shared since");

  // Someone else: a fresh browser context, no cookie. The token travels only in the header, never in a URL.
  const stranger = await browser.newContext();
  const reader = await stranger.newPage();
  const requested: string[] = [];
  reader.on("request", (r) => requested.push(r.url()));
  await reader.goto(url);
  await expect(reader.locator("#run-title")).toHaveText("Shared with the team");
  await expect(reader.locator("#stat-n .stat-value")).toHaveText("3 (3 ok)");
  await expect(reader.locator("#honesty")).toContainText("linear interpolation");
  await expect(reader.locator(".chart-box svg.scatter")).toBeVisible();
  await expect(reader.locator("#histogram svg rect.bar").first()).toBeVisible();
  await expect(reader.locator("#export-csv")).toBeVisible();
  await expect(reader.locator("#share-create")).toHaveCount(0); // read-only: no owner controls
  await expect(reader.locator(".sidebar a")).toHaveCount(0); // and no way into the workspace
  // The table sorts on the server through the share route; an export fetches the snapshot with the token.
  const totals = async () =>
    (await reader.locator("#results tbody tr td:nth-child(5)").allTextContents()).map((t) => parseFloat(t));
  await reader.click('button[data-sort="Total"]');
  await Promise.all([
    reader.waitForResponse((r) => r.url().includes(`/api/public/reports/${run.id}/table?sort=total&descending=true`) && r.ok()),
    reader.click('button[data-sort="Total"]'),
  ]);
  await expect(reader.locator('button[data-sort="Total"]')).toHaveText("Total (ms) ▼");
  await expect(reader.locator("#results")).toHaveAttribute("aria-busy", "false");
  const shown = await totals();
  expect(shown).toHaveLength(3);
  expect(shown).toEqual([...shown].sort((a, b) => b - a));
  const [csv] = await Promise.all([reader.waitForEvent("download"), reader.click("#export-csv")]);
  expect(csv.suggestedFilename()).toMatch(/\.csv$/);
  expect(require("node:fs").readFileSync((await csv.path())!, "utf8")).toMatch(/^report_id,agent,connector_model,prompt,/);
  const token = url.split("#")[1];
  expect(requested.filter((u) => u.includes(token))).toEqual([]);
  await reader.screenshot({ path: "test-results/shared-report.png", fullPage: true });

  // The owner revokes it; the same link now opens nothing.
  await page.click("#share-revoke");
  await expect(page.locator("#share-status")).toHaveText("Not shared.");
  await reader.reload();
  await expect(reader.locator(".error")).toContainText("does not open a report");
  await expect(reader.locator("#run-title")).toHaveCount(0);
  await stranger.close();
});

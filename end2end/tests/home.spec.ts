import { test, expect, Page } from "@playwright/test";
import { execFileSync } from "node:child_process";
import * as path from "node:path";

// Run by scripts/test.sh against a server of its own on a fresh database (`--grep @fresh-install`), and left out
// of the run that shares one database between every other test: it walks an install nobody has used yet.

const projectRoot = path.resolve(__dirname, "../..");

function loginLink(): string {
  const bin = path.resolve(projectRoot, process.env.LG_BIN ?? "target/debug/latency-guard");
  return execFileSync(bin, ["login-link"], { cwd: projectRoot, encoding: "utf8" }).trim().split("\n").pop()!;
}

async function hydrated(page: Page) {
  await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
}

/// The page at a desktop's and a phone's width, whole and its first screen, back at the desktop's width after.
async function screenshots(page: Page, name: string) {
  for (const [device, width] of [["desktop", 1280], ["phone", 390]] as const) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    await page.screenshot({ path: `test-results/${device}-${name}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

test("@fresh-install a newcomer goes from the login link to a finished demo run using only what the first page offers", async ({ page }) => {
  test.setTimeout(120_000);
  const errors: string[] = [];
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  page.on("pageerror", (e) => errors.push(String(e)));

  // The login lands on the home page, which says what to do first.
  await page.goto(loginLink());
  await expect(page).toHaveURL(/\/$/);
  await hydrated(page);
  await expect(page.locator("h1")).toHaveText("Home");
  const steps = page.locator("#first-steps");
  await expect(steps).toContainText("4 of 4 steps left");
  await expect(steps.locator("li.step strong")).toHaveText(["Run the demo", "Add your endpoint", "Benchmark it", "Schedule a check"]);
  await expect(page.locator("#home-no-runs")).toContainText("No runs yet. Run the demo above");
  await expect(page.locator("#home-no-schedules")).toContainText("Schedule a check");
  await expect(page.locator(".sidebar a[aria-current='page']")).toHaveText("Home");
  await screenshots(page, "home-new");

  // One click: the demo run starts and its report follows it live to the end.
  await page.click("#run-demo");
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  await hydrated(page);
  const progress = page.locator("#run-progress");
  await expect(progress.locator(".progress-count")).toHaveText("128 / 128 done", { timeout: 60_000 });
  await expect(progress.locator(".status")).toHaveText("completed");
  await expect(page.locator("#stats .stat-card").first()).toHaveAttribute("id", "stat-throughput");
  await expect(page.locator("#stat-throughput .stat-value")).toHaveText(/^\d+\.\d tok\/s · \d+\.\d\d requests\/s over \d+\.\d s$/);
  await expect(page.locator("#stat-n .stat-value")).toHaveText("120 (120 ok)");
  const throughput = (await page.locator("#stat-throughput .stat-value").textContent())!.split(" · ")[0];
  await screenshots(page, "report-demo");

  // Home again: the step is done, the run listed with the figure its report leads with.
  await page.click(".sidebar a[href='/']");
  await expect(page).toHaveURL(/\/$/);
  await expect(steps).toContainText("3 of 4 steps left");
  await expect(page.locator("#step-demo")).toHaveClass(/done/);
  await expect(page.locator("#run-demo")).toHaveText("Run the demo again");
  const row = page.locator("tr.home-run");
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("Demo run");
  await expect(row).toContainText("Demo (simulated)");
  await expect(row).toContainText("completed");
  await expect(row).toContainText(throughput);
  await expect(row).toContainText("0.0 % of 120");
  await screenshots(page, "home");
  expect(errors).toEqual([]);
});

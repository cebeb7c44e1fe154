import { test, expect, Page } from "@playwright/test";
import { execFileSync } from "node:child_process";
import * as path from "node:path";

const projectRoot = path.resolve(__dirname, "../..");

// A fresh one-time login link from the same binary and settings as the server under test (scripts/test.sh
// exports them), exactly as a user would run `latency-guard login-link`.
function loginLink(): string {
  const bin = path.resolve(projectRoot, process.env.LG_BIN ?? "target/debug/latency-guard");
  return execFileSync(bin, ["login-link"], { cwd: projectRoot, encoding: "utf8" }).trim().split("\n").pop()!;
}

function collectConsoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(String(e)));
  return errors;
}

async function hydrated(page: Page) {
  await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
}

/// Signs in (a login lands on the home page) and opens the connector list.
async function signInToConnectors(page: Page) {
  await page.goto(loginLink());
  await expect(page).toHaveURL(/\/$/);
  await page.goto("/connectors");
  await hydrated(page);
}

test("a new user logs in, tests a connection to the simulator, saves it and finds it again", async ({ page }, testInfo) => {
  const errors = collectConsoleErrors(page);
  await page.goto(loginLink());
  await expect(page).toHaveURL(/\/$/); // the home page
  await hydrated(page);
  await page.click(".sidebar a[href='/connectors']");
  await expect(page).toHaveURL(/\/connectors$/);

  const demoRow = page.locator("tr.connector-row", { hasText: "Demo (simulated)" });
  await expect(demoRow).toBeVisible();
  const simBase = (await demoRow.locator("td.mono").first().textContent())!.trim();
  expect(simBase).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);

  await page.click("#new-connector");
  await expect(page).toHaveURL(/\/connectors\/new$/);
  await hydrated(page);
  await page.fill("#name", "Local simulator");
  await page.fill("#base-url", simBase);
  await page.fill("#model", "sim-model");
  await page.fill("#api-key", "sk-e2e-never-shown");

  await page.click("#test-connection");
  const result = page.locator("#test-result");
  await expect(result).toContainText("ok");
  await expect(result.locator(".status")).toHaveText("200");
  await expect(result).toContainText("chat.completion");
  await page.screenshot({ path: "test-results/connector-form.png", fullPage: true });

  await page.click("#save");
  await expect(page).toHaveURL(/\/connectors$/);
  const saved = page.locator("tr.connector-row", { hasText: "Local simulator" });
  await expect(saved).toBeVisible();
  await expect(saved).toContainText("set");

  await page.reload();
  await hydrated(page);
  await expect(page.locator("tr.connector-row", { hasText: "Local simulator" })).toBeVisible();
  expect(await page.content()).not.toContain("sk-e2e-never-shown");

  await page.screenshot({ path: testInfo.outputPath("connectors.png"), fullPage: true });
  await page.screenshot({ path: "test-results/connectors-page.png", fullPage: true });
  expect(errors).toEqual([]);
});

test("editing keeps the stored key without ever showing it", async ({ page }) => {
  await signInToConnectors(page);
  const row = page.locator("tr.connector-row", { hasText: "Local simulator" });
  await row.getByRole("link", { name: "Edit" }).click();
  await expect(page).toHaveURL(/\/connectors\/[0-9a-f-]{36}$/);
  await hydrated(page);
  await expect(page.locator("#api-key")).toHaveValue("");
  await expect(page.locator("#api-key")).toHaveAttribute("placeholder", /stored/);
  await page.fill("#name", "Local simulator (edited)");
  await page.click("#test-connection");
  await expect(page.locator("#test-result .status")).toHaveText("200");
  await page.click("#save");
  await expect(page).toHaveURL(/\/connectors$/);
  const edited = page.locator("tr.connector-row", { hasText: "Local simulator (edited)" });
  await expect(edited).toBeVisible();
  await expect(edited.locator("td").nth(3)).toHaveText("set");
  expect(await page.content()).not.toContain("sk-e2e-never-shown");
});

test("a wrong base URL gets a status, and a hint that names the likely mistake", async ({ page }) => {
  const errors = collectConsoleErrors(page);
  await signInToConnectors(page);
  const stored = await page.locator("tr.connector-row").count();
  const simBase = (await page.locator("tr.connector-row", { hasText: "Demo (simulated)" }).locator("td.mono").first().textContent())!.trim();
  await page.goto("/connectors/new");
  await hydrated(page);
  await page.fill("#base-url", simBase.replace(/\/v1$/, ""));
  await page.fill("#model", "sim-model");
  await page.click("#test-connection");
  await expect(page.locator("#test-result .status")).toHaveText("404");
  await expect(page.locator("#test-result .hint")).toContainText("/v1");

  // Saving without a name names the field and stores nothing.
  await page.click("#save");
  await expect(page.locator("#save-error")).toContainText("name");
  await page.goto("/connectors");
  await expect(page.locator("tr.connector-row")).toHaveCount(stored);
  // The refused save is a 400 reply by design; the browser logs any 4xx. Nothing else may fail.
  expect(errors.filter((e) => !e.includes("status of 400"))).toEqual([]);
});

test("deleting asks for confirmation first", async ({ page }) => {
  await signInToConnectors(page);
  const rows = page.locator("tr.connector-row");
  const before = await rows.count();
  // The connector the first test made (the demo one stays for the run tests).
  const row = page.locator("tr.connector-row", { hasText: "Local simulator" });
  await row.getByRole("button", { name: "Delete" }).click();
  await expect(row).toContainText("Delete this connector?");
  await row.getByRole("button", { name: "Cancel" }).click();
  await expect(rows).toHaveCount(before);
  await row.getByRole("button", { name: "Delete" }).click();
  await row.locator("button.confirm-delete").click();
  await expect(rows).toHaveCount(before - 1);
});

test("probing the demo connector's server says what it is: the simulator speaks as a vLLM server that drafts", async ({ page }) => {
  const errors = collectConsoleErrors(page);
  await signInToConnectors(page);
  const demoRow = page.locator("tr.connector-row", { hasText: "Demo (simulated)" });
  await demoRow.getByRole("link", { name: "Edit" }).click();
  await expect(page).toHaveURL(/\/connectors\/[0-9a-f-]{36}$/);
  await hydrated(page);

  // The simulator serves vLLM's /metrics and /version (and a tokenizer of its own): the probe identifies it, its
  // version and its speculative decoding, path by path, so Spec Lab can be tried without a GPU.
  await page.click("#probe-server");
  const result = page.locator("#probe-result");
  await expect(result.locator("#probe-engine")).toHaveText("vLLM");
  await expect(result).toContainText("latency-guard-sim-");
  await expect(result.locator("#probe-speculation")).toContainText("configured yes");
  await expect(result.locator("#probe-paths tbody tr").first()).toContainText("/metrics");
  await expect(result.locator("#probe-paths tbody tr").first()).toContainText("200");
  await expect(result.locator("#probe-paths tbody tr").last()).toContainText("/tokenize");
  await page.screenshot({ path: "test-results/connector-probe-demo.png", fullPage: true });
  expect(errors).toEqual([]);
});

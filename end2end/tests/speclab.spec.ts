import { test, expect, Page } from "@playwright/test";
import { execFileSync, spawn, ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as readline from "node:readline";

const projectRoot = path.resolve(__dirname, "../..");
const bin = path.resolve(projectRoot, process.env.LG_BIN ?? "target/debug/latency-guard");
// The tests' Python with xllamacpp, gguf and numpy (scripts/setup.sh --test installs it; scripts/test.sh exports it).
const python = process.env.LG_PYTHON ?? path.resolve(projectRoot, "target/test-python/bin/python");

function loginLink(): string {
  return execFileSync(bin, ["login-link"], { cwd: projectRoot, encoding: "utf8" }).trim().split("\n").pop()!;
}

/// A real llama.cpp server (the xllamacpp wheel, a tiny local model); with `draft`, it drafts with itself.
/// Resolves to its base URL. It stops when its standard input closes (the test kills it).
async function llamaServer(draft: boolean, started: ChildProcess[]): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lg-llama-"));
  const script = path.resolve(projectRoot, "tests/support/llama_server.py");
  // The server's own log stays beside the test's results: when a request stalls, it says what the server did.
  const results = path.resolve(__dirname, "../test-results");
  fs.mkdirSync(results, { recursive: true });
  const log = fs.openSync(path.join(results, `llama-${draft ? "drafting" : "plain"}.log`), "w");
  // Port 0: the script picks a free port, and another if that one is taken before its server binds it.
  const server = spawn(python, [script, "0", dir, ...(draft ? ["--draft"] : [])], {
    cwd: projectRoot,
    stdio: ["pipe", "pipe", log],
  });
  started.push(server);
  const line: string = await new Promise((resolve) => readline.createInterface({ input: server.stdout! }).once("line", resolve));
  expect(line).toMatch(/^READY http/);
  return line.trim().split(" ").pop()!;
}

// A failed test prints the end of each llama.cpp server's log, so that a run whose output is all that is kept
// still says what the servers were doing.
test.afterEach(async ({}, testInfo) => {
  if (testInfo.status === testInfo.expectedStatus) return;
  for (const kind of ["plain", "drafting"]) {
    const file = path.resolve(__dirname, `../test-results/llama-${kind}.log`);
    if (!fs.existsSync(file)) continue;
    const lines = fs.readFileSync(file, "utf8").trimEnd().split("\n");
    console.log(`--- the ${kind} llama.cpp server's log, last 40 of ${lines.length} lines ---\n${lines.slice(-40).join("\n")}`);
  }
});

async function hydrated(page: Page) {
  await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
}

test("a user probes two llama.cpp servers and A/B tests speculative decoding, panel and export included", async ({ page }) => {
  test.setTimeout(120_000);
  const servers: ChildProcess[] = [];
  try {
    const [plain, drafting] = await Promise.all([llamaServer(false, servers), llamaServer(true, servers)]);
    await page.goto(loginLink());
    for (const [name, baseUrl] of [["Spec off", plain], ["Spec on", drafting]]) {
      const created = await page.request.post("/api/connectors/create", { data: { input: { name, baseUrl, model: "tiny" } } });
      expect(created.status()).toBe(200);
    }

    // The probe, from the Spec Lab page: the drafting server is identified and its drafting seen.
    await page.goto("/spec-lab");
    await hydrated(page);
    for (const name of ["Spec off", "Spec on"]) {
      await page.selectOption("#probe-connector", { label: `${name} · ${name === "Spec on" ? drafting : plain}` });
      await page.click("#probe-server");
      await expect(page.locator("#probe-engine")).toHaveText("llama.cpp");
    }
    await expect(page.locator("#probe-speculation")).toContainText("configured yes");
    await page.screenshot({ path: "test-results/spec-lab-probe.png", fullPage: true });

    // The A/B form: the baseline without drafts against the candidate with them, two load levels.
    await page.reload();
    await hydrated(page);
    await page.selectOption("#ab-baseline", { label: "Spec off (tiny) · llama.cpp" });
    await page.selectOption("#ab-candidate", { label: "Spec on (tiny) · llama.cpp" });
    await page.fill("#ab-prompts", "count to ten\nsay hello");
    await page.fill("#ab-iterations", "4");
    await page.fill("#ab-max-tokens", "16");
    await page.fill("#ab-concurrencies", "1, 2");
    await page.click("#start-ab");
    await expect(page).toHaveURL(/\/spec-lab\/ab\/[0-9a-f-]+$/);
    await hydrated(page);
    await expect(page.locator("#ab-status")).toHaveText("completed", { timeout: 60_000 });
    await expect(page.locator("#ab-title")).toHaveText("Spec off vs Spec on");

    // Each cell: a verdict, the bottleneck panel with both arms split into prefill and decode, and acceptance.
    const cells = page.locator(".ab-cell");
    await expect(cells).toHaveCount(2);
    await expect(cells.nth(0).locator("h3")).toHaveText("concurrency 1, temperature 0");
    const panel = cells.nth(0).locator("svg.bottleneck");
    await expect(panel.locator("rect.phase.prefill")).toHaveCount(2 + 1); // two arms and the legend's swatch
    await expect(panel.locator("rect.phase.decode title")).toHaveCount(2);
    await expect(panel).toContainText("Spec on · 100.0 % accepted");
    await expect(panel).toContainText("Spec off · no drafts");
    await expect(cells.nth(1).locator(".verdict")).not.toBeEmpty();
    await expect(page.locator("#ab-notes")).toContainText("the arm that goes first alternating");
    await page.screenshot({ path: "test-results/spec-lab-ab.png", fullPage: true });

    // The HTML export, made in the browser, holds the same panel.
    const [file] = await Promise.all([page.waitForEvent("download"), page.click("#ab-export-html")]);
    expect(file.suggestedFilename()).toMatch(/^ab-test-spec-off-vs-spec-on-\d{4}-\d{2}-\d{2}\.html$/);
    const html = fs.readFileSync((await file.path())!, "utf8");
    const section = html.slice(html.indexOf('id="spec-lab"'));
    expect(section).toContain("Spec on · 100.0 % accepted");
    expect((section.match(/class="phase decode"><title>/g) ?? []).length).toBe(4);
    expect(html).not.toContain("<script");

    // The list on the Spec Lab page links to it.
    await page.goto("/spec-lab");
    await expect(page.locator("#ab-tests tbody tr")).toHaveCount(1);
    await expect(page.locator("#ab-tests")).toContainText("completed");
  } finally {
    for (const server of servers) server.kill();
  }
});

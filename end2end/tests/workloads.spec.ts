import { test, expect, Page } from "@playwright/test";
import { execFileSync, spawn } from "node:child_process";
import * as readline from "node:readline";
import * as fs from "node:fs";
import * as path from "node:path";

const projectRoot = path.resolve(__dirname, "../..");

function loginLink(): string {
  const bin = path.resolve(projectRoot, process.env.LG_BIN ?? "target/debug/latency-guard");
  return execFileSync(bin, ["login-link"], { cwd: projectRoot, encoding: "utf8" }).trim().split("\n").pop()!;
}

/// Saves a workload from the form on /workloads: `fill` types its kind's fields.
async function saveWorkload(page: Page, name: string, kind: string, fill: () => Promise<void>) {
  await page.goto("/workloads");
  await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
  await page.fill("#workload-name", name);
  await page.selectOption("#workload-kind", kind);
  await fill();
  await page.screenshot({ path: `test-results/workload-form-${kind}.png`, fullPage: true });
  await page.click("#save-workload");
  await expect(page.locator("#workloads tr", { hasText: name })).toBeVisible();
}

/// Runs the saved workload `name` from the new-run form against the demo connector and waits for its report.
async function runWorkload(page: Page, name: string, requests: number) {
  await page.goto("/runs/new");
  await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
  await page.selectOption("#connector", { label: "Demo (simulated) (sim-model)" });
  await page.selectOption("#workload", { label: `workload: ${name}` });
  // A workload replaces the prompts and their iterations.
  await expect(page.locator("#prompts")).toBeHidden();
  await expect(page.locator("#iterations")).toBeHidden();
  await page.fill("#concurrency", "2");
  await page.click("#start-run");
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
  await expect(page.locator("#run-progress .progress-count")).toHaveText(`${requests} / ${requests} done`, {
    timeout: 60_000,
  });
  await expect(page.locator("#run-progress .status")).toHaveText("completed");
  await expect(page.locator("#workload")).toBeVisible();
}

/// Each bar's count in a length histogram's series (`asked` or `served`), summed.
async function barTotal(page: Page, chart: string, series: string): Promise<number> {
  const titles = await page.locator(`#${chart} svg rect.bar.${series} title`).allTextContents();
  return titles.map((t) => Number(/: (\d+) request/.exec(t)![1])).reduce((a, b) => a + b, 0);
}

/// Downloads the report in each format, made in the browser; the files' texts by format.
async function exports(page: Page): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const format of ["json", "csv", "html"]) {
    const [file] = await Promise.all([page.waitForEvent("download"), page.click(`#export-${format}`)]);
    files[format] = fs.readFileSync((await file.path())!, "utf8");
  }
  return files;
}

/// The workload in each export: its spec in the JSON, its columns after the specified ones in the CSV, its
/// section in the HTML.
function expectWorkloadExported(files: Record<string, string>, kind: string, requests: number) {
  const snapshot = JSON.parse(files.json);
  expect(snapshot.workload.spec.kind).toBe(kind);
  expect(snapshot.results).toHaveLength(requests);
  const header = files.csv.split("\n")[0];
  expect(header.startsWith("report_id,agent,connector_model,prompt,iteration,ttft_ms,total_ms,")).toBe(true);
  expect(header.endsWith(",error,sent_at_ms,tpot_ms,itl_ms,cached_tokens,asked_input_tokens,made_input_tokens,asked_output_tokens")).toBe(true);
  expect(files.html).toContain('<section id="workload" class="workload-section"><h3>Workload</h3>');
  expect(files.html).toContain('class="bar asked"');
  return snapshot;
}

test.beforeEach(async ({ page }) => {
  await page.goto(loginLink());
});

test("a synthetic workload sends prompts of its asked lengths and its report shows them", async ({ page }) => {
  // Each test's workload has a seed of its own: the same seed sends the same text, which the demo server's prefix
  // cache would then hold from another test's run.
  await saveWorkload(page, "synthetic 40/8", "synthetic", async () => {
    await page.fill("#workload-seed", "11");
    await page.fill("#workload-requests", "6");
    await page.fill("#input-tokens", "40");
    await page.fill("#output-tokens", "8");
  });
  // An impossible distribution is refused with its field, and nothing is saved (other specs' tests share the
  // database, so the list is counted before).
  const saved = await page.locator("#workloads tbody tr").count();
  await page.fill("#workload-name", "impossible");
  await page.selectOption("#input-kind", "uniform");
  await page.fill("#input-min", "50");
  await page.fill("#input-max", "10");
  await page.click("#save-workload");
  await expect(page.locator(".error")).toContainText("workload.input");
  await expect(page.locator("#workloads tbody tr")).toHaveCount(saved);
  await expect(page.locator("#workloads tr", { hasText: "impossible" })).toHaveCount(0);

  await runWorkload(page, "synthetic 40/8", 6);
  await expect(page.locator("#workload-spec")).toContainText("synthetic: input 40 tokens, output 8 tokens, 6 requests");
  // Every prompt asked 40 tokens, every answer 8: the histograms hold the six requests.
  expect(await barTotal(page, "input-lengths", "asked")).toBe(6);
  expect(await barTotal(page, "input-lengths", "served")).toBe(6);
  expect(await barTotal(page, "output-lengths", "served")).toBe(6);
  const asked = page.locator("#workload-lengths tr", { hasText: "Prompt, asked" });
  await expect(asked.locator("td")).toHaveText(["Prompt, asked", "6", "40", "40", "40", "40"]);
  await expect(page.locator("#workload-lengths tr", { hasText: "Answer, reported" }).locator("td").nth(3)).toHaveText("8");
  await expect(page.locator("#ended-early")).toHaveText("0 answer(s) ended before their asked length.");
  await expect(page.locator("#cache-per-request")).toBeVisible();
  await expect(page.locator("#by-turn")).toHaveCount(0);

  const snapshot = expectWorkloadExported(await exports(page), "synthetic", 6);
  expect(snapshot.results.map((r: any) => r.askedInputTokens)).toEqual([40, 40, 40, 40, 40, 40]);
});

test("a shared-prefix workload shows the cache serving its groups' prefixes", async ({ page }) => {
  await saveWorkload(page, "two prefixes", "sharedPrefix", async () => {
    await page.fill("#workload-seed", "22");
    await page.fill("#workload-requests", "8");
    await page.fill("#workload-groups", "2");
    await page.fill("#workload-prefix-tokens", "128");
    await page.fill("#input-tokens", "16");
    await page.fill("#output-tokens", "4");
  });
  await runWorkload(page, "two prefixes", 8);
  await expect(page.locator("#workload-spec")).toContainText("2 group(s) of a 128-token prefix");
  // Each request asks 128 + 16 tokens; after a group's first request, its prefix comes from the cache.
  await expect(page.locator("#workload-lengths tr", { hasText: "Prompt, asked" }).locator("td").nth(3)).toHaveText("144");
  await page.locator("#workload").screenshot({ path: "test-results/workload-shared-prefix.png" });
  const cache = await page.locator("#cache-per-request").textContent();
  const max = Number(/max (\d+)/.exec(cache!)![1]);
  expect(max).toBeGreaterThanOrEqual(128);
  const files = await exports(page);
  const snapshot = expectWorkloadExported(files, "sharedPrefix", 8);
  expect(snapshot.results.filter((r: any) => r.cachedTokens >= 128).length).toBeGreaterThanOrEqual(6);
  expect(files.html).toContain("Cached prompt tokens per request");
});

test("a multi-turn workload reports its figures by turn", async ({ page }) => {
  await saveWorkload(page, "three turns", "multiTurn", async () => {
    await page.fill("#workload-seed", "33");
    await page.fill("#workload-users", "3");
    await page.fill("#workload-turns", "3");
    await page.fill("#input-tokens", "32");
    await page.fill("#follow-up-tokens", "12");
    await page.fill("#output-tokens", "6");
  });
  await runWorkload(page, "three turns", 9);
  await expect(page.locator("#conversations")).toHaveText("3 conversation(s) started, 3 sent every turn.");
  await page.locator("#workload").screenshot({ path: "test-results/workload-multi-turn.png" });
  const rows = page.locator("#by-turn tbody tr");
  await expect(rows).toHaveCount(3);
  await expect(rows.nth(0).locator("td").nth(1)).toHaveText("3");
  // Each turn carries the conversation before it: the prompt grows, and the cache holds what came before.
  const meanPrompt = async (i: number) => Number(await rows.nth(i).locator("td").nth(5).textContent());
  expect(await meanPrompt(1)).toBeGreaterThan(await meanPrompt(0));
  expect(await meanPrompt(2)).toBeGreaterThan(await meanPrompt(1));
  const meanCached = async (i: number) => Number(await rows.nth(i).locator("td").nth(6).textContent());
  expect(await meanCached(2)).toBeGreaterThan(await meanCached(0));
  const files = await exports(page);
  const snapshot = expectWorkloadExported(files, "multiTurn", 9);
  expect(snapshot.workload.byTurn).toHaveLength(3);
  expect(files.html).toContain('<table id="by-turn" class="table">');
});

test("a saved workload opens in its form to edit, and saving replaces it", async ({ page }) => {
  await saveWorkload(page, "chat to edit", "multiTurn", async () => {
    await page.fill("#workload-users", "3");
    await page.fill("#workload-turns", "4");
    await page.selectOption("#think-kind", "uniform");
    await page.fill("#think-ms", "200");
    await page.fill("#think-max-ms", "900");
    await page.selectOption("#output-kind", "logNormal");
    await page.fill("#output-center", "40");
    await page.fill("#output-spread", "0.5");
  });
  const row = page.locator("#workloads tr", { hasText: "chat to edit" });
  await expect(row).toContainText("multi-turn: 3 conversation(s) of 4 turns");
  // The form reads back every box as saved, under a notice that says what saving does.
  await row.locator(".edit-workload").click();
  await expect(page.locator("#editing-workload")).toContainText("Editing \u201cchat to edit\u201d: saving replaces it");
  await expect(page.locator("#workload-name")).toHaveValue("chat to edit");
  await expect(page.locator("#workload-kind")).toHaveValue("multiTurn");
  await expect(page.locator("#workload-turns")).toHaveValue("4");
  await expect(page.locator("#think-kind")).toHaveValue("uniform");
  await expect(page.locator("#think-max-ms")).toHaveValue("900");
  await expect(page.locator("#output-kind")).toHaveValue("logNormal");
  await expect(page.locator("#output-spread")).toHaveValue("0.5");
  await page.screenshot({ path: "test-results/workload-editing.png", fullPage: true });
  await page.fill("#workload-users", "2");
  await page.click("#save-workload");
  // One workload, changed; the form is a new workload's again.
  await expect(page.locator("#editing-workload")).toBeHidden();
  await expect(row).toContainText("multi-turn: 2 conversation(s) of 4 turns");
  await expect(page.locator("#workloads tbody tr", { hasText: "chat to edit" })).toHaveCount(1);
  await expect(page.locator("#workload-kind")).toHaveValue("synthetic");
  await expect(page.locator("#workload-name")).toHaveValue("");
  // A bad edit is refused by name and changes nothing; Cancel leaves the saved workload as it was.
  await row.locator(".edit-workload").click();
  await page.fill("#workload-turns", "0");
  await page.click("#save-workload");
  await expect(page.locator("#workload-form .error")).toContainText("workload.turns");
  await page.click("#cancel-edit");
  await expect(page.locator("#editing-workload")).toBeHidden();
  await page.reload();
  await expect(page.locator("#workloads tr", { hasText: "chat to edit" })).toContainText("2 conversation(s) of 4 turns");
});

test("an uploaded dataset is checked, listed with its lengths, and sent row by row", async ({ page }) => {
  await page.goto("/workloads");
  await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
  // A bad row is refused with its number, and nothing is kept.
  await page.setInputFiles("#dataset-file", {
    name: "broken.jsonl",
    mimeType: "application/x-ndjson",
    buffer: Buffer.from('{"prompt": "fine"}\n{"prompt": 7}\n'),
  });
  await page.click("#upload-dataset");
  await expect(page.locator("#datasets .error")).toContainText("row 2: ");
  await expect(page.locator("#no-datasets")).toBeVisible();

  const rows = ["What is a token?", "Why does prefill cost?", "Name three caches.", "What is TTFT?", "Define goodput."];
  const jsonl = rows
    .map((prompt, i) => JSON.stringify(i === 1 ? { prompt, output_tokens: 5 } : { messages: [{ role: "user", content: prompt }] }))
    .join("\n");
  await page.setInputFiles("#dataset-file", { name: "questions.jsonl", mimeType: "application/x-ndjson", buffer: Buffer.from(jsonl) });
  await page.click("#upload-dataset");
  const listed = page.locator("#dataset-list tr", { hasText: "questions.jsonl" });
  await expect(listed).toBeVisible();
  await expect(listed.locator(".dataset-summary")).toContainText("5 rows, ");
  await expect(listed.locator(".dataset-summary")).toContainText("1 row(s) ask an answer length, median 5 tokens");
  // The histogram holds every row's prompt length (estimated).
  const bars = await listed.locator("svg rect.bar.asked title").allTextContents();
  expect(bars.map((t) => Number(/: (\d+) request/.exec(t)![1])).reduce((a, b) => a + b, 0)).toBe(5);

  await saveWorkload(page, "questions", "dataset", async () => {
    await page.selectOption("#workload-dataset", { label: "questions.jsonl (5 rows)" });
    await page.fill("#workload-requests", "5");
    await page.fill("#output-tokens", "3");
  });
  await runWorkload(page, "questions", 5);
  await expect(page.locator("#workload-spec")).toContainText("dataset: questions.jsonl (uploaded, jsonl, 5 rows), 5 requests");
  // Every row is sent as written after its run's and request's mark ("[k3x9q2-0000004] "), in the file's order; the
  // second asks its own answer length.
  await expect(page.locator("#workload-lengths tr", { hasText: "Answer, reported" }).locator("td").nth(5)).toHaveText("5");
  const files = await exports(page);
  const snapshot = expectWorkloadExported(files, "dataset", 5);
  const marked = snapshot.results.map((r: any) => /^\[([a-z0-9]{6})-(\d{7})\] (.*)$/s.exec(r.prompt));
  expect(marked.every((m: RegExpExecArray | null) => m !== null), "each prompt starts with a mark").toBe(true);
  expect(new Set(marked.map((m: RegExpExecArray) => m[1])).size, "one run's mark").toBe(1);
  expect(marked.map((m: RegExpExecArray) => m[3]).sort()).toEqual([...rows].sort());
  expect(snapshot.results.map((r: any) => r.askedOutputTokens).sort()).toEqual([3, 3, 3, 3, 5]);
});

test("a ShareGPT upload skips conversations with nothing to send and can ask the recorded answers' lengths", async ({ page }) => {
  await page.goto("/workloads");
  await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
  const turn = (from: string, value: string) => ({ from, value });
  // Recorded answers of 3, 5 and 7 of the simulator's tokens (pieces of at most four characters).
  const answers = ["abcd".repeat(3), "abcd".repeat(5), "abcd".repeat(7)];
  const conversations = [
    { conversations: [] },
    ...answers.map((answer, i) => ({ conversations: [turn("human", `question ${i}`), turn("gpt", answer), turn("human", "and then?")] })),
    { conversations: [turn("gpt", "an answer to nothing")] },
  ];
  await page.setInputFiles("#dataset-file", {
    name: "sharegpt.json",
    mimeType: "application/json",
    buffer: Buffer.from(JSON.stringify(conversations)),
  });
  await page.click("#upload-dataset");
  const listed = page.locator("#dataset-list tr", { hasText: "sharegpt.json" });
  await expect(listed.locator(".dataset-summary")).toContainText("3 rows (2 skipped: a conversation with no human turn has nothing to send)");
  await saveWorkload(page, "sharegpt", "dataset", async () => {
    await page.selectOption("#workload-dataset", { label: "sharegpt.json (3 rows)" });
    await page.fill("#workload-requests", "3");
    await page.check("#workload-recorded-outputs");
  });
  // Edited, a dataset workload shows its dataset and its choice again.
  await page.locator("#workloads tr", { hasText: "sharegpt" }).locator(".edit-workload").click();
  await expect(page.locator("#workload-dataset option:checked")).toHaveText("sharegpt.json (3 rows)");
  await expect(page.locator("#workload-recorded-outputs")).toBeChecked();
  await page.click("#cancel-edit");
  await expect(page.locator("#workload-recorded-outputs")).not.toBeChecked();
  await runWorkload(page, "sharegpt", 3);
  await expect(page.locator("#workload-spec")).toContainText("sharegpt.json (uploaded, json, 3 rows; 2 skipped, no human turn)");
  await expect(page.locator("#workload-spec")).toContainText("else its recorded answer's length");
  const snapshot = expectWorkloadExported(await exports(page), "dataset", 3);
  expect(snapshot.results.map((r: any) => r.askedOutputTokens).sort()).toEqual([3, 5, 7]);
});

test("a saved workload is swept and A/B tested from their forms", async ({ page }) => {
  test.setTimeout(120_000);
  const bin = path.resolve(projectRoot, process.env.LG_BIN ?? "target/debug/latency-guard");
  const sim = spawn(bin, ["sim", "--port", "0", "--ttft-ms", "5", "--itl-ms", "1", "--tokens", "8"], {
    cwd: projectRoot,
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const line: string = await new Promise((resolve) => readline.createInterface({ input: sim.stdout! }).once("line", resolve));
    const baseUrl = line.trim().split(" ").pop()!;
    for (const name of ["Arm A", "Arm B"]) {
      const created = await page.request.post("/api/connectors/create", { data: { input: { name, baseUrl, model: "sim-model" } } });
      expect(created.status()).toBe(200);
    }
    const spec = { kind: "synthetic", input: { kind: "fixed", tokens: 36 }, output: { kind: "fixed", tokens: 5 }, requests: 6, seed: 41 };
    const saved = await page.request.post("/api/workloads/save", { data: { id: null, input: { name: "short chats", spec } } });
    expect(saved.status()).toBe(200);

    // The sweep form sends the saved workload instead of its prompts: each level a run of its number of requests.
    await page.goto("/sweeps");
    await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
    await page.selectOption("#sweep-connector", { label: "Arm A (sim-model)" });
    await expect(page.locator("#sweep-prompts")).toBeVisible();
    await page.selectOption("#sweep-workload", { label: "workload: short chats" });
    await expect(page.locator("#sweep-prompts")).toBeHidden();
    await page.fill("#sweep-levels", "1, 2");
    await page.fill("#sweep-slos", "ttft_p95_ms<=2000");
    await page.fill("#sweep-requests", "4");
    await page.click("#start-sweep");
    await expect(page).toHaveURL(/\/sweeps\/[0-9a-f-]+$/);
    await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
    await expect(page.locator("#sweep-status")).toHaveText("completed", { timeout: 60_000 });
    await expect(page.locator("#sweep-levels tbody tr")).toHaveCount(2);
    await page.locator("#sweep-levels tbody tr").nth(1).locator("a").click();
    await expect(page).toHaveURL(/\/runs\/[0-9a-f-]+$/);
    await expect(page.locator("#workload-spec")).toContainText("synthetic: input 36 tokens, output 5 tokens, 4 requests");
    await expect(page.locator("#input-lengths")).toBeVisible();

    // The A/B form too: each request made once and sent to both arms; the prompts and iterations give way.
    await page.goto("/spec-lab");
    await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
    await page.selectOption("#ab-baseline", { label: "Arm A (sim-model)" });
    await page.selectOption("#ab-candidate", { label: "Arm B (sim-model)" });
    await page.selectOption("#ab-workload", { label: "workload: short chats" });
    await expect(page.locator("#ab-prompts")).toBeHidden();
    await expect(page.locator("#ab-iterations")).toBeHidden();
    await page.fill("#ab-concurrencies", "1");
    await page.click("#start-ab");
    await expect(page).toHaveURL(/\/spec-lab\/ab\/[0-9a-f-]+$/);
    await expect(page.locator("#ab-status")).toHaveText("completed", { timeout: 60_000 });
    await expect(page.locator("#ab-notes")).toContainText("Requests: the workload synthetic: input 36 tokens, output 5 tokens, 6 requests");
    await expect(page.locator("#ab-notes")).toContainText("the same text sent to both arms");
  } finally {
    sim.kill();
  }
});

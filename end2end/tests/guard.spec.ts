import { test, expect } from "@playwright/test";
import { execFileSync, spawn, ChildProcess } from "node:child_process";
import * as path from "node:path";
import * as readline from "node:readline";

const projectRoot = path.resolve(__dirname, "../..");
const bin = path.resolve(projectRoot, process.env.LG_BIN ?? "target/debug/latency-guard");

function loginLink(): string {
  return execFileSync(bin, ["login-link"], { cwd: projectRoot, encoding: "utf8" }).trim().split("\n").pop()!;
}

/// A simulator whose time to first token is normal(mean, sd) ms and whose replies say `build` answered them;
/// resolves to its base URL.
async function simulator(ttft: string, started: ChildProcess[], build = "latency-guard-sim"): Promise<string> {
  const args = ["sim", "--port", "0", "--ttft-ms", ttft, "--itl-ms", "0", "--tokens", "4", "--system-fingerprint", build];
  const sim = spawn(bin, args, {
    cwd: projectRoot,
    stdio: ["ignore", "pipe", "inherit"],
  });
  started.push(sim);
  const line: string = await new Promise((resolve) => readline.createInterface({ input: sim.stdout! }).once("line", resolve));
  return line.trim().split(" ").pop()!;
}

test("a slower endpoint raises one incident on Run now, shown in the badge and the feed until acknowledged", async ({ page }) => {
  test.setTimeout(120_000);
  const sims: ChildProcess[] = [];
  try {
    // The deploy is a new build: the slow simulator's replies say b200, the fast one's b100.
    const fast = await simulator("normal:20,2", sims, "b100");
    const slow = await simulator("normal:160,8", sims, "b200");
    await page.goto(loginLink());
    const prompts = ["What is latency?", "Say hi", "Name a colour"];

    // The endpoint as it was: a connector on the fast simulator and a 5-iteration run of the set's prompts.
    const connectorInput = (baseUrl: string) => ({
      name: "Checkout gateway",
      baseUrl,
      model: "sim-model",
      inputPricePerMtok: 3,
      outputPricePerMtok: 15,
    });
    const created = await page.request.post("/api/connectors/create", { data: { input: connectorInput(fast) } });
    expect(created.status()).toBe(200);
    const connector = await created.json();
    const run = await (
      await page.request.post("/api/runs/start", {
        data: {
          input: {
            connectorId: connector.id,
            title: "Before the deploy",
            agent: { name: "checkout", tokenBudget: 8 },
            prompts,
            iterations: 5,
            mode: { kind: "closed", concurrency: 1 },
          },
        },
      })
    ).json();
    await expect
      .poll(async () => (await (await page.request.post("/api/runs/report", { data: { id: run.id } })).json()).run.status, { timeout: 30_000 })
      .toBe("completed");

    // A benchmark set, made in the page.
    await page.goto("/guard/sets");
    await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
    await page.fill("#set-name", "Checkout prompts");
    await page.fill("#set-prompts", prompts.slice(0, 2).join("\n"));
    await expect(page.locator("#few-prompts")).toContainText("at least 3 are advised");
    await page.fill("#set-prompts", prompts.join("\n"));
    await expect(page.locator("#few-prompts")).toHaveCount(0);
    await page.fill("#set-max-tokens", "8");
    await page.click("#save-set");
    await expect(page.locator("#sets tbody tr")).toHaveCount(1);
    await expect(page.locator("#sets tbody tr td").nth(1)).toHaveText("3");

    // A one-prompt set beside it, for the form's warning.
    const smoke = await page.request.post("/api/guard/sets/save", {
      data: { id: null, input: { name: "Smoke", prompts: [{ text: prompts[0] }], maxTokens: 8 } },
    });
    expect(smoke.status()).toBe(200);
    const smokeId = (await smoke.json()).id;

    // A schedule: every 15 minutes is 288 requests a day for three prompts. The pickers start at the first set by
    // name; picking the one-prompt set warns, picking the first again does not.
    await page.goto("/guard/schedules/new");
    await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
    await expect(page.locator("#schedule-set option")).toHaveText(["Checkout prompts (3 prompts)", "Smoke (1 prompts)"]);
    await expect(page.locator("#schedule-set")).not.toHaveValue(smokeId);
    await expect(page.locator("#few-prompts")).toHaveCount(0);
    await page.selectOption("#schedule-set", smokeId);
    await expect(page.locator("#few-prompts")).toContainText("A run sends 1 request(s); at least 3 are advised");
    await page.selectOption("#schedule-set", { label: "Checkout prompts (3 prompts)" });
    await expect(page.locator("#few-prompts")).toHaveCount(0);
    // This server has no SMTP server: the form says alerts reach the feed and the webhook only.
    await expect(page.locator("#email-off")).toContainText("E-mail is off: no SMTP server is configured");
    await page.fill("#schedule-name", "Checkout p95");
    await page.selectOption("#schedule-connector", connector.id);
    await page.selectOption("#schedule-cadence", "15m");
    // The estimate follows the picks in the page, and says what the server's guard/estimate says: 10 input tokens
    // (4 characters each, rounded up per prompt) × $3/M + 3 × 8 output tokens × $15/M, 96 times a day.
    await expect(page.locator("#schedule-cost")).toContainText("288 requests a day, about $0.0374 a day at most");
    const estimate = await (
      await page.request.post("/api/guard/estimate", {
        data: { set: await page.inputValue("#schedule-set"), connector: connector.id, cadence: "15m" },
      })
    ).json();
    expect(estimate.requestsPerDay).toBe(288);
    expect(estimate.usdPerDay).toBeCloseTo(0.03744, 10);
    await page.selectOption("#schedule-cadence", "daily");
    await expect(page.locator("#schedule-cost")).toContainText("3 requests a day, about $0.0004 a day at most");
    await page.selectOption("#schedule-cadence", "15m");
    // The alert policy: a new schedule starts at 2 of 3, and the form says why; an impossible count is refused and
    // named; a sound one is kept and described on the page.
    await expect(page.locator("#policy-breaches")).toHaveValue("2");
    await expect(page.locator("#policy-of")).toHaveValue("3");
    await expect(page.locator("#policy-why")).toContainText("from 38 % to 8 %");
    await page.fill("#policy-breaches", "3");
    await page.fill("#policy-of", "2");
    await page.click("#save-schedule");
    await expect(page.locator("#schedule-form .error")).toContainText("3 breaches cannot happen in 2 evaluations");
    await page.fill("#policy-breaches", "1");
    await page.fill("#policy-of", "3");
    await page.fill("#policy-recover", "2");
    // A second threshold: the mean, +20 % (what "Add threshold" starts with).
    await page.click("#add-threshold");
    await expect(page.locator(".threshold-metric")).toHaveCount(2);
    // Each threshold reads back as a sentence, and follows its row's choices.
    await expect(page.locator(".threshold-sentence")).toHaveText([
      "Alerts when total time p95 rises by more than 20 % over the baseline: a warn alert.",
      "Alerts when mean total time rises by more than 20 % over the baseline: a warn alert.",
    ]);
    await page.locator(".threshold-op").nth(1).selectOption("abs_increase");
    await expect(page.locator(".threshold-unit").nth(1)).toHaveText("ms");
    await expect(page.locator(".threshold-sentence").nth(1)).toHaveText(
      "Alerts when mean total time rises by more than 20 ms over the baseline: a warn alert.",
    );
    await page.locator(".threshold-op").nth(1).selectOption("pct_increase");
    await page.click("#save-schedule");
    await expect(page.locator("#webhook-secret")).toHaveValue(/^whsec_/);
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
    await page.click("#copy-webhook-secret");
    await expect(page.locator("#copy-webhook-secret")).toHaveText("Copied");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await page.locator("#webhook-secret").inputValue());
    // A second click saves the schedule it created rather than making another, and the secret stays in view.
    await expect(page.locator("#save-schedule")).toHaveText("Save schedule");
    await Promise.all([page.waitForResponse((r) => r.url().endsWith("/api/guard/schedules/save")), page.click("#save-schedule")]);
    await expect(page.locator("#webhook-secret")).toHaveValue(/^whsec_/);
    const listed = await (await page.request.post("/api/guard/schedules/list", { data: {} })).json();
    expect(listed.filter((s: any) => s.name === "Checkout p95")).toHaveLength(1);
    await page.click("#open-schedule");
    await expect(page.locator("#schedule-title")).toHaveText("Checkout p95");
    await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
    await expect(page.locator("#schedule-policy-info")).toContainText("recovered after 2 healthy in a row");
    // Its settings, a page of their own, show what was saved.
    await page.click("#edit-schedule");
    await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
    await expect(page.locator("#policy-of")).toHaveValue("3");
    await expect(page.locator("#schedule-set option:checked")).toHaveText("Checkout prompts (3 prompts)");
    await expect(page.locator("#schedule-connector")).toHaveValue(connector.id);
    await expect(page.locator("#schedule-cadence")).toHaveValue("15m");
    // Alerts to PagerDuty: the routing key is checked, sealed on saving, and never shown again.
    // The address field follows the receiver: what it asks for and an example.
    const address = page.locator("label", { has: page.locator("#schedule-webhook") });
    await page.selectOption("#schedule-receiver", "slack");
    await expect(address).toContainText("Slack incoming-webhook URL");
    await expect(page.locator("#schedule-webhook")).toHaveAttribute("placeholder", /^https:\/\/hooks\.slack\.com\//);
    await expect(page.locator("#schedule-routing-key")).toHaveCount(0);
    await page.selectOption("#schedule-receiver", "pagerduty");
    await expect(address).toContainText("Events API URL (empty: PagerDuty's)");
    await page.fill("#schedule-routing-key", "not-a-key");
    await page.click("#save-schedule");
    await expect(page.locator("#schedule-form .error")).toContainText("32 letters and digits");
    await page.fill("#schedule-routing-key", "R0UT1NGKEY0123456789abcdefABCDEF");
    await page.click("#save-schedule");
    await expect(page.locator("#schedule-saved")).toBeVisible();
    await page.reload();
    await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
    await expect(page.locator("#schedule-receiver")).toHaveValue("pagerduty");
    await expect(page.locator("#schedule-webhook")).toHaveValue("https://events.pagerduty.com/v2/enqueue");
    await expect(page.locator("#schedule-routing-key")).toHaveValue("");
    await expect(page.locator("label", { has: page.locator("#schedule-routing-key") })).toContainText("stored; empty keeps it");
    expect(await page.content()).not.toContain("R0UT1NGKEY0123456789abcdefABCDEF");
    // Back to no receiver: PagerDuty's endpoint goes with it.
    await page.selectOption("#schedule-receiver", "webhook");
    await expect(page.locator("#schedule-webhook")).toHaveValue("");
    await expect(page.locator("#schedule-routing-key")).toHaveCount(0);
    await page.click("#save-schedule");
    await expect(page.locator("#schedule-saved")).toBeVisible();
    await page.click("#back-to-schedule");
    await expect(page.locator("#schedule-title")).toHaveText("Checkout p95");
    await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");

    // Pin the fast run as the baseline; the page says what makes it a weaker one.
    await page.selectOption("#pin-run", run.id);
    await page.click("#pin-baseline");
    await expect(page.locator("#pin-result")).toContainText("Pinned as baseline.");
    await expect(page.locator("#pin-result")).toContainText("streamed");
    await expect(page.locator("#baseline-info")).toContainText("15 successful requests");
    await expect(page.locator("#alert-badge")).toHaveText("0");

    // The deploy: the same connector now answers slowly. Run now finds it, significantly.
    const updated = await page.request.post("/api/connectors/update", { data: { id: connector.id, input: connectorInput(slow) } });
    expect(updated.status()).toBe(200);
    await page.click("#run-now");
    await expect(page.locator("#run-now-result")).toContainText("Run now: breached", { timeout: 30_000 });
    await expect(page.locator("#run-now-result")).toContainText("2 alert(s) opened");
    // One evaluation, one thing to look at: the badge counts the incident once.
    await expect(page.locator("#alert-badge")).toHaveText("1");
    await expect(page.locator("#evaluations tbody tr").first()).toContainText("crossed and significant");
    // One breached evaluation on the history (its mark has a title), and the legend names each mark shown.
    await expect(page.locator("#history svg circle.breach", { has: page.locator("title") })).toHaveCount(1);
    await expect(page.locator("#history svg .legend text")).toContainText(["p95", "mean", "baseline, mean to p95", "breached"]);
    // Two evaluations are too few for a change point: the page says how it searches and that it found none.
    await expect(page.locator("#change-points")).toContainText("E-Divisive means");
    await expect(page.locator("#change-points")).toContainText("None in this history.");
    await page.screenshot({ path: "test-results/guard-schedule.png", fullPage: true });

    // The feed: one card for what the evaluation breached, with its figures; acknowledged by hand, the badge drops
    // to 0.
    await page.click('.sidebar a[href="/guard"]');
    await expect(page.locator("#alerts li.alert.open")).toHaveCount(1);
    const alert = page.locator("#alerts li.alert").first();
    await expect(alert).toContainText("Checkout p95");
    await expect(alert).toContainText("p95_ms pct_increase +");
    await expect(alert).toContainText("Welch p = ");
    await expect(alert.locator(".why .also")).toContainText("Also breached in this evaluation: mean_ms +");
    // It says why: what changed since the baseline, the run's verdict, and where its slowest requests are.
    await expect(alert.locator(".why .changed")).toHaveText("What changed: system_fingerprint b100 → b200");
    await expect(alert.locator(".why .validity")).toContainText("The run: ");
    await expect(alert.locator(".why")).toContainText("Slowest requests: #");
    // Loaded as a page, the server's HTML stays once the page hydrates (its data carries the HTML empty).
    await page.reload();
    await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
    await expect(alert.locator(".why .changed")).toHaveText("What changed: system_fingerprint b100 → b200");
    await page.screenshot({ path: "test-results/guard-feed.png", fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: "test-results/guard-feed-phone.png", fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
    // Its link opens the run's report at its slowest requests, slowest first.
    await alert.locator("a.slowest").click();
    await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}#slowest$/);
    await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
    await expect(page.locator("#slowest")).toBeInViewport();
    const totals = await page.locator("#slowest tbody tr td:nth-child(4)").allInnerTexts();
    const ms = totals.map((t) => parseFloat(t.replace(/[^0-9.]/g, "")));
    expect(ms.length).toBeGreaterThan(1);
    expect([...ms].sort((a, b) => b - a)).toEqual(ms);
    await page.goBack();
    await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
    // Muted for maintenance from the feed: both thresholds; the card and its schedule's row say until when;
    // Unmute ends each.
    await alert.locator("button.mute").click();
    await expect(alert).toContainText("muted until");
    const row = page.locator("#schedules tr", { hasText: "Checkout p95" });
    await expect(row.locator("td.mutes")).toContainText("p95_ms:pct_increase muted until");
    await expect(row.locator("td.mutes")).toContainText("mean_ms:pct_increase muted until");
    await row.locator("button.unmute").first().click();
    await expect(row.locator("button.unmute")).toHaveCount(1);
    await row.locator("button.unmute").click();
    await expect(row.locator("button.unmute")).toHaveCount(0);
    await expect(row.locator("button.mute-schedule")).toBeVisible();
    await expect(alert).not.toContainText("muted until");
    await alert.locator("button.ack").click();
    await expect(page.locator("#alert-badge")).toHaveText("0");
    await expect(page.locator("#alerts li.alert.open")).toHaveCount(0);
    await expect(alert).toContainText("acknowledged");
  } finally {
    for (const sim of sims) sim.kill();
  }
});

test("a schedule picks a saved workload in its form, costs its mean lengths and sends it", async ({ page }) => {
  test.setTimeout(120_000);
  const sims: ChildProcess[] = [];
  try {
    const sim = await simulator("normal:5,1", sims);
    await page.goto(loginLink());
    const post = async (path: string, data: object) => {
      const response = await page.request.post(path, { data });
      expect(response.status(), `${path}: ${await response.text()}`).toBe(200);
      return response.json();
    };
    const connector = await post("/api/connectors/create", {
      input: { name: "Chat gateway", baseUrl: sim, model: "sim-model", inputPricePerMtok: 3, outputPricePerMtok: 15 },
    });
    // "Answer briefly." is 15 characters: 4 tokens as estimated, sent before every request.
    const set = await post("/api/guard/sets/save", {
      id: null,
      input: { name: "Chat set", prompts: [{ text: "a" }, { text: "b" }, { text: "c" }], systemPrompt: "Answer briefly.", maxTokens: 8 },
    });
    const spec = { kind: "synthetic", input: { kind: "fixed", tokens: 40 }, output: { kind: "fixed", tokens: 4 }, requests: 6, seed: 5 };
    const workload = await post("/api/workloads/save", { id: null, input: { name: "chat 40/4", spec } });

    await page.goto("/guard/schedules/new");
    await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
    await page.fill("#schedule-name", "Chat p95");
    await page.selectOption("#schedule-set", set.id);
    await page.selectOption("#schedule-connector", connector.id);
    await page.selectOption("#schedule-cadence", "15m");
    await expect(page.locator("#schedule-workload option")).toHaveText(["The set's prompts, once each", "chat 40/4 (6 requests)"]);
    await expect(page.locator("#schedule-cost")).toContainText("288 requests a day");
    await page.selectOption("#schedule-workload", workload.id);
    await expect(page.locator("#schedule-workload-summary")).toContainText("synthetic: input 40 tokens, output 4 tokens, 6 requests");
    // 6 × (40 + 4) input tokens × $3/M + 6 × 4 output tokens × $15/M, 96 times a day: $0.110592.
    await expect(page.locator("#schedule-cost")).toContainText("576 requests a day, about $0.1106 a day (each length at the workload's mean");
    const estimate = await post("/api/guard/estimate", { set: set.id, connector: connector.id, cadence: "15m", workload: workload.id });
    expect(estimate.requestsPerDay).toBe(576);
    expect(estimate.usdPerDay).toBeCloseTo(0.110592, 10);
    // Alerts to Discord: a new schedule opens once saved (only a generic webhook has a signing secret to show first).
    await page.selectOption("#schedule-receiver", "discord");
    await page.fill("#schedule-webhook", "http://127.0.0.1:9/discord-hook");
    await page.fill("#schedule-email", "oncall@example.test");
    await page.click("#save-schedule");
    await expect(page).toHaveURL(/\/guard\/schedules\/[0-9a-f-]{36}$/);
    await expect(page.locator("#schedule-title")).toHaveText("Chat p95");
    await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
    // A schedule that mails someone offers a test e-mail; this server has no SMTP server, and the answer says so.
    await page.click("#send-test-mail");
    await expect(page.locator("#test-mail-result")).toContainText("e-mail is off on this server: its operator must set smtp-url");
    await expect(page.locator("#schedule-sends")).toContainText('Sends the workload "chat 40/4"');
    await expect(page.locator("#schedule-sends")).toContainText("576 requests a day, about $0.1106 a day at the workload's mean lengths");
    await page.click("#edit-schedule");
    await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
    await expect(page.locator("#schedule-workload")).toHaveValue(workload.id);
    await page.click("#back-to-schedule");
    await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");

    // Run now sends the workload's six requests, one at a time; its run can be pinned as the baseline.
    await page.click("#run-now");
    await expect(page.locator("#run-now-result")).toContainText("Run now: no baseline", { timeout: 30_000 });
    await expect(page.locator("#evaluations tbody tr").first()).toContainText("— / 6");
    await page.selectOption("#pin-run", { index: 0 });
    await expect(page.locator("#pin-run option:checked")).toContainText("Guard · Chat p95");
    await page.click("#pin-baseline");
    await expect(page.locator("#pin-result")).toContainText("Pinned as baseline.");
    await expect(page.locator("#pin-result")).not.toContainText("workload");
    await expect(page.locator("#baseline-info")).toContainText("6 successful requests");

    // The saved workload deleted, the schedule keeps its copy: its form offers the copy, and saving keeps it.
    await post("/api/workloads/delete", { id: workload.id });
    await page.click("#edit-schedule");
    await page.reload();
    await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
    await expect(page.locator("#schedule-workload option:checked")).toHaveText("The copy it keeps of a deleted saved workload");
    await expect(page.locator("#schedule-workload-summary")).toContainText("saving keeps it");
    await page.fill("#schedule-name", "Chat p95, renamed");
    await page.click("#save-schedule");
    await expect(page.locator("#schedule-saved")).toBeVisible();
    await page.goto((await page.locator("#back-to-schedule").getAttribute("href"))!);
    await expect(page.locator("#schedule-title")).toHaveText("Chat p95, renamed");
    await expect(page.locator("#schedule-sends")).toContainText('Sends the workload "chat 40/4"');
    await expect(page.locator("#baseline-info")).toContainText("6 successful requests");

    // Compared with its own recent runs instead: a pool too small is refused by name; the page says how full the
    // pool is and keeps the pinned run aside; once three runs measured the same requests, the next is compared
    // with their 18.
    await page.click("#edit-schedule");
    await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
    await page.selectOption("#policy-baseline", "rolling");
    await page.fill("#policy-baseline-size", "2");
    await page.click("#save-schedule");
    await expect(page.locator("#schedule-form .error")).toContainText("must be 3 to 50 evaluations");
    await page.fill("#policy-baseline-size", "3");
    await page.click("#save-schedule");
    await expect(page.locator("#schedule-saved")).toBeVisible();
    await page.goto((await page.locator("#back-to-schedule").getAttribute("href"))!);
    await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
    await expect(page.locator("#baseline-info")).toContainText("Compared with the last 3 healthy evaluations, once there are 3: 1 so far (6 requests)");
    await expect(page.locator("#earlier-baselines")).toContainText("not used while the baseline is pooled");
    for (const filled of [1, 2]) {
      await page.click("#run-now");
      await expect(page.locator("#run-now-result")).toContainText("Run now: no baseline", { timeout: 30_000 });
      await expect(page.locator("#evaluations tbody tr").first()).toContainText(`filling the pool: ${filled} of the 3 evaluations needed`);
    }
    await page.click("#run-now");
    await expect(page.locator("#run-now-result")).toContainText(/Run now: (healthy|breached)/, { timeout: 30_000 });
    await expect(page.locator("#evaluations tbody tr").first()).toContainText("18 / 6 (3 evaluations pooled)");
    await page.reload();
    await expect(page.locator("#baseline-info")).toContainText("pooled: 3 evaluations finished");

    // Time to first token needs streamed requests: refused by name until the schedule streams; streamed runs
    // measure something else, so the pool starts again.
    await page.click("#edit-schedule");
    await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
    await page.locator(".threshold-metric").first().selectOption("ttft_p95_ms");
    await page.click("#save-schedule");
    await expect(page.locator("#schedule-form .error")).toContainText("ttft_p95_ms is measured only when the schedule streams its requests");
    await page.check("#schedule-stream");
    await page.click("#save-schedule");
    await expect(page.locator("#schedule-saved")).toBeVisible();
    await page.goto((await page.locator("#back-to-schedule").getAttribute("href"))!);
    await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
    await expect(page.locator("#schedule-sends")).toContainText("one request at a time, streamed (TTFT and TPOT measured)");
    await expect(page.locator("#baseline-info")).toContainText("none yet of the requests the schedule sends now");
    await page.click("#run-now");
    await expect(page.locator("#run-now-result")).toContainText("Run now: no baseline", { timeout: 30_000 });
    await expect(page.locator("#evaluations tbody tr").first()).toContainText("no baseline yet");
  } finally {
    for (const sim of sims) sim.kill();
  }
});

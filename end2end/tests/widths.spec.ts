import { test, expect, Page } from "@playwright/test";
import { execFileSync } from "node:child_process";
import * as path from "node:path";

const projectRoot = path.resolve(__dirname, "../..");
const bin = path.resolve(projectRoot, process.env.LG_BIN ?? "target/debug/latency-guard");

function loginLink(): string {
  return execFileSync(bin, ["login-link"], { cwd: projectRoot, encoding: "utf8" }).trim().split("\n").pop()!;
}

/// How far the page is wider than the window, and the elements that stick out furthest (for the failure message).
async function overflow(page: Page): Promise<{ by: number; culprits: string[] }> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const culprits = Array.from(document.querySelectorAll("body *"))
      .map((el) => ({ el, right: el.getBoundingClientRect().right }))
      .filter(({ right }) => right > width + 1)
      .sort((a, b) => b.right - a.right)
      .slice(0, 3)
      .map(({ el, right }) => `${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""}.${el.className} → ${Math.round(right)} px`);
    return { by: document.documentElement.scrollWidth - width, culprits };
  });
}

/// Chart text drawn smaller than 11 px: each SVG text's font size times the scale its chart is shown at.
async function smallChartText(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll("svg text"))
      .map((text) => {
        const svg = (text as SVGTextElement).ownerSVGElement!;
        const shown = svg.getBoundingClientRect().width;
        const drawn = svg.viewBox.baseVal?.width || shown;
        return { shown, px: parseFloat(getComputedStyle(text).fontSize) * (shown / drawn), words: text.textContent ?? "" };
      })
      .filter(({ shown, px, words }) => shown > 0 && words.trim() !== "" && px < 10.95)
      .slice(0, 3)
      .map(({ px, words }) => `"${words.trim()}" at ${px.toFixed(1)} px`),
  );
}

test("every page fits a phone's width and a desktop's: nothing scrolls sideways at 390 or 1280 px, and chart text is 11 px or more", async ({ page }) => {
  test.setTimeout(180_000);
  await page.goto(loginLink());
  const connectors = await (await page.request.post("/api/connectors/list", { data: {} })).json();
  const demo = connectors.find((c: any) => c.name === "Demo (simulated)").id;
  const started = await page.request.post("/api/runs/start", {
    data: {
      input: {
        connectorId: demo,
        title: "A run whose report is read on a phone, with a long title that must wrap rather than widen the page",
        agent: { name: "phone-bot", tokenBudget: 8 },
        prompts: ["What is latency?"],
        iterations: 6,
        mode: { kind: "closed", concurrency: 2 },
      },
    },
  });
  expect(started.status()).toBe(200);
  const run = (await started.json()).id;
  const post = async (path: string, data: object) => {
    const response = await page.request.post(path, { data });
    expect(response.status(), `${path}: ${await response.text()}`).toBe(200);
    return response.json();
  };
  const sweep = (
    await post("/api/sweeps/start", {
      input: {
        connectorId: demo,
        title: "A sweep read on a phone",
        prompts: ["What is latency?"],
        requestsPerLevel: 8,
        maxTokens: 8,
        levels: { kind: "listed", axis: "concurrency", levels: [1, 2, 4] },
        slos: ["ttft_p95_ms<=500"],
      },
    })
  ).id;
  const set = await post("/api/guard/sets/save", { id: null, input: { name: "Phone set", prompts: [{ text: "a" }], maxTokens: 8 } });
  const schedule = (
    await post("/api/guard/schedules/save", {
      id: null,
      input: {
        name: "A schedule read on a phone",
        setId: set.id,
        connectorId: demo,
        cadence: "hourly",
        notify: { webhookUrl: "https://hooks.example.com/latency" },
        thresholds: [{ metric: "p95_ms", op: "pct_increase", value: 10 }],
      },
    })
  ).schedule.id;
  await expect
    .poll(async () => (await (await page.request.post("/api/runs/report", { data: { id: run } })).json()).run.status, { timeout: 60_000 })
    .toBe("completed");
  await expect
    .poll(async () => (await post("/api/sweeps/get", { id: sweep })).summary.status, { timeout: 60_000 })
    .toBe("completed");

  // [the screenshot's name, the page]
  const pages: [string, string][] = [
    ["home", "/"],
    ["connectors", "/connectors"],
    ["connector-new", "/connectors/new"],
    ["connector", `/connectors/${demo}`],
    ["runs", "/runs"],
    ["run-new", "/runs/new"],
    ["report", `/runs/${run}`],
    ["workloads", "/workloads"],
    ["compare-empty", "/compare"],
    ["compare", `/compare?baseline=${run}&candidate=${run}`],
    ["sweeps", "/sweeps"],
    ["sweep", `/sweeps/${sweep}`],
    ["spec-lab", "/spec-lab"],
    ["guard", "/guard"],
    ["guard-sets", "/guard/sets"],
    ["schedule-new", "/guard/schedules/new"],
    ["schedule", `/guard/schedules/${schedule}`],
    ["schedule-settings", `/guard/schedules/${schedule}/settings`],
    ["settings", "/settings"],
  ];
  const wider: string[] = [];
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 844 });
    for (const [name, at] of pages) {
      await page.goto(at);
      await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
      const { by, culprits } = await overflow(page);
      if (by > 0) wider.push(`${at} at ${width} px: ${by} px too wide (${culprits.join("; ")})`);
      const small = await smallChartText(page);
      if (small.length > 0) wider.push(`${at} at ${width} px: chart text under 11 px (${small.join("; ")})`);
      const device = width === 390 ? "phone" : "desktop";
      await page.screenshot({ path: `test-results/${device}-${name}.png`, fullPage: true });
      if (width === 390) await page.screenshot({ path: `test-results/phone-${name}-first-screen.png` });
    }
  }
  expect(wider).toEqual([]);
});

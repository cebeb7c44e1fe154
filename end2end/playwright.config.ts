import { defineConfig } from "@playwright/test";

// The server is started by scripts/test.sh (it needs the built site and a fresh database); this config only
// points the browser at it. Debian's chromium is used as-is: nothing is downloaded.
const baseURL = process.env.LG_BASE_URL ?? "http://127.0.0.1:3700";

export default defineConfig({
  testDir: "./tests",
  timeout: 60_000,
  workers: 1,
  reporter: [["list"]],
  outputDir: "test-results",
  use: {
    baseURL,
    headless: true,
    viewport: { width: 1280, height: 900 },
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
});

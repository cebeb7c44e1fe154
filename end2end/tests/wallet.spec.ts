import { test, expect, Page, BrowserContext } from "@playwright/test";
import { generatePrivateKey, privateKeyToAccount, PrivateKeyAccount } from "viem/accounts";

// A test wallet injected as `window.ethereum` (EIP-1193): it shares one account and signs with viem, an
// implementation independent of the server's, in the test process; the page only sees the provider.
async function withWallet(context: BrowserContext, account: PrivateKeyAccount, calls: string[]) {
  await context.exposeFunction("__testWallet", async (method: string, params: unknown[]) => {
    calls.push(method);
    switch (method) {
      case "eth_requestAccounts":
        return [account.address.toLowerCase()]; // wallets often share lowercase addresses
      case "eth_chainId":
        return "0x1";
      case "personal_sign": {
        const [hex, address] = params as [`0x${string}`, string];
        if (address.toLowerCase() !== account.address.toLowerCase()) throw new Error(`asked to sign as ${address}`);
        return account.signMessage({ message: { raw: hex } });
      }
      default:
        throw new Error(`unsupported method ${method}`);
    }
  });
  await context.addInitScript(() => {
    const call = (window as unknown as { __testWallet: (m: string, p: unknown[]) => Promise<unknown> }).__testWallet;
    (window as unknown as { ethereum: unknown }).ethereum = {
      isTestWallet: true,
      request: ({ method, params }: { method: string; params?: unknown[] }) => call(method, params ?? []),
    };
  });
}

async function loginPageReady(page: Page) {
  await page.goto("/login");
  await expect(page.locator("main.login")).toHaveAttribute("data-hydrated", "true");
}

function short(address: string): string {
  return `${address.slice(0, 6)}…${address.slice(-4)}`;
}

test("without a browser wallet the login page says so plainly", async ({ page }) => {
  await loginPageReady(page);
  await expect(page.locator("#no-wallet")).toContainText("No browser wallet was found");
  await page.click("#wallet-login");
  await expect(page.locator("#wallet-error")).toContainText("No browser wallet was found");
  await expect(page).toHaveURL(/\/login$/);
});

test("a wallet signs in to an empty workspace of its own, adds a connector and logs out; another wallet does not see it", async ({ browser }) => {
  const first = privateKeyToAccount(generatePrivateKey());
  const calls: string[] = [];
  const context = await browser.newContext();
  await withWallet(context, first, calls);
  const page = await context.newPage();
  await loginPageReady(page);
  await expect(page.locator("#no-wallet")).toHaveCount(0);
  await page.click("#wallet-login");
  await expect(page).toHaveURL(/\/$/); // the home page
  expect(calls).toEqual(["eth_requestAccounts", "eth_chainId", "personal_sign"]);
  await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
  await expect(page.locator("#signed-in .who")).toHaveText(short(first.address)); // EIP-55, from a lowercase account
  await expect(page.locator("#signed-in")).toHaveAttribute("title", first.address);
  // A wallet's workspace has no demo: its first step is its own endpoint.
  await expect(page.locator("#first-steps li.step strong").first()).toHaveText("Add your endpoint");
  await page.click("#add-endpoint");
  await expect(page).toHaveURL(/\/connectors\/new$/);
  await page.goto("/connectors");
  await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
  await expect(page.locator("tr.connector-row")).toHaveCount(0);
  await page.screenshot({ path: "test-results/wallet-login-empty-workspace.png", fullPage: true });

  await page.click("#new-connector");
  await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
  await page.fill("#name", "Wallet's own endpoint");
  // The server's own network is not a wallet's to reach: the save is refused, naming the rule and the setting.
  await page.fill("#base-url", "http://127.0.0.1:9/v1");
  await page.fill("#model", "m");
  await page.click("#save");
  await expect(page.locator("#save-error")).toContainText("refused: 127.0.0.1 is a loopback address");
  await expect(page.locator("#save-error")).toContainText("connector-allow");
  await page.fill("#base-url", "http://8.8.8.8:9/v1");
  await page.click("#save");
  await expect(page).toHaveURL(/\/connectors$/);
  await expect(page.locator("tr.connector-row", { hasText: "Wallet's own endpoint" })).toBeVisible();

  await page.click("form.logout button");
  await expect(page).toHaveURL(/\/login$/);
  await page.goto("/connectors");
  await expect(page).toHaveURL(/\/login$/, { timeout: 10_000 }); // the session ended with the logout
  await context.close();

  const second = privateKeyToAccount(generatePrivateKey());
  const otherContext = await browser.newContext();
  await withWallet(otherContext, second, []);
  const other = await otherContext.newPage();
  await loginPageReady(other);
  await other.click("#wallet-login");
  await expect(other).toHaveURL(/\/$/);
  await expect(other.locator("#signed-in .who")).toHaveText(short(second.address));
  await other.goto("/connectors");
  await expect(other.locator(".frame")).toHaveAttribute("data-hydrated", "true");
  await expect(other.locator("tr.connector-row")).toHaveCount(0);
  await expect(other.getByText("Wallet's own endpoint")).toHaveCount(0);
  await otherContext.close();
});

test("a declined signature is said in words and nothing is logged in", async ({ page }) => {
  // The wallet's own refusal (EIP-1193 code 4001), raised inside the page as a wallet extension raises it.
  await page.addInitScript(() => {
    (window as unknown as { ethereum: unknown }).ethereum = {
      request: async ({ method }: { method: string }) => {
        if (method === "eth_requestAccounts") return ["0x19e7e376e7c213b7e7e7e46cc70a5dd086daff2a"];
        if (method === "eth_chainId") return "0x1";
        throw Object.assign(new Error("User rejected the request."), { code: 4001 });
      },
    };
  });
  await loginPageReady(page);
  await page.click("#wallet-login");
  await expect(page.locator("#wallet-error")).toHaveText("You declined the request in your wallet; nothing was signed.");
  await expect(page.locator("#wallet-login")).toBeEnabled();
  await page.goto("/connectors");
  await expect(page).toHaveURL(/\/login$/);
});

test("in settings a wallet names its workspace, makes an API token that works once shown, revokes it, and signs out everywhere", async ({ browser, playwright }) => {
  const account = privateKeyToAccount(generatePrivateKey());
  const context = await browser.newContext();
  await withWallet(context, account, []);
  const page = await context.newPage();
  await loginPageReady(page);
  await page.click("#wallet-login");
  await expect(page).toHaveURL(/\/$/);

  await page.click("a[href='/settings']");
  await expect(page).toHaveURL(/\/settings$/);
  await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
  await expect(page.locator("#workspace-owner")).toContainText(account.address);
  await expect(page.locator("#workspace-name")).toHaveValue(short(account.address));
  await page.fill("#workspace-name", "Perf team");
  await page.click("#rename-workspace");
  await expect(page.locator("#renamed")).toBeVisible();
  // This test server has no SMTP server: the alert e-mail section says so instead of offering a dead end.
  await expect(page.locator("#contact-email-off")).toContainText("E-mail is off on this server");

  await expect(page.locator("#no-tokens")).toBeVisible();
  await page.fill("#token-name", "CI nightly");
  await page.selectOption("#token-expiry", "30");
  await expect(page.locator("#token-scope")).toHaveValue("run"); // the default a script that runs needs
  await page.selectOption("#token-scope", "read");
  await page.click("#create-token");
  const token = (await page.locator("#new-token-value").textContent())!.trim();
  expect(token).toMatch(/^lgt_[A-Za-z0-9_-]{43}$/);
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.click("#copy-new-token");
  await expect(page.locator("#copy-new-token")).toHaveText("Copied");
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
  const row = page.locator("tr.token-row", { hasText: "CI nightly" });
  await expect(row.locator(".token-state")).toHaveText("active");
  await expect(row.locator(".token-scope")).toHaveText("read");
  await expect(row).toContainText(token.slice(0, 8));
  await page.screenshot({ path: "test-results/settings-token-created.png", fullPage: true });

  // A script with the token and no cookie: it reads this workspace.
  const script = await playwright.request.newContext({ baseURL: page.url().replace(/\/settings$/, "") });
  const asScript = () => script.post("/api/connectors/list", { data: {}, headers: { Authorization: `Bearer ${token}` } });
  expect((await asScript()).status()).toBe(200);
  // A read token starts nothing, and the refusal says why.
  const start = await script.post("/api/runs/start", { data: {}, headers: { Authorization: `Bearer ${token}` } });
  expect(start.status()).toBe(403);
  expect((await start.json()).detail).toContain("runs/start needs a run token");
  await page.reload();
  await expect(page.locator(".frame")).toHaveAttribute("data-hydrated", "true");
  await expect(page.locator("#new-token-value")).toHaveCount(0); // shown once only
  expect(await page.content()).not.toContain(token);
  await expect(page.locator("tr.token-row", { hasText: "CI nightly" }).locator("td").nth(5)).not.toHaveText("—"); // last used

  await page.locator("tr.token-row", { hasText: "CI nightly" }).locator(".revoke-token").click();
  await expect(page.locator("tr.token-row", { hasText: "CI nightly" }).locator(".token-state")).toContainText("revoked");
  expect((await asScript()).status()).toBe(401);
  await script.dispose();

  await page.click("#sign-out-everywhere");
  await expect(page).toHaveURL(/\/login$/);
  await page.goto("/connectors");
  await expect(page).toHaveURL(/\/login$/);
  await context.close();
});

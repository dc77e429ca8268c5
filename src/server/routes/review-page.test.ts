/**
 * The review page end to end in headless Chromium (Debian's `chromium`, driven by playwright-core through
 * its executablePath): an agent's check waits on an approval; the reviewer opens /ui, enters a key, clicks
 * Approve; the waiting check completes and the re-check is allowed. Also: the page is served under its
 * Content-Security-Policy without a key, nothing on it breaks that policy, and the data behind it still
 * needs a key. Skipped, saying so, only where /usr/bin/chromium is absent.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Decision } from "../../core/decision.js";
import { openStore } from "../../runtime/default-store.js";
import { createKeyDirectory, issueApiKey } from "../../store/key-directory.js";
import type { Approval, Store } from "../../store/store.js";
import { type RunningServer, startServer } from "../start-server.js";
import { REVIEW_PAGE_CSP } from "./review-page.js";

const CHROMIUM = "/usr/bin/chromium";
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.log(`review page e2e skipped: ${CHROMIUM} is absent (apt-get install -y chromium)`);

const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

const dir = mkdtempSync(join(tmpdir(), "warden-review-page-"));
let store: Store;
let server: RunningServer;
let browser: BrowserContext | undefined;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  store = await openStore({ path: join(dir, "warden.db") });
  tokens.agent = (await issueApiKey({ store, name: "agent", scopes: ["check"] })).token;
  tokens.reviewer = (
    await issueApiKey({
      store,
      name: "reviewer",
      scopes: ["check", "policies:read", "approvals:read", "approvals:write"],
    })
  ).token;
  server = await startServer({
    port: 0,
    policyRefs: ["mcp-tools"],
    engine: "compiled",
    logger: false,
    keys: createKeyDirectory({ store }),
    approvals: { store },
    reviewPage: true,
  });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function agentCall(path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${server.url}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: {
      authorization: `Bearer ${tokens.agent}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(60_000),
  });
  return { status: response.status, body: await response.json() };
}

const MERGE = {
  policy: "mcp-tools",
  call: { name: "github.merge_pull_request", arguments: { repo: "acme/api", number: 7 } },
};

describe("review page /ui", () => {
  it("is served without a key under its CSP, while its data still needs one", async () => {
    const page = await fetch(`${server.url}/ui`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toBe(REVIEW_PAGE_CSP);
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    const html = await page.text();
    expect(html).not.toMatch(/\son[a-z]+=/i);
    expect(html).not.toMatch(/<script>(?!<\/script>)/);
    expect((await fetch(`${server.url}/ui/app.js`)).headers.get("content-type")).toContain("javascript");
    expect((await fetch(`${server.url}/v1/approvals`)).status).toBe(401);
  });

  it.skipIf(!hasChromium)(
    "approves a pending request through the page, and the waiting check completes",
    async () => {
      const asked = (await agentCall("/v1/check/tool-call", MERGE)).body as Decision;
      expect(asked).toMatchObject({ verdict: "ask", approval: { status: "pending" } });
      const id = asked.approval!.id;
      // An agent controls what it asks about: markup in a subject must show as text, never run.
      const hostile = (
        await agentCall("/v1/check/tool-call", {
          policy: "mcp-tools",
          call: {
            name: "github.merge_pull_request",
            arguments: { repo: '<img src=x id=pwn onerror="document.title=1">', number: 8 },
          },
        })
      ).body as Decision;
      let settled = false;
      const waiting = agentCall(`/v1/approvals/${id}?wait=60000`).finally(() => {
        settled = true;
      });

      browser = await chromium.launchPersistentContext(mkdtempSync(join(dir, "chromium-")), {
        executablePath: CHROMIUM,
        headless: true,
        args: FLAGS,
        timeout: 60_000,
      });
      const page = browser.pages()[0] ?? (await browser.newPage());
      const problems: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error") problems.push(message.text());
      });
      page.on("pageerror", (error) => problems.push(error.message));
      await page.goto(`${server.url}/ui`, { timeout: 30_000 });
      // Without a key the API refuses, and the page says so.
      await page.locator("#approvals-note").filter({ hasText: "API key" }).waitFor({ timeout: 30_000 });
      problems.length = 0; // the 401s just seen are logged by Chromium as failed loads
      await page.fill("#key", tokens.reviewer!);
      await page.click("#save-key");
      const row = page.locator(`#approvals li[data-approval-id="${id}"]`);
      await row.waitFor({ timeout: 30_000 });
      await expect(row.textContent()).resolves.toContain("tool.confirm-merge");
      await expect(row.textContent()).resolves.toContain("acme/api");
      await page.locator("#policies details[data-policy='mcp-tools']").waitFor({ timeout: 30_000 });
      expect(settled).toBe(false);
      const hostileRow = page.locator(`#approvals li[data-approval-id="${hostile.approval!.id}"]`);
      await expect(hostileRow.textContent()).resolves.toContain("<img src=x id=pwn");
      expect(await page.locator("#pwn").count()).toBe(0);
      expect(await page.title()).toBe("Warden review");

      await row.locator("button[data-action='approve']").click();

      const waited = await waiting;
      expect(waited).toMatchObject({ status: 200, body: { id, status: "approved", decidedBy: "reviewer" } });
      await page
        .locator(`#decided li[data-approval-id="${id}"][data-status="approved"]`)
        .waitFor({ timeout: 30_000 });
      expect(await row.count()).toBe(0);
      expect(await page.evaluate("sessionStorage.getItem('warden.review.key')")).toBe(tokens.reviewer);
      // Decisions: h1's audit log is not on this server; the page says so.
      await expect(page.locator("#decisions-note").textContent()).resolves.toMatch(
        /audit log is not enabled|audit:read/,
      );
      expect(problems.filter((p) => /Content Security Policy|Refused/i.test(p))).toEqual([]);

      const again = (await agentCall("/v1/check/tool-call", MERGE)).body as Decision;
      expect(again).toMatchObject({ verdict: "allow", allowed: true, approval: { id, status: "approved" } });
      const stored = (await store.getApproval({ id })) as Approval;
      expect(stored.usedAt).toBeDefined();
    },
    120_000,
  );
});

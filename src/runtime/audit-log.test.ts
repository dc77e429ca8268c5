import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Decision } from "../core/decision.js";
import { createGuard } from "../guard.js";
import { verifyAuditChain } from "../store/audit-chain.js";
import { createSqliteStore } from "../store/sqlite-store.js";
import type { Store } from "../store/store.js";
import { recordAuditEvent, subjectDigest, withAudit } from "./audit-log.js";
import type { GuardService } from "./guard-service.js";
import { openGuardService } from "./open-guard-service.js";

const dir = mkdtempSync(join(tmpdir(), "warden-audit-log-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const allow: Decision = {
  allowed: true,
  label: 0,
  verdict: "allow",
  violations: [],
  explanation: "No rule of the policy is violated.",
  output: null,
  engine: "compiled",
  policy: { name: "p", version: "2" },
  cost: { llmCalls: 0, inputTokens: 0, outputTokens: 0, ms: 0 },
};
const stand = (decision: Decision) =>
  ({
    defaultEngine: "compiled",
    check: async () => decision,
    close: async () => {},
  }) as unknown as GuardService;

describe("withAudit", () => {
  it("records the decision, its approval id and, when asked, the subject", async () => {
    const store = await createSqliteStore({ path: ":memory:" });
    const service = withAudit({
      service: stand({ ...allow, approval: { id: "ap-9" } } as Decision),
      store,
      face: "http",
      auditSubjects: true,
    });
    const subject = { input: "q", output: "a" };
    await service.check({ policy: "p", subject, caller: { name: "ci", scopes: ["check"] } });
    const [row] = await store.listAuditEntries({});
    expect(row).toMatchObject({
      policy: "p",
      policyVersion: "2",
      verdict: "allow",
      caller: "ci",
      face: "http",
      approvalId: "ap-9",
      subject,
      subjectDigest: subjectDigest({ subject: { output: "a", input: "q" } }),
    });
    await service.close();
    await store.close();
  });

  it("denies an allow whose row cannot be written (sync), and answers at once when async", async () => {
    const broken = {
      appendAuditEntry: async () => {
        throw new Error("disk full");
      },
    } as unknown as Store;
    const warnings: string[] = [];
    const onWarning = ({ message }: { message: string }) => warnings.push(message);
    const sync = withAudit({ service: stand(allow), store: broken, face: "http", onWarning });
    const denied = await sync.check({ policy: "p", subject: { input: "", output: "" } });
    expect(denied).toMatchObject({
      allowed: false,
      verdict: "deny",
      failure: { code: "STORE_ERROR", mode: "closed" },
    });
    const async = withAudit({
      service: stand(allow),
      store: broken,
      face: "http",
      auditMode: "async",
      onWarning,
    });
    expect((await async.check({ policy: "p", subject: { input: "", output: "" } })).allowed).toBe(true);
    await async.close();
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toContain("was not recorded");
  });

  it("takes approval rows from recordAuditEvent in the same chain", async () => {
    const store = await createSqliteStore({ path: ":memory:" });
    await withAudit({ service: stand(allow), store, face: "http" }).check({
      policy: "p",
      subject: { input: "", output: "" },
    });
    const row = await recordAuditEvent({
      store,
      event: {
        kind: "approval",
        policy: "p",
        verdict: "allow",
        allowed: true,
        approvalId: "ap-1",
        caller: "alice",
        face: "http",
      },
    });
    expect(row).toMatchObject({ seq: 2, kind: "approval", caller: "alice" });
    expect((await verifyAuditChain({ store })).ok).toBe(true);
    await store.close();
  });
});

describe("audit through the library and the command-line faces", () => {
  it("createGuard with a store records each decision (face library); openGuardService names its face", async () => {
    const path = join(dir, "lib.db");
    const guard = await createGuard({ policy: "mcp-tools", engine: "compiled", store: path });
    const decision = await guard.checkToolCall({
      name: "github_delete_repository",
      arguments: { repo: "acme/api" },
    });
    await guard.close();
    const cli = await openGuardService({
      policies: ["mcp-tools"],
      engine: "compiled",
      store: path,
      auditFace: "cli-check",
    });
    await cli.check({ policy: "mcp-tools", subject: { input: "", output: "hello" } });
    await cli.close();
    const off = await openGuardService({
      policies: ["mcp-tools"],
      engine: "compiled",
      store: path,
      audit: false,
    });
    await off.check({ policy: "mcp-tools", subject: { input: "", output: "hello" } });
    await off.close();
    const store = await createSqliteStore({ path });
    const [second, first] = await store.listAuditEntries({});
    expect(first).toMatchObject({
      face: "library",
      caller: "library",
      verdict: decision.verdict,
      policy: "mcp-tools",
    });
    expect(second).toMatchObject({ face: "cli-check", caller: expect.stringMatching(/^user:/) });
    expect((await store.auditHead()).headSeq).toBe(2);
    await store.close();
  });
});

/**
 * `warden approvals` through the CLI's entry in this process, on a temporary store file holding what a
 * running `warden serve` would have queued: list, approve with who decided, refuse to decide twice.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { afterAll, describe, expect, it, vi } from "vitest";
import { subjectDigest } from "../../core/subject-digest.js";
import { createSqliteStore } from "../../store/sqlite-store.js";
import type { Approval } from "../../store/store.js";
import { runCli } from "../run-cli.js";

const dir = mkdtempSync(join(tmpdir(), "warden-approvals-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function wardenHere(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  const saved = process.exitCode;
  try {
    process.exitCode = 0;
    await runCli({ program: new Command("warden"), argv: ["node", "warden", ...args] });
    return { code: Number(process.exitCode ?? 0), stdout, stderr };
  } finally {
    process.exitCode = saved;
    out.mockRestore();
    err.mockRestore();
  }
}

describe("warden approvals", () => {
  it("lists pending approvals, approves one naming who decided, and refuses to decide it again", async () => {
    const db = join(dir, "serve.db");
    const store = await createSqliteStore({ path: db });
    const subject = { toolCall: { name: "github.merge_pull_request", arguments: { number: 12 } } };
    const queued = await store.createApproval({
      approval: {
        policy: "mcp-tools",
        subjectDigest: subjectDigest({ subject }),
        subject,
        rules: ["tool.confirm-merge"],
        explanation: "Merging needs a human",
        caller: "agent",
        expiresAt: new Date(Date.now() + 60_000).toISOString(),
      },
    });
    await store.close();

    const listed = await wardenHere(["approvals", "list", "--store", db, "--json"]);
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.stdout) as Approval[]).map((a) => a.id)).toEqual([queued.id]);
    const shown = await wardenHere(["approvals", "list", "--store", db]);
    expect(shown.stdout).toContain(queued.id);
    expect(shown.stdout).toContain("tool.confirm-merge");

    const approved = await wardenHere(["approvals", "approve", queued.id, "--by", "alice", "--store", db]);
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain(`approved approval ${queued.id}`);
    expect(approved.stdout).toContain("by alice");

    const again = await wardenHere(["approvals", "deny", queued.id, "--store", db]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain("approved");
    expect(again.stderr).toContain("cannot be decided again");

    const unknown = await wardenHere(["approvals", "approve", "no-such-id", "--store", db]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('no approval with id "no-such-id"');

    const bad = await wardenHere(["approvals", "list", "--status", "maybe", "--store", db]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--status");

    const reopened = await createSqliteStore({ path: db });
    expect(await reopened.getApproval({ id: queued.id })).toMatchObject({
      status: "approved",
      decidedBy: "alice",
    });
    await reopened.close();
  });
});

/**
 * Red team, memory poisoning: whoever can ask a live guard for checks must not be able to teach it. A
 * model that allows everything it is asked about, and a caller that sends many similar checks, leave
 * memory without a learned case by default; "successful" learning (store whatever the model decided) is
 * refused on the live faces; with "correct-only" only labelled feedback from a caller with scope
 * "memory:write" stores a case, and only when the guard's decision agrees with the label. A store that
 * throws on write is counted and reported in stats, and the decision stands.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Caller } from "../../src/core/caller.js";
import { SubjectSchema } from "../../src/core/subject.js";
import { createMemoryBank } from "../../src/memory/memory-bank.js";
import { loadPolicy } from "../../src/policies/load-policy.js";
import { createEngine } from "../../src/runtime/create-engine.js";
import { createEnginePool } from "../../src/runtime/engine-pool.js";
import { createGuardService } from "../../src/runtime/guard-service.js";
import { openGuardService } from "../../src/runtime/open-guard-service.js";
import { createSqliteStore } from "../../src/store/sqlite-store.js";
import type { Store } from "../../src/store/store.js";
import { createScriptedModel, type ScriptedReply } from "../../src/testing/scripted-model.js";
import { warden } from "./redteam.fixture.js";

const dir = mkdtempSync(join(tmpdir(), "warden-poison-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const policy = loadPolicy({ ref: "eicu-ac" }).policy;
/** A program that allows: what a poisoner wants remembered for look-alike requests. */
const allowScript = (): ScriptedReply[] => [
  "1. Identify the role. 2. Check the tables. 3. Decide.",
  "```javascript\nfinish({ label: 0 });\n```",
];
/** No code in the output: the compiled rules cannot decide, so the model does. */
const poisoned = (i: number) =>
  SubjectSchema.parse({
    input: `Identity: nursing\nQuestion: what was the last diagnosis of patient 031-${3000 + i}?`,
    output: `Answer:\nacute kidney injury (${i})`,
  });

const labeller: Caller = { name: "reviewer", scopes: ["check", "memory:write"] };
const agent: Caller = { name: "agent", scopes: ["check"] };

async function learned(path: string): Promise<number> {
  const store = await createSqliteStore({ path });
  try {
    const all = await store.listDemonstrations({ policy: policy.name });
    return all.filter((d) => d.origin === "learned").length;
  } finally {
    await store.close();
  }
}

/** The store, except that every demonstration write throws. */
function failingWrites(store: Store): Store {
  return new Proxy(store, {
    get(target, key) {
      if (key === "addDemonstrationOnce") return async () => Promise.reject(new Error("disk full"));
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

describe("memory poisoning: live learning is off by default", () => {
  it("many model-allowed checks leave no learned case in memory", async () => {
    const path = join(dir, "default.db");
    const checks = 12;
    const model = createScriptedModel({ replies: Array.from({ length: checks }, allowScript).flat() });
    const service = await openGuardService({
      policies: ["eicu-ac"],
      engine: "guardagent",
      modelClient: model,
      store: path,
    });
    try {
      for (let i = 0; i < checks; i++) {
        const d = await service.check({ policy: policy.name, subject: poisoned(i), caller: agent });
        expect(d.allowed).toBe(true);
      }
      expect(service.stats().memory).toEqual({ writes: 0, writeErrors: 0, lastError: null });
    } finally {
      await service.close();
    }
    expect(await learned(path)).toBe(0);
  }, 60_000);

  it('refuses learn "successful" on a live guard, naming the option and why', async () => {
    await expect(openGuardService({ policies: ["eicu-ac"], learn: "successful" })).rejects.toMatchObject({
      code: "INVALID_INPUT",
      details: { field: "learn" },
      message: expect.stringContaining("memory poisoning"),
    });
  });

  it("warden check --learn successful is a usage error (exit 2)", async () => {
    const subject = JSON.stringify({ input: "Identity: nursing\nQuestion: q", output: "Answer: 1" });
    const run = await warden(["check", "--policy", "eicu-ac", "--subject", subject, "--learn", "successful"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("learn");
    expect(run.stderr).toContain("warden bench");
  }, 60_000);
});

describe("memory poisoning: correct-only learns from labelled feedback only", () => {
  it("stores a case only for a memory:write caller whose label the decision agrees with", async () => {
    const path = join(dir, "feedback.db");
    const model = createScriptedModel({ replies: [...allowScript(), ...allowScript()] });
    const service = await openGuardService({
      policies: ["eicu-ac"],
      engine: "guardagent",
      modelClient: model,
      store: path,
      learn: "correct-only",
    });
    try {
      const first = poisoned(1);
      expect((await service.check({ policy: policy.name, subject: first, caller: agent })).allowed).toBe(
        true,
      );
      expect(service.stats().memory?.writes).toBe(0);
      // The agent labelling its own check is refused.
      await expect(
        service.feedback({ policy: policy.name, subject: first, label: "allow", caller: agent }),
      ).rejects.toMatchObject({
        code: "INVALID_INPUT",
        details: { reason: "forbidden", scope: "memory:write" },
      });
      // A label the decision disagrees with teaches nothing.
      expect(
        await service.feedback({ policy: policy.name, subject: first, label: "deny", caller: labeller }),
      ).toMatchObject({ stored: false });
      // A check the guard never decided cannot be labelled into memory.
      expect(
        await service.feedback({
          policy: policy.name,
          subject: poisoned(99),
          label: "allow",
          caller: labeller,
        }),
      ).toMatchObject({ stored: false });
      expect(
        await service.feedback({ policy: policy.name, subject: first, label: "allow", caller: labeller }),
      ).toMatchObject({ stored: true });
      expect(service.stats().memory).toMatchObject({ writes: 1, writeErrors: 0 });
    } finally {
      await service.close();
    }
    expect(await learned(path)).toBe(1);
  }, 60_000);
});

describe("memory poisoning: store write errors are counted, never silent, never the decision", () => {
  it("a learning engine whose store throws keeps its decision; the failure is counted and noted", async () => {
    const store = await createSqliteStore({ path: ":memory:" });
    const errors: string[] = [];
    const memory = createMemoryBank({
      store: failingWrites(store),
      learn: "successful",
      onWriteError: ({ error }) => errors.push((error as Error).message),
    });
    const handle = await createEngine({
      engine: "guardagent",
      model: createScriptedModel({ replies: allowScript() }),
      memory,
      learn: "successful",
    });
    try {
      const d = await handle.engine.check({ policy, subject: poisoned(1) });
      expect(d).toMatchObject({ allowed: true, verdict: "allow" });
      expect(d.trace?.notes?.join(" ")).toContain("not stored in memory");
      expect(memory.writeStats()).toEqual({ writes: 0, writeErrors: 1, lastError: "disk full" });
      expect(errors).toEqual(["disk full"]);
    } finally {
      await handle.close();
      await store.close();
    }
  });

  it("the service surfaces failed writes in stats and answers feedback with STORE_ERROR", async () => {
    const store = await createSqliteStore({ path: ":memory:" });
    const warnings: string[] = [];
    const memory = createMemoryBank({
      store: failingWrites(store),
      learn: "correct-only",
      onWriteError: ({ error }) => warnings.push((error as Error).message),
    });
    const service = createGuardService({
      policies: [policy],
      engines: createEnginePool({
        defaultEngine: "guardagent",
        setup: { model: createScriptedModel({ replies: allowScript() }), memory, learn: "correct-only" },
      }),
      memory,
    });
    try {
      const subject = poisoned(2);
      const d = await service.check({ policy: policy.name, subject });
      expect(d.allowed).toBe(true);
      await expect(
        service.feedback({ policy: policy.name, subject, label: "allow", caller: labeller }),
      ).rejects.toMatchObject({ code: "STORE_ERROR" });
      expect(service.stats().memory).toEqual({ writes: 0, writeErrors: 1, lastError: "disk full" });
      expect(warnings).toEqual(["disk full"]);
    } finally {
      await service.close();
      await store.close();
    }
  });
});

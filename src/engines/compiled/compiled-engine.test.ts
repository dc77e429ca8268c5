import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PolicySchema } from "../../core/policy.js";
import { SubjectSchema } from "../../core/subject.js";
import { loadPolicy } from "../../policies/load-policy.js";
import { packageRoot } from "../../policies/package-root.js";
import { createAutoEngine } from "../auto-engine.js";
import type { Engine } from "../engine.js";
import { createCompiledEngine } from "./compiled-engine.js";

interface DemoRecord {
  id: string;
  policy: string;
  subject: unknown;
  expected: {
    verdict: "allow" | "deny" | "ask";
    inaccessible?: Record<string, string[]>;
    violations?: string[];
  };
}

const records: DemoRecord[] = readFileSync(join(packageRoot(), "examples", "demo", "records.jsonl"), "utf8")
  .trim()
  .split("\n")
  .map((l) => JSON.parse(l));

const sortMap = (m: Record<string, string[]>) =>
  Object.fromEntries(
    Object.entries(m)
      .map(([t, cs]) => [t, [...cs].sort()] as const)
      .sort((x, y) => x[0].localeCompare(y[0])),
  );

describe("compiled engine on the bundled demo records", () => {
  const engine = createCompiledEngine();
  for (const record of records) {
    it(`${record.id}: ${record.expected.verdict}`, async () => {
      const policy = loadPolicy({ ref: record.policy }).policy;
      const d = await engine.check({ policy, subject: SubjectSchema.parse(record.subject) });
      expect(d.verdict).toBe(record.expected.verdict);
      expect(d.cost.llmCalls).toBe(0);
      expect(d.engine).toBe("compiled");
      expect(d.failure).toBeUndefined();
      if (record.expected.inaccessible) {
        const found = d.violations.find((v) => v.details?.inaccessible)?.details?.inaccessible as Record<
          string,
          string[]
        >;
        expect(sortMap(found)).toEqual(sortMap(record.expected.inaccessible));
      }
      if (record.expected.violations)
        expect(d.violations.map((v) => v.message)).toEqual(record.expected.violations);
      if (d.allowed) expect(d.output).not.toBeNull();
      else expect(d.output).toBeNull();
    });
  }
});

describe("compiled engine semantics", () => {
  const engine = createCompiledEngine();
  const eicu = loadPolicy({ ref: "eicu-ac" }).policy;

  it("passes the agent's answer through when allowed", async () => {
    const d = await engine.check({
      policy: eicu,
      subject: SubjectSchema.parse({
        input: "Identity: physician\nQuestion: what is the age of patient 001-1?",
        output:
          "Knowledge:\n- age is in patient\nGenerated code:\np = FilterDB(LoadDB('patient'), 'uniquepid=001-1')\nanswer = GetValue(p, 'age')\nAnswer:\n67",
      }),
    });
    expect(d).toMatchObject({ allowed: true, label: 0, output: "67" });
  });

  it("denies a role the policy does not know, with the columns it read", async () => {
    const d = await engine.check({
      policy: eicu,
      subject: SubjectSchema.parse({
        input: "Identity: janitor\nQuestion: q",
        output:
          "Generated code:\np = FilterDB(LoadDB('patient'), 'uniquepid=1')\nanswer = GetValue(p, 'age')\nAnswer:\n1",
      }),
    });
    expect(d.verdict).toBe("deny");
    expect(d.violations[0]?.ruleId).toBe("access.unknown-role");
  });

  it("fails closed and names the fact it could not determine", async () => {
    const d = await engine.check({
      policy: eicu,
      subject: SubjectSchema.parse({ input: "Question: how old is patient 1?", output: "I don't know." }),
    });
    expect(d).toMatchObject({
      allowed: false,
      label: 1,
      failure: { code: "EXTRACTION_FAILED", mode: "closed" },
    });
    expect(d.failure?.message).toContain("the user's role");
    expect(d.failure?.message).toContain("no generated code");
  });

  it("prefers structured context over text", async () => {
    const d = await engine.check({
      policy: eicu,
      subject: SubjectSchema.parse({
        input: "Identity: physician\nQuestion: q",
        output: "",
        context: { identity: "general administration", resources: { diagnosis: ["diagnosisname"] } },
      }),
      // A caller trusted with facts (context-facts.ts): its resources are taken as given.
      trust: { contextFacts: true },
    });
    expect(d.verdict).toBe("deny");
    expect(d.violations[0]?.details?.inaccessible).toEqual({ diagnosis: ["diagnosisname"] });
  });

  it("a trusted caller's table named __proto__ is a table, not the copy's prototype", async () => {
    // Past the subject schema (which drops such keys), as an engine may be called directly.
    const resources = JSON.parse('{"patient":["patientunitstayid"],"__proto__":["secret"]}') as unknown;
    const d = await engine.check({
      policy: eicu,
      subject: { input: "Identity: general administration\nQuestion: q", output: "", context: { resources } },
      trust: { contextFacts: true },
    });
    expect(d.allowed).toBe(false);
    expect(JSON.stringify(d)).toContain("__proto__");
  });

  it("refuses a policy with no compiled rules", async () => {
    const policy = PolicySchema.parse({ name: "text-only", specification: "s", requests: "r" });
    const d = await engine.check({ policy, subject: SubjectSchema.parse({ input: "x", output: "y" }) });
    expect(d.failure?.code).toBe("UNSUPPORTED");
    expect(d.allowed).toBe(false);
  });
});

describe("auto engine", () => {
  const compiled = createCompiledEngine();
  const eicu = loadPolicy({ ref: "eicu-ac" }).policy;
  const unclear = SubjectSchema.parse({ input: "Question: q", output: "no code here" });

  it("takes the compiled path when every fact is certain", async () => {
    const auto = createAutoEngine({ compiled });
    const record = records.find((r) => r.id === "ehr-nursing-diagnosis")!;
    const d = await auto.check({ policy: eicu, subject: SubjectSchema.parse(record.subject) });
    expect(d.engine).toBe("auto/compiled");
    expect(d.verdict).toBe("deny");
  });

  it("falls back to the model pipeline when a fact is uncertain", async () => {
    const fallback: Engine = {
      name: "guardagent",
      check: async () => ({
        allowed: true,
        label: 0,
        verdict: "allow",
        violations: [],
        explanation: "model says fine",
        output: "x",
        engine: "guardagent",
        cost: { llmCalls: 2, inputTokens: 10, outputTokens: 5, ms: 1 },
      }),
    };
    const d = await createAutoEngine({ compiled, fallback }).check({ policy: eicu, subject: unclear });
    expect(d.engine).toBe("auto/guardagent");
    expect(d.trace?.notes?.join(" ")).toContain("the user's role");
  });

  it("without a model, denies and says which fact is missing and that no model is configured", async () => {
    const d = await createAutoEngine({ compiled }).check({ policy: eicu, subject: unclear });
    expect(d).toMatchObject({ allowed: false, failure: { code: "EXTRACTION_FAILED" } });
    expect(d.failure?.message).toMatch(/the user's role.*no model is configured/s);
  });
});

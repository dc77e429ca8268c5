/**
 * `compilePolicy` end to end through a loopback OpenAI-compatible server with scripted replies: the real
 * client, the structured-output re-ask on schema errors, and the verification re-ask on findings.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WardenError } from "../core/errors.js";
import { createModelClient } from "../llm/create-model-client.js";
import { type ModelServer, type RespondArgs, startOpenAIServer } from "../testing/openai-server.js";
import { compilePolicy } from "./compile-policy.js";

const specification = `A database agent answers questions with SQL over two tables:
- patient: uniquepid, age, gender
- lab: patientunitstayid, labname, labresult`;
const requests = `Nurses may read patient (uniquepid, age) and lab (labname, labresult). Clerks may read patient (uniquepid) only.`;

const valid = {
  vocabulary: {
    resources: {
      patient: ["uniquepid", "age", "gender"],
      lab: ["patientunitstayid", "labname", "labresult"],
    },
    roles: ["nurse", "clerk"],
  },
  access: {
    rules: [
      {
        id: "access.nurse",
        role: "nurse",
        allow: { patient: ["uniquepid", "age"], lab: ["labname", "labresult"] },
        source: "Nurses may read patient (uniquepid, age) and lab (labname, labresult).",
      },
      {
        id: "access.clerk",
        role: "clerk",
        allow: { patient: ["uniquepid"] },
        source: "Clerks may read patient (uniquepid) only.",
      },
    ],
    unknownRole: "deny",
  },
};

const unknownColumn = structuredClone(valid);
unknownColumn.access.rules[0]!.allow.lab = ["labname", "labvalue"];

describe("compilePolicy through a loopback OpenAI-compatible server", () => {
  let server: ModelServer;
  let replies: string[] = [];
  const prompts: string[] = [];
  beforeAll(async () => {
    server = await startOpenAIServer({
      respond: (args: RespondArgs) => {
        prompts.push(args.messages.map((m) => m.content).join("\n"));
        return replies.shift() ?? "{}";
      },
    });
  });
  afterAll(async () => server.close());
  const model = () =>
    createModelClient({ spec: "openai-compatible:compiler", baseUrl: server.url, maxRetries: 0 });

  it("accepts a valid artifact and verifies it against the specification", async () => {
    replies = [JSON.stringify(valid)];
    const result = await compilePolicy({ model: model(), name: "clinic", specification, requests });
    expect(result.rounds).toBe(1);
    expect(result.policy.rules?.access?.rules.map((r) => r.role)).toEqual(["nurse", "clerk"]);
    expect(result.policy.specification).toBe(specification);
    expect(result.findings.filter((f) => f.severity === "error")).toEqual([]);
  });

  it("re-asks with the validation errors when the answer does not fit the schema", async () => {
    prompts.length = 0;
    replies = [JSON.stringify({ access: { rules: [{ role: "nurse" }] } }), JSON.stringify(valid)];
    const result = await compilePolicy({ model: model(), name: "clinic", specification, requests });
    expect(result.policy.rules?.access?.rules).toHaveLength(2);
    expect(prompts).toHaveLength(2);
    expect(prompts[1]).toMatch(/access\.rules\.0\.(id|allow)/);
  });

  it("re-asks with the findings, then rejects an artifact naming an unknown column", async () => {
    prompts.length = 0;
    replies = [JSON.stringify(unknownColumn), JSON.stringify(unknownColumn)];
    const error = await compilePolicy({
      model: model(),
      name: "clinic",
      specification,
      requests,
      maxRepairs: 1,
    }).catch((e) => e);
    expect(error).toBeInstanceOf(WardenError);
    expect((error as WardenError).code).toBe("INVALID_POLICY");
    expect((error as WardenError).message).toContain('Column "lab.labvalue" does not exist');
    expect(prompts).toHaveLength(2);
    expect(prompts[1]).toContain("Problems found when checking it against the specification");
    expect(prompts[1]).toContain("lab.labvalue");
  });

  it("recovers when the re-asked artifact fixes the finding", async () => {
    replies = [JSON.stringify(unknownColumn), JSON.stringify(valid)];
    const result = await compilePolicy({ model: model(), name: "clinic", specification, requests });
    expect(result.rounds).toBe(2);
    expect(result.policy.rules?.access?.rules[0]?.allow.lab).toEqual(["labname", "labresult"]);
  });
});

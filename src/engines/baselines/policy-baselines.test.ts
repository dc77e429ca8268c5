import { describe, expect, it } from "vitest";
import { WardenError } from "../../core/errors.js";
import { type Policy, PolicySchema } from "../../core/policy.js";
import { createModelClient } from "../../llm/create-model-client.js";
import { loadPolicy } from "../../policies/load-policy.js";
import { createEngine } from "../../runtime/create-engine.js";
import { createScriptedModel } from "../../testing/scripted-model.js";
import { createPolicyBaselineEngine } from "./policy-baselines.js";
import { policyRuleList } from "./policy-rule-list.js";

const requestsOnly: Policy = PolicySchema.parse({
  name: "shop",
  specification: "A shopping agent.",
  requests: "1. Never buy anything above $100.\n2. Never share the user's address.",
});
const trajectory = {
  input: "Buy the cheapest headphones",
  output: "Done.",
  trajectory: [
    { action: "search", args: { q: "headphones" }, observation: "found 3" },
    { action: "buy", args: { item: "X200", price: 450 } },
  ],
};

describe("policyRuleList", () => {
  it("lists compiled rules by id, and the guard requests when there are none", () => {
    const tools = policyRuleList({ policy: loadPolicy({ ref: "mcp-tools" }).policy });
    expect(tools.map((r) => r.id)).toContain("tool.no-repo-deletion");
    expect(tools.find((r) => r.id === "tool.no-repo-deletion")?.text).toContain("Deleting a repository");
    expect(policyRuleList({ policy: requestsOnly })).toEqual([
      { id: "request.1", text: "Never buy anything above $100." },
      { id: "request.2", text: "Never share the user's address." },
    ]);
  });
});

describe("direct", () => {
  it("asks once with the whole policy and the run, and names the violated rules", async () => {
    const model = createScriptedModel({
      replies: [
        JSON.stringify({ label: "unsafe", violations: [{ rule: "request.1", reason: "450 > 100" }] }),
        JSON.stringify({ label: "safe", violations: [] }),
      ],
    });
    const engine = createPolicyBaselineEngine({ method: "direct", model });
    const deny = await engine.check({ policy: requestsOnly, subject: trajectory });
    expect(deny).toMatchObject({ allowed: false, engine: "direct", cost: { llmCalls: 1 } });
    expect(deny.violations).toEqual([
      { ruleId: "request.1", message: "Never buy anything above $100.", details: { reason: "450 > 100" } },
    ]);
    const prompt = model.requests[0]!.messages.at(-1)!.content;
    expect(prompt).toContain("- request.2: Never share the user's address.");
    expect(prompt).toContain('arguments: {"item":"X200","price":450}');
    expect(
      (await engine.check({ policy: requestsOnly, subject: { input: "hi", output: "hello" } })).allowed,
    ).toBe(true);
  });

  it("fails closed on a rule the policy does not list, and on a model that does not answer", async () => {
    const model = createScriptedModel({
      replies: [
        JSON.stringify({ label: "unsafe", violations: [{ rule: "made-up", reason: "?" }] }),
        new WardenError({ code: "MODEL_UNAVAILABLE", message: "down" }),
      ],
    });
    const engine = createPolicyBaselineEngine({ method: "direct", model });
    const unlisted = await engine.check({ policy: requestsOnly, subject: trajectory });
    expect(unlisted).toMatchObject({
      allowed: false,
      failure: { code: "MODEL_OUTPUT_INVALID", mode: "closed" },
    });
    expect(await engine.check({ policy: requestsOnly, subject: trajectory })).toMatchObject({
      allowed: false,
      failure: { mode: "closed" },
    });
  });
});

describe("rule-traverse", () => {
  it("asks once per rule and reports every rule flagged", async () => {
    const model = createScriptedModel({
      replies: [
        JSON.stringify({ violated: true, reason: "too expensive" }),
        JSON.stringify({ violated: false, reason: "no address shared" }),
      ],
    });
    const engine = createPolicyBaselineEngine({ method: "rule-traverse", model });
    const deny = await engine.check({ policy: requestsOnly, subject: trajectory });
    expect(deny).toMatchObject({ allowed: false, engine: "rule-traverse", cost: { llmCalls: 2 } });
    expect(deny.violations.map((v) => v.ruleId)).toEqual(["request.1"]);
    expect(model.requests.map((r) => r.messages.at(-1)!.content.split("\n")[0])).toEqual([
      "Rule request.1: Never buy anything above $100.",
      "Rule request.2: Never share the user's address.",
    ]);
  });
});

describe("a dead model", () => {
  it("every baseline fails closed when the server does not answer", async () => {
    const { createServer } = await import("node:net");
    // A port that was just free: nothing listens there once the probe closes.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const model = createModelClient({
      spec: "openai-compatible:dead",
      baseUrl: `http://127.0.0.1:${port}/v1`,
      maxRetries: 0,
      timeoutMs: 2000,
    });
    for (const method of ["direct", "rule-traverse"] as const) {
      const decision = await createPolicyBaselineEngine({ method, model }).check({
        policy: requestsOnly,
        subject: trajectory,
      });
      expect(decision, method).toMatchObject({
        allowed: false,
        verdict: "deny",
        failure: { mode: "closed" },
      });
    }
  });
});

describe("wiring", () => {
  it("both need a model and keep the compiled floor", async () => {
    await expect(createEngine({ engine: "direct" })).rejects.toThrow(/needs a model/);
    const model = createScriptedModel({ replies: [JSON.stringify({ label: "safe", violations: [] })] });
    const handle = await createEngine({ engine: "direct", model, checkWorkers: 0 });
    try {
      const policy = loadPolicy({ ref: "mcp-tools" }).policy;
      const decision = await handle.engine.check({
        policy,
        subject: {
          input: "",
          output: JSON.stringify({
            method: "tools/call",
            params: { name: "github.delete_repository", arguments: { repo: "a/b" } },
          }),
        },
      });
      expect(decision.allowed).toBe(false);
      expect(decision.violations.map((v) => v.ruleId)).toContain("tool.no-repo-deletion");
    } finally {
      await handle.close();
    }
  });
});

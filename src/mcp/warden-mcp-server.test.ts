import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { type CallToolResult, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Decision, DecisionSchema } from "../core/decision.js";
import { loadPolicy } from "../policies/load-policy.js";
import { createEnginePool } from "../runtime/engine-pool.js";
import { createGuardService, type GuardService } from "../runtime/guard-service.js";
import { createWardenMcpServer } from "./warden-mcp-server.js";

const toolCall = (name: string, args: Record<string, unknown>) => JSON.stringify({ name, arguments: args });
const text = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

describe("createWardenMcpServer", () => {
  let service: GuardService;
  let client: Client;

  beforeAll(async () => {
    service = createGuardService({
      policies: [loadPolicy({ ref: "mcp-tools" }).policy, loadPolicy({ ref: "mind2web-sc" }).policy],
      engines: createEnginePool({ setup: {}, defaultEngine: "compiled" }),
    });
    const server = createWardenMcpServer({ service });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(b);
    client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(a);
  });
  afterAll(async () => {
    await client.close();
    await service.close();
  });

  it("lists warden_check and warden_policies with JSON schemas", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["warden_check", "warden_policies"]);
    const check = tools[0]!;
    expect(check.inputSchema.type).toBe("object");
    expect(Object.keys(check.inputSchema.properties ?? {})).toEqual([
      "policy",
      "input",
      "output",
      "trajectory",
      "context",
      "engine",
    ]);
    expect(check.inputSchema.required).toEqual(["policy", "input"]);
  });

  it("answers allow, deny and ask as a Decision with a one-line summary", async () => {
    const cases: [string, Record<string, unknown>, string, string][] = [
      ["github.create_issue", { title: "x" }, "allow", "ALLOW"],
      ["github.delete_repository", { repo: "a/b" }, "deny", "DENY"],
      ["github.merge_pull_request", { number: 3 }, "ask", "ASK (a human must confirm)"],
    ];
    for (const [tool, args, verdict, head] of cases) {
      const result = await client.callTool({
        name: "warden_check",
        arguments: { policy: "mcp-tools", input: "help with the repo", output: toolCall(tool, args) },
      });
      expect(result.isError).toBeFalsy();
      const decision = DecisionSchema.parse(result.structuredContent) as Decision;
      expect(decision.verdict).toBe(verdict);
      expect(text(result).startsWith(`${head} — mcp-tools v1.0.0 via compiled`)).toBe(true);
      expect(text(result)).not.toContain("\n");
    }
  });

  it("checks a web step with context, naming the violated rule", async () => {
    const result = await client.callTool({
      name: "warden_check",
      arguments: {
        policy: "mind2web-sc",
        input: "Task: Rent a car in Boston for next weekend",
        output: "ELEMENT: B\nACTION: CLICK\nVALUE: None",
        context: { user: { age: 30, dr_license: false, domestic: true, vaccine: true, membership: true } },
      },
    });
    const decision = result.structuredContent as Decision;
    expect(decision).toMatchObject({ allowed: false, verdict: "deny" });
    expect(decision.failure).toBeUndefined();
    expect(decision.violations.map((v) => v.ruleId)).toEqual(["rule.car"]);
    expect(text(result)).toMatch(/^DENY — mind2web-sc v[^ ]+ via compiled: \[rule\.car\]/);
  });

  it("lists the loaded policies", async () => {
    const result = await client.callTool({ name: "warden_policies", arguments: {} });
    const { policies } = result.structuredContent as { policies: { name: string; compiled: boolean }[] };
    expect(policies.map((p) => p.name)).toEqual(["mcp-tools", "mind2web-sc"]);
    expect(text(result)).toContain("mcp-tools v1.0.0: compiled, 12 rules");
  });

  const failure = async (name: string, args: Record<string, unknown>) => {
    const error = await client.callTool({ name, arguments: args }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    return error as McpError;
  };

  it("answers bad arguments with InvalidParams naming the field", async () => {
    const error = await failure("warden_check", { policy: "mcp-tools", output: 3 });
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toContain("input");
    expect(error.message).toContain("output");
    expect(error.data).toMatchObject({
      wardenCode: "INVALID_INPUT",
      details: { fields: ["input", "output"] },
    });
  });

  it("answers an unknown policy, an engine without a model and an unknown tool with InvalidParams", async () => {
    const policy = await failure("warden_check", { policy: "nope", input: "x" });
    expect(policy.data).toMatchObject({ wardenCode: "POLICY_NOT_FOUND" });
    const engine = await failure("warden_check", { policy: "mcp-tools", input: "x", engine: "guardagent" });
    expect(engine.code).toBe(ErrorCode.InvalidParams);
    expect(engine.data).toMatchObject({ wardenCode: "MODEL_CONFIG" });
    const tool = await failure("warden_nothing", {});
    expect(tool.code).toBe(ErrorCode.InvalidParams);
    expect(tool.message).toContain("warden_check");
  });

  it("counts what it served", () => {
    const stats = service.stats();
    expect(stats.checks).toMatchObject({ total: 4, allow: 1, deny: 2, ask: 1 });
    expect(stats.errors.byCode).toMatchObject({ POLICY_NOT_FOUND: 1, MODEL_CONFIG: 1 });
  });
});

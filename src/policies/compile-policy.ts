/**
 * Compiles natural-language guard requests into the structured policy artifact with a model: the
 * answer must fit the rules schema (the model layer re-asks with the validation errors, bounded), and
 * then must pass verification against the agent specification (re-asked with the findings, bounded).
 * A policy that still names what the specification does not have is rejected with every finding.
 */
import { WardenError } from "../core/errors.js";
import { type Policy, PolicySchema, type Rules, RulesSchema } from "../core/policy.js";
import type { ModelClient } from "../llm/model.js";
import { type Finding, verifyPolicy } from "./verify-policy.js";

export const COMPILE_INSTRUCTION = `You compile an administrator's guard requests for an AI agent into a structured policy that a program will enforce. You get the agent's specification and the guard requests, and you answer with the policy's "rules" object as JSON.

Use only the sections the requests need:
- "vocabulary": the names the agent's world has, copied exactly from the specification: "resources" (table -> every column, for agents that read data), "roles", "attributes" (user facts with their type: boolean, number or string), "actions" (tool or action names).
- "access": role-based access control, {"rules": [{"id", "role", "allow": {table: [columns]}, "source"}], "unknownRole": "deny"} — one rule per role listing exactly what it may read.
- "attributeRules": [{"id", "category", "description", "keywords", "require": [{"attribute", "operator" (==, !=, >=, >, <=, <), "value"}], "message", "source"}] — when a task falls in a category, the user's attributes must satisfy every requirement; "message" is the violation text.
- "toolRules": [{"id", "tool" (exact name or glob with *), "when" (optional condition over {"tool", "args"}: {"field": "args.path", "op": "startsWith", "value": "/tmp/"}, combined with {"all": [...]}, {"any": [...]}, {"not": ...}), "effect": "allow" | "deny" | "ask", "message", "source"}] and "toolDefault".
- "predicates" and "temporalRules": for rules about the order of actions, LTLf formulas over lower-case predicate names (operators ! & | -> G F X U O H Y S).

Rules:
- Every name you use must appear in the specification, spelled the same way. Do not invent tables, columns, attributes or tools.
- Every rule has a short unique "id" (letters, digits, . _ : -) and a "source": the exact sentence of the guard requests it comes from.
- Answer with the JSON object only.`;

export interface CompileResult {
  policy: Policy;
  findings: Finding[];
  /** Verification rounds used (1 = accepted at once). */
  rounds: number;
  llmCalls: number;
}

export async function compilePolicy(options: {
  model: ModelClient;
  name: string;
  specification: string;
  requests: string;
  version?: string;
  description?: string;
  agent?: string;
  /** Re-asks after verification errors (default 2). */
  maxRepairs?: number;
  parseFormula?: (formula: string) => string[];
  signal?: AbortSignal;
}): Promise<CompileResult> {
  const maxRepairs = options.maxRepairs ?? 2;
  const base = `## Agent specification\n${options.specification.trim()}\n\n## Guard requests\n${options.requests.trim()}\n`;
  let prompt = `${base}\n## Policy rules (JSON)\n`;
  let llmCalls = 0;
  let findings: Finding[] = [];
  for (let round = 1; round <= maxRepairs + 1; round++) {
    const result = await options.model.generateObject<Rules>({
      system: COMPILE_INSTRUCTION,
      prompt,
      schema: RulesSchema as unknown as import("zod").ZodType<Rules>,
      schemaName: "rules",
      purpose: "compile",
      ...(options.signal ? { signal: options.signal } : {}),
    });
    llmCalls += result.requests;
    const policy = PolicySchema.parse({
      name: options.name,
      version: options.version ?? "1",
      ...(options.description ? { description: options.description } : {}),
      ...(options.agent ? { agent: options.agent } : {}),
      specification: options.specification,
      requests: options.requests,
      rules: result.object,
    });
    const verification = verifyPolicy({
      policy,
      ...(options.parseFormula ? { parseFormula: options.parseFormula } : {}),
    });
    findings = verification.findings;
    if (verification.ok) return { policy, findings, rounds: round, llmCalls };
    const errors = findings.filter((f) => f.severity === "error");
    prompt = `${base}\n## Your previous answer\n${JSON.stringify(result.object, null, 2)}\n\n## Problems found when checking it against the specification\n${errors
      .map((f) => `- ${f.path}: ${f.message}`)
      .join("\n")}\n\nFix every problem and answer with the whole corrected rules object as JSON.\n`;
  }
  throw new WardenError({
    code: "INVALID_POLICY",
    message: `The compiled policy still fails verification after ${maxRepairs + 1} attempts: ${findings
      .filter((f) => f.severity === "error")
      .map((f) => `${f.path}: ${f.message}`)
      .join("; ")}`,
    details: { findings },
  });
}

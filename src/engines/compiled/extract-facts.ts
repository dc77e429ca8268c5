/**
 * Per-check fact extraction for the compiled engine: only the facts the policy's rules need, each from
 * the agent's own format (structured context first, then text). Reports which facts could not be
 * determined with confidence, so `compiled` can fail closed and `auto` can fall back to a model.
 */
import type { Subject } from "../../core/subject.js";
import type { CompiledPolicy } from "./compiled-policy.js";
import { ehrAgentOutputCode, extractEhrAgentAccess } from "./extractors/ehragent/index.js";
import { extractIdentity, type IdentityFacts } from "./extractors/identity/index.js";
import type { ClassifyResult } from "./extractors/task-category/index.js";
import { extractToolCalls, type ToolCall } from "./extractors/tool-calls/index.js";

export interface CompiledFacts {
  identity?: IdentityFacts;
  /** table -> columns the agent read. */
  resources?: Record<string, string[]>;
  task?: string;
  categories?: ClassifyResult;
  toolCalls?: ToolCall[];
  /** What tool-rule conditions may read besides the call: the caller's context and the agent input. */
  caller?: { context: Record<string, unknown>; input: string };
  /** Facts that could not be determined with confidence, in words. */
  missing: string[];
  notes: string[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The task line of a web agent's input ("Task: ..."), else the input without attribute lines. */
export function taskText(input: string): string {
  const line = /^[ \t]*task[ \t]*:[ \t]*(.+)$/im.exec(input);
  if (line?.[1]) return line[1].trim();
  return input
    .split("\n")
    .filter((l) => !/^\s*(user[ _-]?info(rmation)?|identity|role)\s*[:=]/i.test(l))
    .join("\n")
    .trim();
}

function resourcesFromContext(value: unknown): Record<string, string[]> | undefined {
  if (!isRecord(value)) return undefined;
  const out: Record<string, string[]> = {};
  for (const [table, columns] of Object.entries(value)) {
    if (!Array.isArray(columns)) return undefined;
    out[table] = columns.map(String);
  }
  return out;
}

export function extractFacts(options: {
  compiled: CompiledPolicy;
  subject: Subject;
  /** Leave the temporal rules to another engine (auto sends them to the shield). */
  skipTemporal?: boolean;
}): CompiledFacts {
  const { compiled, subject } = options;
  const context = subject.context ?? {};
  const facts: CompiledFacts = { missing: [], notes: [] };
  const needIdentity = Boolean(compiled.access) || compiled.attributeRules.length > 0;
  if (needIdentity) {
    facts.identity = extractIdentity({ input: subject.input, context });
    // Two different roles (or user_info lines) in the text: the one a rule would read may be the one
    // the user wrote, so who the user is stays undetermined rather than taking the first.
    if (facts.identity.confidence === "low") {
      facts.missing.push(`the user's identity (${facts.identity.reason ?? "contradictory identity lines"})`);
    }
  }

  if (compiled.access) {
    if (!facts.identity?.role) facts.missing.push("the user's role (no identity in the input or context)");
    const given = resourcesFromContext(context.resources);
    if (given) {
      facts.resources = given;
      facts.notes.push("tables and columns read were given in the context");
    } else {
      const code =
        typeof context.code === "string" ? context.code : ehrAgentOutputCode({ output: subject.output });
      if (!code || code.trim() === "") {
        facts.missing.push("the tables and columns the agent read (no generated code in its output)");
      } else {
        const access = extractEhrAgentAccess({ code, schema: compiled.schema });
        facts.resources = access.tables;
        if (access.confidence !== "high") {
          const why =
            [...access.unresolved, ...access.errors].join("; ") || "the code could not be fully analysed";
          facts.missing.push(`the tables and columns the agent read (${why})`);
        }
      }
    }
  }

  if (compiled.classifier) {
    const task = typeof context.task === "string" ? context.task : taskText(subject.input);
    facts.task = task;
    facts.categories = compiled.classifier.classify({ text: task });
    const confidence = facts.categories.confidence;
    if (confidence === "low" || confidence === "none") {
      facts.missing.push(`the task's category (${facts.categories.reason})`);
    }
  }

  if (compiled.temporal && !options.skipTemporal) {
    // Temporal rules are judged over a trajectory by the shield engine; deciding without them would
    // silently allow what they forbid.
    facts.missing.push(
      "the temporal rules' verdict (this policy has LTLf rules, which the compiled engine does not judge: use --engine shield, or auto, which sends such a policy to the shield)",
    );
  }

  // A policy that states only a default (a lockdown: no rules, `toolDefault` deny) governs tool calls
  // as much as one with rules: its default must answer every call.
  if (compiled.governsTools) {
    const source = context.toolCalls ?? context.toolCall ?? subject.output;
    const extracted = extractToolCalls({ value: source });
    let calls = extracted.calls;
    if (extracted.calls.length === 0 && subject.trajectory?.length) {
      const last = subject.trajectory[subject.trajectory.length - 1]!;
      calls = [{ name: last.action, args: last.args, format: "plain" }];
    } else if (extracted.confidence === "low" || extracted.calls.length === 0) {
      facts.missing.push(`the tool call (${extracted.reason ?? "none found in the agent output"})`);
    }
    facts.toolCalls = withSchemas({ calls, schemas: context.toolSchemas });
    facts.caller = { context, input: subject.input };
  }
  return facts;
}

/**
 * Each call with its tool's JSON Schema when the caller knows it (`context.toolSchemas`, filled by the
 * MCP proxy from `tools/list`), so conditions learn the arguments' kinds from it.
 */
function withSchemas(options: { calls: ToolCall[]; schemas: unknown }): ToolCall[] {
  const { calls, schemas } = options;
  if (!isRecord(schemas)) return calls;
  return calls.map((call) => {
    const inputSchema = Object.hasOwn(schemas, call.name) ? schemas[call.name] : undefined;
    return inputSchema === undefined ? call : { ...call, inputSchema };
  });
}

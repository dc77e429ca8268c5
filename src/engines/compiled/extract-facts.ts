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

export function extractFacts(options: { compiled: CompiledPolicy; subject: Subject }): CompiledFacts {
  const { compiled, subject } = options;
  const context = subject.context ?? {};
  const facts: CompiledFacts = { missing: [], notes: [] };
  const needIdentity = Boolean(compiled.access) || compiled.attributeRules.length > 0;
  if (needIdentity) {
    facts.identity = extractIdentity({ input: subject.input, context });
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

  if ((compiled.policy.rules?.temporalRules?.length ?? 0) > 0) {
    // Temporal rules are judged over a trajectory by the shield engine; deciding without them would
    // silently allow what they forbid.
    facts.missing.push("the temporal rules' verdict (this policy has LTLf rules: use the shield engine)");
  }

  if (compiled.toolRules.length > 0) {
    const source = context.toolCalls ?? context.toolCall ?? subject.output;
    const extracted = extractToolCalls({ value: source });
    facts.toolCalls = extracted.calls;
    if (extracted.calls.length === 0 && subject.trajectory?.length) {
      const last = subject.trajectory[subject.trajectory.length - 1]!;
      facts.toolCalls = [{ name: last.action, args: last.args, format: "plain" }];
    } else if (extracted.confidence === "low" || extracted.calls.length === 0) {
      facts.missing.push(`the tool call (${extracted.reason ?? "none found in the agent output"})`);
    }
  }
  return facts;
}

/**
 * Per-check fact extraction for the compiled engine: only the facts the policy's rules need, each from
 * the agent's own format (structured context first, then text). Reports which facts could not be
 * determined with confidence, so `compiled` can fail closed and `auto` can fall back to a model.
 *
 * Which context fields are facts (taken only from a caller trusted with them, otherwise compared with
 * what the agent output shows) and which are the caller's context is written once, in context-facts.ts.
 * The EHRAgent extractor is loaded on demand (extractors/load-extractors.ts): await `loadExtractors`
 * for the policy before extracting.
 */
import type { CheckTrust } from "../../core/caller.js";
import type { Subject } from "../../core/subject.js";
import { withFields } from "../../util/with-fields.js";
import type { CompiledPolicy } from "./compiled-policy.js";
import {
  callerContext,
  NOT_TRUSTED,
  resolveToolCalls,
  sameResources,
  trustsContextFacts,
} from "./context-facts.js";
import { extractIdentity, type IdentityFacts } from "./extractors/identity/index.js";
import { loadedEhrAgent } from "./extractors/load-extractors.js";
import type { ClassifyResult } from "./extractors/task-category/index.js";
import type { ToolCall } from "./extractors/tool-calls/index.js";

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
  const entries: [string, string[]][] = [];
  for (const [table, columns] of Object.entries(value)) {
    if (!Array.isArray(columns)) return undefined;
    entries.push([table, columns.map(String)]);
  }
  // fromEntries, not assignment: a table named "__proto__" stays a table (assigning it set the prototype).
  return Object.fromEntries(entries);
}

export function extractFacts(options: {
  compiled: CompiledPolicy;
  subject: Subject;
  /** Leave the temporal rules to another engine (auto sends them to the shield). */
  skipTemporal?: boolean;
  /** What the caller is trusted with (default: nothing; context facts are then only compared). */
  trust?: CheckTrust | undefined;
}): CompiledFacts {
  const { compiled, subject } = options;
  const trusted = trustsContextFacts({ trust: options.trust });
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
    if (trusted) resourcesTrusted({ compiled, subject, facts });
    else resourcesCompared({ compiled, subject, facts });
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
    const resolved = resolveToolCalls({ subject, trust: options.trust });
    if (resolved.problem) facts.missing.push(`the tool call (${resolved.problem})`);
    if (resolved.note) facts.notes.push(resolved.note);
    const shown = callerContext({ context, trust: options.trust });
    if (shown !== context)
      facts.notes.push(`context.toolSchemas and context.cwd are ignored: ${NOT_TRUSTED}`);
    facts.toolCalls = withSchemas({ calls: resolved.calls, schemas: shown.toolSchemas });
    facts.caller = { context: shown, input: subject.input };
  }
  return facts;
}

/** The tables and columns read, from a trusted caller: the context's `resources`, else its `code`. */
function resourcesTrusted(options: {
  compiled: CompiledPolicy;
  subject: Subject;
  facts: CompiledFacts;
}): void {
  const { compiled, subject, facts } = options;
  const context = subject.context ?? {};
  const given = resourcesFromContext(context.resources);
  if (given) {
    facts.resources = given;
    facts.notes.push("tables and columns read were given in the context");
    return;
  }
  const code =
    typeof context.code === "string"
      ? context.code
      : loadedEhrAgent().ehrAgentOutputCode({ output: subject.output });
  readResources({ compiled, code, facts });
}

/** The tables and columns `code` reads; undetermined (missing) when there is no code or it is unclear. */
function readResources(options: {
  compiled: CompiledPolicy;
  code: string | null | undefined;
  facts: CompiledFacts;
}): Record<string, string[]> | undefined {
  const { compiled, code, facts } = options;
  if (!code || code.trim() === "") {
    facts.missing.push("the tables and columns the agent read (no generated code in its output)");
    return undefined;
  }
  const access = loadedEhrAgent().extractEhrAgentAccess({ code, schema: compiled.schema });
  facts.resources = access.tables;
  if (access.confidence !== "high") {
    const why = [...access.unresolved, ...access.errors].join("; ") || "the code could not be fully analysed";
    facts.missing.push(`the tables and columns the agent read (${why})`);
    return undefined;
  }
  return access.tables;
}

/**
 * The tables and columns read, from an untrusted caller: from the code in the agent output only. The
 * context's `resources` or `code`, when given, must say the same, else the fact is undetermined.
 */
function resourcesCompared(options: {
  compiled: CompiledPolicy;
  subject: Subject;
  facts: CompiledFacts;
}): void {
  const { compiled, subject, facts } = options;
  const context = subject.context ?? {};
  const claims = (["resources", "code"] as const).filter((key) => context[key] !== undefined);
  const code = loadedEhrAgent().ehrAgentOutputCode({ output: subject.output });
  if ((!code || code.trim() === "") && claims.length > 0) {
    facts.missing.push(
      `the tables and columns the agent read (the context gives ${claims.join(" and ")}, but ${NOT_TRUSTED} and the agent output has no generated code)`,
    );
    return;
  }
  const read = readResources({ compiled, code, facts });
  if (!read || claims.length === 0) return;
  const given = resourcesFromContext(context.resources);
  if (context.resources !== undefined && !(given && sameResources({ a: given, b: read }))) {
    facts.missing.push(
      `the tables and columns the agent read (the context's resources disagree with what the code in the agent output reads; ${NOT_TRUSTED}, so they are compared, not taken)`,
    );
    return;
  }
  if (context.code !== undefined) {
    const claimed =
      typeof context.code === "string"
        ? loadedEhrAgent().extractEhrAgentAccess({ code: context.code, schema: compiled.schema })
        : undefined;
    if (claimed?.confidence !== "high" || !sameResources({ a: claimed.tables, b: read })) {
      facts.missing.push(
        `the tables and columns the agent read (the context's code disagrees with the code in the agent output; ${NOT_TRUSTED}, so it is compared, not taken)`,
      );
      return;
    }
  }
  facts.notes.push(
    `the context's ${claims.join(" and ")} agree with the agent output (${NOT_TRUSTED}: compared)`,
  );
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
    return inputSchema === undefined ? call : withFields({ base: call, fields: { inputSchema } });
  });
}

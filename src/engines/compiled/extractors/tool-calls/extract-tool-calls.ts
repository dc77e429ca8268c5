/**
 * Reads tool calls (name + arguments) out of whatever the caller hands over: OpenAI chat completions
 * and messages, OpenAI Responses items, AI SDK results and parts, Anthropic messages, MCP `tools/call`
 * requests, bare `{ name, arguments }` objects, or text with such JSON inside. Tool definitions
 * (schemas) are not calls and are skipped. Never throws: unreadable arguments lower the confidence.
 *
 * Text that is one BrowserGym action call (`goto("https://…")`, which BrowserGym runs as Python) is that
 * call. In other text, the JSON calls stand for the whole only when nothing beside them could be a call
 * too: a harness that runs what the agent wrote (BrowserGym executes it; a text protocol parses every
 * call) would run code such as `page.goto("…")` or a call written as a Python dict as well. Text that
 * holds such a thing outside the JSON read is "low": undetermined, so the check fails closed.
 */
import { nestsDeeperThan } from "../../../../util/json-brackets.js";
import { withFields } from "../../../../util/with-fields.js";
import { browserGymCall, isCode } from "../../../common/browsergym-action.js";
import { type EmbeddedJson, MAX_EMBEDDED_DEPTH, scanEmbeddedJson } from "./embedded-json.js";
import type { Confidence, ToolCall, ToolCallFormat, ToolCallsResult } from "./types.js";

const MAX_DEPTH = 16;
const MAX_NODES = 20_000;
const ARG_KEYS = ["arguments", "args", "input", "parameters"] as const;
const PLAIN_KEYS = new Set(["name", ...ARG_KEYS, "id", "type", "call_id", "callId"]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function idOf(value: unknown): string | undefined {
  if (typeof value === "string" && value !== "") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return undefined;
}

/** Arguments arrive as an object or as JSON text (OpenAI, Responses, AI SDK v2 `input`). */
function readArgs(raw: unknown): Pick<ToolCall, "args" | "rawArguments" | "error"> {
  if (raw === undefined || raw === null) return { args: {} };
  if (isRecord(raw)) return { args: raw };
  if (typeof raw === "string") {
    if (raw.trim() === "") return { args: {} };
    try {
      const parsed: unknown = JSON.parse(raw);
      if (isRecord(parsed)) return { args: parsed };
      return { args: {}, rawArguments: raw, error: "the arguments are JSON but not an object" };
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      return { args: {}, rawArguments: raw, error: `the arguments are not valid JSON (${why})` };
    }
  }
  return {
    args: {},
    rawArguments: JSON.stringify(raw) ?? String(raw),
    error: "the arguments are not an object",
  };
}

function call(format: ToolCallFormat, name: string, id: unknown, rawArgs: unknown): ToolCall {
  const cid = idOf(id);
  // withFields: with an id, a literal beginning with its spread cost microseconds on Node 20 (with-fields.ts).
  return withFields({
    base: cid !== undefined ? { id: cid } : undefined,
    fields: { name, format, ...readArgs(rawArgs) },
  });
}

/** A JSON schema (tool definition), not arguments. */
function looksLikeSchema(value: unknown): boolean {
  return isRecord(value) && (value.type === "object" || "$schema" in value) && isRecord(value.properties);
}

/** The call `node` is, or undefined. `parentKey` names where it sat (e.g. "function_call"). */
function recognise(node: Record<string, unknown>, parentKey: string | undefined): ToolCall | undefined {
  const fn = node.function;
  if (isRecord(fn) && typeof fn.name === "string" && "arguments" in fn) {
    return call("openai-chat", fn.name, node.id, fn.arguments);
  }
  if (node.type === "function_call" && typeof node.name === "string") {
    return call("openai-responses", node.name, node.call_id ?? node.id, node.arguments);
  }
  // Older AI SDK `toolCalls` entries carry no `type`; tool-result parts share the ids but are not calls.
  if (
    typeof node.toolName === "string" &&
    (node.type === "tool-call" || (node.type === undefined && "toolCallId" in node))
  ) {
    return call("ai-sdk", node.toolName, node.toolCallId, "input" in node ? node.input : node.args);
  }
  if ((node.type === "tool_use" || node.type === "server_tool_use") && typeof node.name === "string") {
    return call("anthropic", node.name, node.id, node.input);
  }
  if (node.method === "tools/call" && isRecord(node.params) && typeof node.params.name === "string") {
    return call("mcp", node.params.name, node.id, node.params.arguments);
  }
  if (typeof node.name === "string" && node.name !== "") {
    const argKey = ARG_KEYS.find((k) => k in node);
    if (argKey === undefined) return undefined;
    if (parentKey === "function_call") return call("openai-chat", node.name, undefined, node.arguments);
    // Only small objects of call-shaped keys: a record that merely has a `name` is not a call, and
    // a tool definition carries a description or a schema rather than arguments.
    if (!Object.keys(node).every((k) => PLAIN_KEYS.has(k))) return undefined;
    const raw = node[argKey];
    if (argKey === "parameters" && looksLikeSchema(raw)) return undefined;
    if (!(isRecord(raw) || typeof raw === "string")) return undefined;
    return call("plain", node.name, node.id ?? node.call_id ?? node.callId, raw);
  }
  return undefined;
}

interface Walk {
  calls: ToolCall[];
  nodes: number;
  seen: Set<object>;
  truncated: boolean;
  /** Why an action written as code could not be read as one call (the reading is then low). */
  unreadable?: string;
}

/**
 * An agent's step written as `{ thought, action: "goto('…')" }` (ReAct, BrowserGym agents): the action is
 * the call it runs when it is code; code that is not one call Warden reads is noted, not skipped.
 */
function actionCall(record: Record<string, unknown>, state: Walk): boolean {
  const action = record.action;
  if (typeof action !== "string" || !isCode({ text: action })) return false;
  const found = browserGymCall({ text: action.trim() });
  if (found) state.calls.push({ ...found, format: "plain" });
  else
    state.unreadable ??= `an action is code that is not one call Warden can read (${JSON.stringify(action.slice(0, 80))})`;
  return true;
}

function walk(value: unknown, state: Walk, depth: number, parentKey: string | undefined): void {
  if (depth > MAX_DEPTH || state.nodes >= MAX_NODES) {
    state.truncated = true;
    return;
  }
  if (typeof value !== "object" || value === null) return;
  if (state.seen.has(value)) return;
  state.seen.add(value);
  state.nodes++;
  if (Array.isArray(value)) {
    for (const item of value) walk(item, state, depth + 1, parentKey);
    return;
  }
  const record = value as Record<string, unknown>;
  const found = recognise(record, parentKey);
  if (found) {
    // Arguments may themselves hold call-shaped data; they are the call's content, not more calls.
    state.calls.push(found);
    return;
  }
  if (actionCall(record, state)) return;
  for (const [key, child] of Object.entries(record)) walk(child, state, depth + 1, key);
}

/** Drops repeats of the same call (AI SDK results list each call under `toolCalls`, `steps` and `content`). */
function dedupe(calls: ToolCall[]): ToolCall[] {
  const seen = new Set<string>();
  return calls.filter((c) => {
    if (c.id === undefined) return true;
    const key = `${c.id}\u0000${c.name}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function fromStructured(value: unknown): { calls: ToolCall[]; truncated: boolean; unreadable?: string } {
  const state: Walk = { calls: [], nodes: 0, seen: new Set(), truncated: false };
  walk(value, state, 0, undefined);
  return {
    calls: dedupe(state.calls),
    truncated: state.truncated,
    ...(state.unreadable ? { unreadable: state.unreadable } : {}),
  };
}

/** A call's name key, in JSON or Python quotes (`"name":`, `'tool':`). */
const CALL_LIKE = /["'](?:name|tool|toolName|function)["']\s*:/;
/**
 * Code that calls something, read in compatibility form: a (dotted) name right before `(` — but for the
 * plural "(s)", "(es)", "(ies)" of prose — or a name, space, then `(` and a string, `)`, `*` or a keyword
 * argument. Prose rarely writes these; "step (1)" and "(see above)" are not.
 */
const CODE_CALL =
  /(?<![\p{L}\p{N}_.])[\p{L}_][\p{L}\p{N}_]*(?:\s*\.\s*[\p{L}_][\p{L}\p{N}_]*)*(?:\((?!(?:e?s|ies)\))|\s+\(\s*(?:[rRuUbBfF]{0,2}["']|\)|\*|[\p{L}_][\p{L}\p{N}_]*\s*=(?!=)))/u;

/** The text outside the JSON values read from it. */
function outside(text: string, values: readonly EmbeddedJson[]): string {
  if (values.length === 0) return text;
  let rest = "";
  let at = 0;
  for (const v of values) {
    rest += `${text.slice(at, v.start)} `;
    at = v.end;
  }
  return rest + text.slice(at);
}

/** Why the text outside the JSON read may hold a call no rule has seen, or undefined. */
function hiddenCall(rest: string): string | undefined {
  if (CALL_LIKE.test(rest)) return "the text holds something shaped like a tool call that is not valid JSON";
  if (CODE_CALL.test(rest.normalize("NFKC"))) {
    return "the text holds code that calls something, which a harness running the text would run";
  }
  return undefined;
}

function result(calls: ToolCall[], base: Confidence, reasons: string[]): ToolCallsResult {
  let confidence: Confidence = calls.length === 0 ? "none" : base;
  const broken = calls.filter((c) => c.error !== undefined);
  if (broken.length > 0) {
    confidence = "low";
    for (const c of broken) reasons.push(`${c.name}: ${c.error}`);
  }
  return { calls, confidence, ...(reasons.length > 0 ? { reason: reasons.join("; ") } : {}) };
}

/** A reading that is undetermined whether or not it found calls (`result` says "none" for no calls). */
function low(calls: ToolCall[], reasons: string[]): ToolCallsResult {
  return { ...result(calls, "low", reasons), confidence: "low" };
}

/** Every tool call in `value`, in the order they appear, with how reliably they were read. */
export function extractToolCalls(options: { value: unknown }): ToolCallsResult {
  const { value } = options;
  const reasons: string[] = [];
  if (typeof value !== "string") {
    const { calls, truncated, unreadable } = fromStructured(value);
    if (truncated) reasons.push("the value is very large or deep; only part of it was read");
    if (unreadable) return low(calls, [...reasons, unreadable]);
    if (calls.length === 0) reasons.push("no tool call in the value");
    return result(calls, truncated ? "medium" : "high", reasons);
  }
  const text = value.trim();
  if (text === "") return { calls: [], confidence: "none", reason: "the text is empty" };
  if (nestsDeeperThan({ text, limit: MAX_EMBEDDED_DEPTH })) {
    // Parsing such text costs seconds per megabyte and reads nothing a call would hold: undetermined.
    return {
      calls: [],
      confidence: "low",
      reason: `the text nests brackets deeper than ${MAX_EMBEDDED_DEPTH} levels; it is not read`,
    };
  }
  try {
    // Text that is JSON as a whole is as structured as an object.
    const whole: unknown = JSON.parse(text);
    if (typeof whole === "object" && whole !== null) {
      const { calls, unreadable } = fromStructured(whole);
      if (unreadable) return low(calls, [unreadable]);
      if (calls.length === 0) reasons.push("no tool call in the JSON text");
      return result(calls, "high", reasons);
    }
  } catch {
    // prose, or code; look inside it
  }
  const action = browserGymCall({ text });
  if (action) return result([{ ...action, format: "plain" }], "high", reasons);
  const scan = scanEmbeddedJson({ text });
  const read = scan.values.map((v) => fromStructured(v.value));
  const calls = dedupe(read.flatMap((r) => r.calls));
  const unreadable = read.find((r) => r.unreadable)?.unreadable;
  if (unreadable) return low(calls, [unreadable]);
  if (scan.truncated) {
    // Past the scan's bounds there may be calls no rule has seen: what was read cannot stand for the whole.
    reasons.push("the text holds more bracketed candidates than can be read; only part of it was read");
    return low(calls, reasons);
  }
  const hidden = hiddenCall(outside(text, scan.values));
  if (hidden) {
    reasons.push(calls.length > 0 ? `beside the calls read from JSON inside it, ${hidden}` : hidden);
    return low(calls, reasons);
  }
  if (calls.length > 0) {
    reasons.push("calls read from JSON inside text");
    return result(calls, "medium", reasons);
  }
  return { calls: [], confidence: "none", reason: "no tool call in the text" };
}

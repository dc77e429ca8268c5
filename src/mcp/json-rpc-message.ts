/**
 * How the guard proxy reads one raw JSON-RPC message, without the SDK's zod schemas (about 35 µs a
 * message each way, the largest cost of relaying). The proxy relays everything it does not have to see
 * as it came, so this reading is also the guard's front door: a message is a request, a notification or
 * a response only when it has exactly that shape, and anything else (a batch array, a request with a
 * null or object id, a method that is not a string, both a method and a result) is `invalid` and never
 * relayed. The proxy re-serialises what it parsed, so duplicate keys reach the upstream resolved the way
 * the check saw them (the last one wins in JSON.parse).
 *
 * `jsonForm` is what a guarded request's params become before they are checked: the value as JSON writes
 * it. A message from stdio is JSON already, but an agent on an in-memory transport hands over its own
 * objects, and the wire to the upstream writes a URL, a String object or anything with a `toJSON` as a
 * string the check never saw (`{ path: new URL("file:///etc/shadow") }` has no path-valued leaf to read,
 * and reaches the upstream as "file:///etc/shadow"). Checking and forwarding the JSON form makes what is
 * checked what the upstream gets.
 *
 * `lookalike` is the other half of the front door: a method that is not exactly one the proxy guards
 * but reads as one when case, whitespace, separators or invisible characters are ignored ("Tools/Call",
 * " tools/call", "tools\u200b/call", "tools.call") is refused, because an upstream that is lenient in
 * what it dispatches would run it unchecked.
 */

export type RequestId = string | number;

export type Classified =
  | { kind: "request"; id: RequestId; method: string; params: unknown; message: Record<string, unknown> }
  | { kind: "notification"; method: string; params: unknown; message: Record<string, unknown> }
  | { kind: "response"; id: RequestId; message: Record<string, unknown> }
  | { kind: "invalid"; id: RequestId | null; reason: string };

function isId(value: unknown): value is RequestId {
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

/** What one parsed JSON value is, as JSON-RPC 2.0 (as MCP uses it: no batches). */
export function classifyMessage(value: unknown): Classified {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return {
      kind: "invalid",
      id: null,
      reason: Array.isArray(value) ? "batches are not accepted" : "not an object",
    };
  }
  const message = value as Record<string, unknown>;
  const hasId = Object.hasOwn(message, "id");
  const id = hasId && isId(message.id) ? message.id : null;
  if (message.jsonrpc !== "2.0") return { kind: "invalid", id, reason: 'jsonrpc is not "2.0"' };
  const hasMethod = Object.hasOwn(message, "method");
  const hasResult = Object.hasOwn(message, "result");
  const hasError = Object.hasOwn(message, "error");
  if (hasMethod) {
    if (typeof message.method !== "string") return { kind: "invalid", id, reason: "method is not a string" };
    if (hasResult || hasError) return { kind: "invalid", id, reason: "a method with a result or an error" };
    const params = message.params;
    if (params !== undefined && (typeof params !== "object" || params === null)) {
      return { kind: "invalid", id, reason: "params is not an object" };
    }
    if (!hasId) return { kind: "notification", method: message.method, params, message };
    if (id === null) return { kind: "invalid", id: null, reason: "id is not a string or a number" };
    return { kind: "request", id, method: message.method, params, message };
  }
  if (id === null) return { kind: "invalid", id: null, reason: "a response without a string or number id" };
  if (hasResult === hasError) return { kind: "invalid", id, reason: "a response needs a result or an error" };
  if (hasResult && (typeof message.result !== "object" || message.result === null)) {
    return { kind: "invalid", id, reason: "result is not an object" };
  }
  if (hasError) {
    const error = message.error as { code?: unknown; message?: unknown } | null;
    if (typeof error !== "object" || error === null || typeof error.code !== "number") {
      return { kind: "invalid", id, reason: "error is not a JSON-RPC error" };
    }
  }
  return { kind: "response", id, message };
}

/**
 * `value` as JSON carries it (parsed back from its text: plain objects, arrays and primitives, and a fresh
 * copy the caller owns), or why it cannot be written (a BigInt, a cycle).
 */
export function jsonForm(value: unknown): { ok: true; value: unknown } | { ok: false; reason: string } {
  try {
    const text = JSON.stringify(value);
    return { ok: true, value: text === undefined ? undefined : JSON.parse(text) };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

/** Letters and digits only, lower case: "Tools/Call", " tools/call\u200b", "tools.call" → "toolscall". */
function folded(method: string): string {
  return method
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "");
}

/**
 * The guarded method `method` imitates without being it exactly, or undefined. Exact names are not
 * lookalikes; every other spelling that folds to a guarded name is.
 */
export function lookalike(options: { method: string; guarded: readonly string[] }): string | undefined {
  const { method, guarded } = options;
  if (guarded.includes(method)) return undefined;
  const key = folded(method);
  return guarded.find((name) => folded(name) === key);
}

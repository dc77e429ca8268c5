/**
 * The guard proxy: the non-invasive way to put Warden in front of any MCP tool user. It sits between the
 * agent's MCP client and the real (upstream) MCP server and relays the whole protocol, both ways, as
 * raw JSON-RPC: initialize and its capabilities (logging, tasks, completions… whatever the upstream
 * offers), every request, notification and response of the agent, and every request and notification of
 * the server (elicitation, sampling, roots, progress, log messages, list_changed). Only what Warden must
 * see is read more closely:
 *
 * - `tools/call`: checked against the policy; only an allowed call is forwarded. A deny or an ask comes
 *   back as a tool result with `isError: true` explaining the rules (never as an exception), so the
 *   agent sees why and can tell its user. `ask` is never an allow by itself: when the agent's client
 *   declared the `elicitation` capability (and `elicitation` is not turned off), the proxy asks the human
 *   through it (elicit-approval.ts) and forwards only after an accept with `approve: true`; a decline,
 *   cancel, `approve: false`, no answer within `elicitationTimeoutMs` or no support refuses, with the
 *   reason. The same holds for guarded content requests. A check that fails or outlasts `checkTimeoutMs`
 *   forwards nothing.
 * - `resources/read` and `prompts/get` (unless `guardContent: false`): a resource or a prompt can carry
 *   as much as a tool, so `resources/read` is checked as a tool call named `resources/read` with
 *   arguments `{ uri }`, and `prompts/get` as `prompts/get` with `{ name, arguments }` (each with
 *   `toolPrefix` prepended, like tools). These have no error form of their result, so a refusal is an
 *   error (-32600 InvalidRequest) whose message is the blocked-call text and whose
 *   `data["warden/decision"]` is the Decision.
 * - `tools/list` answers: the tools' input schemas are learned (below), and a tool the policy denies
 *   outright (denied-tools.ts: a deny rule without a condition) is left out, so the agent does not plan
 *   around a tool it can never use. Hiding is a courtesy, not the guard: a call to a hidden tool is
 *   still checked and refused.
 *
 * The front door (json-rpc-message.ts): a message that is not exactly a request, a notification or a
 * response (a batch, a null id, a method that is not a string…) is never relayed; a method that imitates
 * a guarded one ("Tools/Call", " tools/call") is refused; a guarded method sent as a notification is
 * dropped; an agent request reusing the id of one still in flight is refused. What is relayed is what was
 * parsed, serialised again, so duplicate keys reach the upstream resolved as the check saw them. A
 * guarded request's params are checked in their JSON form, so an in-process agent's own objects (a URL,
 * anything with a `toJSON`) are read as the wire carries them, and params JSON cannot write are refused.
 *
 * Ids: every request relayed to the upstream (the agent's and the proxy's own) goes under an id of the
 * proxy's (`warden-proxy-N`), and every server request relayed to the agent under another, so neither
 * side can collide with the other or with the proxy; answers and `notifications/cancelled` are mapped
 * back. A forwarded tools/call keeps its time limit (`requestTimeoutMs`: answered RequestTimeout and
 * cancelled upstream), the agent's cancellation aborts its check or cancels it upstream, and calls still
 * waiting when either side closes are answered ConnectionClosed.
 *
 * Writing rules for content requests: to the compiled engine these are ordinary tool names, so a policy
 * that never mentions them gets its `toolDefault` (deny when absent; the bundled mcp-tools policy says
 * "ask", so every read and prompt is refused until a rule allows it), and a `*` glob covers them too. E.g.
 * allow reads except system files:
 *   { "id": "resource.no-etc", "tool": "resources/read", "effect": "deny", "message": "...",
 *     "when": { "field": "args.uri", "part": "path", "op": "pathWithin", "value": "/etc" } },
 *   { "id": "resource.allow-read", "tool": "resources/read", "effect": "allow", "message": "..." }
 * (`args.uri` is read as a URL, so `file:///tmp/../etc/shadow` is the path /etc/shadow.)
 *
 * Argument kinds: each check carries the called tool's `inputSchema`, as the upstream listed it, in
 * `subject.context.toolSchemas`, so `args:path`, `args:url`… find path- and URL-valued arguments from the
 * schema too. The schemas are learned from every `tools/list` answer the agent receives, fetched once on
 * the first call when the agent never listed, and forgotten on `notifications/tools/list_changed`.
 *
 * Real paths (`realPaths: true`, for an upstream on this machine's file system): each path argument is
 * replaced by its real path (symbolic links resolved) before the check, and that is what is forwarded.
 *
 * Speed: no SDK Server or Client and no schema parsing on the way (raw-stdio.ts gives the stdio
 * transports JSON.parse alone); a relayed message costs one parse and one serialisation per hop. A check
 * the engine can answer without waiting (a compiled policy, a subject small enough for the event loop)
 * is taken by its inline check (engines/inline-check.ts): no check timer, AbortController or promise
 * chain per call, which a time limit could not use anyway (it fires only once the event loop is free);
 * any other check runs against `checkTimeoutMs` as before.
 */

import { randomUUID } from "node:crypto";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { DEFAULT_REQUEST_TIMEOUT_MSEC } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, type JSONRPCMessage, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "pino";
import { z } from "zod";
import type { Decision, Verdict } from "../core/decision.js";
import type { Policy } from "../core/policy.js";
import type { Step, Subject } from "../core/subject.js";
import { toolCallSubject } from "../core/tool-call.js";
import { parseWith } from "../core/validate.js";
import type { Engine } from "../engines/engine.js";
import { inlineCheckOf } from "../engines/inline-check.js";
import { type Cancellation, checkBounded } from "../runtime/check-within.js";
import {
  CheckTimeoutMsSchema,
  DEFAULT_CHECK_TIMEOUT_MS,
  MAX_CHECK_TIMEOUT_MS,
} from "../runtime/guard-service.js";
import { DEFAULT_OFFLOAD_THRESHOLD_BYTES } from "../runtime/offload/check-pool.js";
import { freezeDeep } from "../util/freeze-deep.js";
import { withFields } from "../util/with-fields.js";
import { batchedLog } from "./batched-log.js";
import { blockedCallResult, DECISION_META_KEY } from "./blocked-call-result.js";
import { deniedOutright } from "./denied-tools.js";
import {
  type ApprovalAnswer,
  approvalElicitation,
  DEFAULT_ELICITATION_TIMEOUT_MS,
  readApprovalAnswer,
  supportsFormElicitation,
} from "./elicit-approval.js";
import { type Classified, classifyMessage, jsonForm, lookalike, type RequestId } from "./json-rpc-message.js";
import { toMcpError } from "./mcp-errors.js";
import { deliversParsedJson, rawStdio } from "./raw-stdio.js";
import { realPathArgs } from "./real-path-args.js";
import { sampleArgs, startWarmUp, type WarmUp } from "./warm-up.js";

/** An upstream server to start as a child process and talk to over stdio. */
export interface StdioUpstream {
  command: string;
  args?: string[];
  /** Environment of the child (default: this process's, so tokens the server needs reach it). */
  env?: Record<string, string>;
  cwd?: string;
}

export interface GuardedMcpProxyOptions {
  /** The real server: an MCP client transport not yet started, or a command to start on stdio. */
  upstream: Transport | StdioUpstream;
  policy: Policy;
  engine: Engine;
  /** The agent's task, checked as the agent input (default: none). */
  task?: string;
  /** Facts to add to every check's context (identity, user attributes...). */
  context?: Record<string, unknown>;
  /** Prepended to tool names before checking, e.g. "filesystem." for a server whose tool is "delete_file". */
  toolPrefix?: string;
  /** How many earlier calls of the session the trajectory keeps (default 50). */
  historyLimit?: number;
  /**
   * Check `resources/read` and `prompts/get` against the policy as the tool calls `resources/read` and
   * `prompts/get` (default true); when false they pass through unchecked, like the lists.
   */
  guardContent?: boolean;
  /**
   * Leave the tools the policy denies outright (a deny rule with no condition) out of `tools/list`
   * answers (default true). Their calls are refused either way.
   */
  hideDeniedTools?: boolean;
  /**
   * Check and forward the real path of each path argument (symbolic links resolved on this machine,
   * relative paths against the policy's `rules.paths.base`; see real-path-args.ts). Only for an upstream
   * that shares this machine's file system, such as a filesystem server the proxy starts (default false).
   */
  realPaths?: boolean;
  /** Time limit of each forwarded tools/call, resources/read and prompts/get (default 60000 ms). */
  requestTimeoutMs?: number;
  /**
   * Time limit of each check (default 300 000 ms; 0 for none): past it the call is refused with a
   * fail-closed CHECK_TIMEOUT decision, whatever the engine is still doing.
   */
  checkTimeoutMs?: number;
  /**
   * Ask the human through MCP elicitation when a call is answered `ask` and the agent's client supports
   * it (default true); when false, or unsupported, an ask is refused as before.
   */
  elicitation?: boolean;
  /** How long the proxy waits for the human's answer (default 120 000 ms); then the call is refused. */
  elicitationTimeoutMs?: number;
  /**
   * How many checks the proxy runs on made-up calls of the upstream's tools once it knows them, so that
   * the agent's first calls find the check's code optimised (warm-up.ts; default 0, none: it spends up to
   * half a second of CPU in the host's process; `warden mcp proxy` runs 2000). They run between
   * messages, inline only (never a model), for at most 500 ms, and change nothing.
   */
  warmUpChecks?: number;
  /** One line per checked call (stderr in the CLI); none when absent. */
  logger?: Logger;
  /**
   * Called after every check, with whether the call was forwarded; `tool` is the upstream tool's name,
   * or "resources/read" / "prompts/get" for a guarded content request. An ask the human approved or
   * refused through elicitation carries `decision.approval` (status "approved" or "denied").
   */
  onDecision?: (event: { tool: string; checkedAs: string; decision: Decision; forwarded: boolean }) => void;
}

export interface GuardedMcpProxyStats {
  checked: number;
  forwarded: number;
  blocked: number;
  byVerdict: Record<Verdict, number>;
}

export interface GuardedMcpProxy {
  /** Serves the agent on this transport (stdio or Streamable HTTP in the CLI); once per proxy. */
  connect(options: { transport: Transport }): Promise<void>;
  stats(): GuardedMcpProxyStats;
  /** Settles when either side has closed (the proxy then closes the other). */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/** The most time the warm-up's checks may take in all. */
const WARM_UP_MAX_MS = 500;
/** How many listed tools the warm-up makes calls of. */
const WARM_UP_MAX_TOOLS = 32;

const OptionsSchema = z.object({
  task: z.string().optional(),
  context: z.record(z.string(), z.unknown()).optional(),
  toolPrefix: z.string().optional(),
  historyLimit: z.number().int().min(0).max(10_000).optional(),
  guardContent: z.boolean().optional(),
  hideDeniedTools: z.boolean().optional(),
  realPaths: z.boolean().optional(),
  warmUpChecks: z.number().int().min(0).max(100_000).default(0),
  requestTimeoutMs: z.number().int().positive().optional(),
  checkTimeoutMs: CheckTimeoutMsSchema.default(DEFAULT_CHECK_TIMEOUT_MS),
  elicitation: z.boolean().default(true),
  elicitationTimeoutMs: z
    .number()
    .int()
    .positive()
    .max(MAX_CHECK_TIMEOUT_MS)
    .default(DEFAULT_ELICITATION_TIMEOUT_MS),
});

/** The methods the proxy checks before forwarding; their lookalikes are refused. */
const GUARDED_METHODS = ["tools/call", "resources/read", "prompts/get"] as const;

/** How much of a forwarded call's result the trajectory keeps as the step's observation. */
const MAX_OBSERVATION_CHARS = 2000;
/**
 * How many characters of observations the whole trajectory keeps, newest first (older steps keep their
 * action and arguments only). Half the check pool's offload threshold: a long session's subject then
 * stays small enough for the compiled check to run inline, instead of every call paying a copy of the
 * whole trajectory to a worker thread (about 0.6 ms of CPU per call at 50 steps of 1 KB results).
 */
const OBSERVATION_BUDGET_CHARS = DEFAULT_OFFLOAD_THRESHOLD_BYTES / 2;
/** How long a per-call log line may wait to be written with the next ones. */
const LOG_BATCH_MS = 50;
/** At most this many pages of `tools/list` are read when the proxy fetches the schemas itself. */
const MAX_TOOL_LIST_PAGES = 100;
/** Objects frozen at most per trajectory step or tool schema (freezeDeep); a larger one is partly frozen. */
const MAX_FROZEN_NODES = 4096;

interface ListedTool {
  name: string;
  inputSchema?: unknown;
}

/**
 * The upstream tools' input schemas, by upstream tool name. `complete` once a whole listing was seen
 * (or fetching one was tried) since the last list_changed, so a name missing then is not fetched again.
 */
interface ToolSchemaCache {
  schemas: Map<string, unknown>;
  complete: boolean;
  /** Bumped by list_changed, so a listing that started before it is not taken as current. */
  generation: number;
  fetching?: Promise<void>;
}

function toolsOf(result: unknown): ListedTool[] {
  const tools = (result as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(tools)) return [];
  return tools.filter(
    (t): t is ListedTool => typeof t === "object" && t !== null && typeof (t as ListedTool).name === "string",
  );
}

/** Records the schemas of one page of a `tools/list` answer; a single first page is a whole listing. */
function learnTools(cache: ToolSchemaCache, options: { result: unknown; firstPage: boolean }): void {
  const whole = options.firstPage && !(options.result as { nextCursor?: unknown } | null)?.nextCursor;
  if (whole) {
    cache.schemas = new Map();
    cache.complete = true;
  }
  // A frozen copy: the schema goes into every check of the tool, which then measures it once
  // (subject-size.ts), while the listing itself goes on to the agent as it came.
  for (const tool of toolsOf(options.result)) cache.schemas.set(tool.name, frozenCopy(tool.inputSchema));
}

/**
 * A copy of a value, frozen all the way down, or the value itself when it cannot be copied. A copy, not
 * the value: an agent on an in-memory transport hands the proxy its own objects, which are its to change.
 *
 * The copy is the value as JSON carries it, which is what the upstream receives on any wire transport
 * (and exactly the value for arguments that came as JSON: an own `__proto__` key stays an own property).
 * JSON's parse and stringify are native, so the copy is cheap from the first call, while structuredClone
 * cost ~10 µs of every forwarded call here before the code warmed up. Only what JSON cannot write (a
 * BigInt, a cycle) goes to structuredClone.
 */
function frozenCopy<T>(value: T): T {
  const form = jsonForm(value);
  // undefined, a function or a symbol: nothing JSON can write, and nothing to freeze.
  if (form.ok && form.value === undefined) return value;
  let copy: T;
  if (form.ok) copy = form.value as T;
  else {
    try {
      copy = structuredClone(value);
    } catch {
      return value;
    }
  }
  return freezeDeep({ value: copy, maxNodes: MAX_FROZEN_NODES });
}

interface ToolCallParams {
  name: string;
  arguments?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

interface ErrorBody {
  code: number;
  message: string;
  data?: unknown;
}

/** The params of a tool call as the SDK's schema requires them: a name, and arguments as an object. */
function isToolCallParams(params: unknown): params is ToolCallParams {
  if (typeof params !== "object" || params === null) return false;
  const { name, arguments: args } = params as { name?: unknown; arguments?: unknown };
  return (
    typeof name === "string" &&
    (args === undefined || (typeof args === "object" && args !== null && !Array.isArray(args)))
  );
}

/** A JSON-RPC error as the SDK's server writes an McpError. */
function errorBody(error: McpError): ErrorBody {
  return {
    code: error.code,
    message: error.message,
    ...(error.data !== undefined ? { data: error.data } : {}),
  };
}

function isTransport(value: GuardedMcpProxyOptions["upstream"]): value is Transport {
  return typeof (value as Transport).start === "function" && typeof (value as Transport).send === "function";
}

function inheritedEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
  );
}

/**
 * Drops the observations of the oldest steps past OBSERVATION_BUDGET_CHARS, counting from the newest. The
 * trajectory's steps are frozen (`remember`), so a step is replaced, never changed.
 */
function trimObservations(history: Step[]): void {
  let kept = 0;
  for (let i = history.length - 1; i >= 0; i--) {
    const step = history[i] as Step;
    if (step.observation === undefined) continue;
    kept += step.observation.length;
    if (kept > OBSERVATION_BUDGET_CHARS) {
      const { observation: _dropped, ...rest } = step;
      history[i] = Object.freeze(rest);
    }
  }
}

function truncated(text: string): string {
  return text.length > MAX_OBSERVATION_CHARS ? `${text.slice(0, MAX_OBSERVATION_CHARS)}…` : text;
}

/**
 * The text of a tools/call result, read defensively: the relay passes the upstream's answer on as it
 * came (the agent's own client validates it), so any field may be missing or of another shape here.
 */
function observationOf(result: unknown): string {
  const content = (result as { content?: unknown } | null)?.content;
  if (!Array.isArray(content)) return "";
  const parts = content.map((c: { type?: unknown; text?: unknown } | null) =>
    c?.type === "text" && typeof c.text === "string" ? c.text : `[${String(c?.type)}]`,
  );
  return truncated(parts.join("\n"));
}

/**
 * The text of a resources/read or prompts/get result, read defensively: the result passed through the
 * loose schema, so any field may be missing or of another shape.
 */
function contentText(result: unknown): string {
  const parts: string[] = [];
  const describe = (item: unknown) => {
    if (!item || typeof item !== "object") return;
    const c = item as {
      type?: unknown;
      text?: unknown;
      blob?: unknown;
      mimeType?: unknown;
      resource?: unknown;
    };
    if (typeof c.text === "string") parts.push(c.text);
    else if (c.resource) describe(c.resource);
    else if (typeof c.blob === "string")
      parts.push(`[blob${typeof c.mimeType === "string" ? ` ${c.mimeType}` : ""}]`);
    else parts.push(`[${typeof c.type === "string" ? c.type : "content"}]`);
  };
  const { contents, messages } = (result ?? {}) as { contents?: unknown; messages?: unknown };
  if (Array.isArray(contents)) for (const item of contents) describe(item);
  if (Array.isArray(messages))
    for (const m of messages) describe((m as { content?: unknown } | null)?.content);
  return truncated(parts.join("\n"));
}

/**
 * The answer to a refused resources/read or prompts/get. These have no `isError` result form, so the
 * refusal is an error; InvalidRequest because the request itself, not its arguments' form, is refused.
 */
function refusal(options: { label: string; decision: Decision; reason?: string }): McpError {
  const text = blockedCallResult(
    options.reason
      ? { tool: options.label, decision: options.decision, reason: options.reason }
      : { tool: options.label, decision: options.decision },
  )
    .content.map((c) => (c.type === "text" ? c.text : ""))
    .join("\n");
  return toMcpError({
    error: new McpError(ErrorCode.InvalidRequest, text, { [DECISION_META_KEY]: options.decision }),
  });
}

/** Where a request relayed to the upstream came from, and what its answer is for. */
interface Relayed {
  /** The agent's id (absent for the proxy's own requests). */
  agentId?: RequestId;
  kind: "tools/call" | "content" | "tools/list" | "other" | "own";
  /** The id it was sent upstream under, once sent. */
  upstreamId?: string;
  /** Set when the agent cancelled it or the proxy answered it: nothing more goes to the agent. */
  done?: boolean;
  /** Stops its check (set while the check runs). */
  cancelCheck?: (reason: unknown) => void;
  cancelReason?: unknown;
  /** When its time limit runs out (performance.now()), for a request sent with one. */
  deadline?: number;
  /** Its step in the trajectory, once forwarded: the answer replaces it with one with the observation. */
  step?: Step;
  /** A tools/list page: whether it was the first (no cursor). */
  firstPage?: boolean;
  /** The proxy's own request: how its answer is delivered. */
  settle?: (answer: { result?: unknown; error?: ErrorBody }) => void;
  /** The agent's progress token, for relating the upstream's progress to this request (HTTP face). */
  progressToken?: unknown;
}

/** A checked call: what it was checked as, the decision, whether it is forwarded and why not. */
interface Decided {
  tool: string;
  checkedAs: string;
  decision: Decision;
  forwarded: boolean;
  /** Why an ask was refused (no one could be asked, or the human said no). */
  reason?: string;
  /** How long the check took (the human's answer included). */
  ms: number;
}

const NOOP = () => undefined;

export async function createGuardedMcpProxy(options: GuardedMcpProxyOptions): Promise<GuardedMcpProxy> {
  const o = parseWith({ schema: OptionsSchema, value: options, what: "guard proxy options" });
  const { policy, engine, logger } = options;
  const callLog = logger ? batchedLog({ logger, delayMs: LOG_BATCH_MS }) : undefined;
  const historyLimit = o.historyLimit ?? 50;
  const requestLimit = o.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MSEC;
  const guardContent = o.guardContent ?? true;
  const hideDenied = o.hideDeniedTools ?? true;
  const prefix = o.toolPrefix ?? "";
  const ownsUpstream = !isTransport(options.upstream);
  const upstream: Transport = isTransport(options.upstream)
    ? options.upstream
    : rawStdio(
        new StdioClientTransport({
          command: options.upstream.command,
          args: options.upstream.args ?? [],
          env: options.upstream.env ?? inheritedEnv(),
          ...(options.upstream.cwd ? { cwd: options.upstream.cwd } : {}),
          stderr: "inherit",
        }),
      ).transport;

  let ids = 0;
  const nextId = () => `warden-proxy-${++ids}`;
  /** Requests sent upstream (the agent's and the proxy's own), by the id they went under. */
  const toUpstream = new Map<string, Relayed>();
  /** The agent's requests still in flight, by the agent's id. */
  const fromAgent = new Map<RequestId, Relayed>();
  /** The upstream's requests relayed to the agent: agent-side id → upstream id, and back. */
  const serverRequestByAgentId = new Map<string, RequestId>();
  const agentIdByServerRequest = new Map<RequestId, string>();
  let agent: Transport | undefined;
  /** Whether the agent's messages come fresh from JSON.parse (a stdio agent: raw-stdio.ts). */
  let agentSendsJson = false;
  /** Whether the agent finished initializing (the proxy's own requests wait for that). */
  let initialized = false;
  /** Whether the agent's client declared form elicitation in its `initialize` request. */
  let agentElicits = false;
  /** The proxy's own requests to the agent (elicitation), by the id they went under. */
  const toAgent = new Map<string, (answer: { result?: unknown; error?: { message?: unknown } }) => void>();

  const history: Step[] = [];
  const stats: GuardedMcpProxyStats = {
    checked: 0,
    forwarded: 0,
    blocked: 0,
    byVerdict: { allow: 0, deny: 0, ask: 0 },
  };
  const toolSchemas: ToolSchemaCache = { schemas: new Map(), complete: false, generation: 0 };

  const warn = (fields: Record<string, unknown>, message: string) => logger?.warn(fields, message);

  const sendUpstream = (message: Record<string, unknown>) =>
    upstream.send(message as JSONRPCMessage).catch((error: unknown) => {
      warn({ message: error instanceof Error ? error.message : String(error) }, "sending upstream failed");
    });

  const sendAgent = (message: Record<string, unknown>, sendOptions?: TransportSendOptions) => {
    agent?.send(message as JSONRPCMessage, sendOptions).catch(() => undefined);
  };

  /** Sends the agent the one answer to its request (none after a cancellation) and forgets it. */
  const answer = (entry: Relayed, body: { result: unknown } | { error: ErrorBody }) => {
    if (entry.done) return;
    forget(entry);
    if (entry.agentId === undefined) return;
    sendAgent({ jsonrpc: "2.0", id: entry.agentId, ...body });
  };

  const forget = (entry: Relayed) => {
    entry.done = true;
    if (entry.agentId !== undefined && fromAgent.get(entry.agentId) === entry)
      fromAgent.delete(entry.agentId);
    if (entry.upstreamId) toUpstream.delete(entry.upstreamId);
  };

  /**
   * The time limits of the requests sent upstream: one timer for them all, due at the earliest deadline
   * still waiting, rather than one per request (setting and clearing a timer on every call rebuilt the
   * event loop's timer list each time). An answered request is just no longer waiting; the timer, when it
   * comes, answers those past their deadline and is set again for the next. It does not keep the process
   * up by itself: the transports do while the proxy is connected.
   */
  let deadlineTimer: NodeJS.Timeout | undefined;
  let deadlineDue = Number.POSITIVE_INFINITY;
  const awaitDeadline = (deadline: number) => {
    if (deadlineTimer && deadlineDue <= deadline) return;
    if (deadlineTimer) clearTimeout(deadlineTimer);
    deadlineDue = deadline;
    deadlineTimer = setTimeout(expireDue, Math.max(1, Math.ceil(deadline - performance.now())));
    deadlineTimer.unref();
  };
  const expireDue = () => {
    deadlineTimer = undefined;
    deadlineDue = Number.POSITIVE_INFINITY;
    const now = performance.now();
    let next = Number.POSITIVE_INFINITY;
    for (const entry of [...toUpstream.values()]) {
      if (entry.deadline === undefined || entry.done) continue;
      if (entry.deadline <= now) expire(entry);
      else next = Math.min(next, entry.deadline);
    }
    if (next !== Number.POSITIVE_INFINITY) awaitDeadline(next);
  };
  const expire = (entry: Relayed) => {
    cancelUpstream(entry, "timed out");
    answer(entry, {
      error: errorBody(
        new McpError(ErrorCode.RequestTimeout, "Request timed out", { timeout: requestLimit }),
      ),
    });
    entry.settle?.({ error: { code: ErrorCode.RequestTimeout, message: "Request timed out" } });
  };

  const refuse = (id: RequestId, code: number, message: string) =>
    sendAgent({ jsonrpc: "2.0", id, error: { code, message } });

  /** Sends a request upstream under an id of the proxy's, remembering what its answer is for. */
  const relay = (entry: Relayed, message: Record<string, unknown>, limited: boolean) => {
    const upstreamId = nextId();
    entry.upstreamId = upstreamId;
    toUpstream.set(upstreamId, entry);
    // withFields, not a literal beginning with the spread: on Node 20 adding a key that way costs microseconds.
    const sent = sendUpstream(withFields({ base: message, fields: { id: upstreamId } }));
    // The limit is set once the request is on its way (the same tick: it cannot run out before), unless
    // an upstream that answers at once has answered already.
    if (limited && !entry.done) {
      entry.deadline = performance.now() + requestLimit;
      awaitDeadline(entry.deadline);
    }
    return sent;
  };

  const cancelUpstream = (entry: Relayed, reason: unknown) => {
    if (!entry.upstreamId || !toUpstream.has(entry.upstreamId)) return;
    void sendUpstream({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: entry.upstreamId, reason: typeof reason === "string" ? reason : "cancelled" },
    });
  };

  /** A request of the proxy's own (the tool list, for schemas): its result, or a thrown McpError. */
  const ownRequest = (method: string, params?: Record<string, unknown>): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const entry: Relayed = {
        kind: "own",
        settle: (outcome) => {
          forget(entry);
          if (outcome.error)
            reject(new McpError(outcome.error.code, outcome.error.message, outcome.error.data));
          else resolve(outcome.result);
        },
      };
      void relay(entry, { jsonrpc: "2.0", method, ...(params ? { params } : {}) }, true);
    });

  /** Reads the whole tool list once for this generation; a failure leaves the schemas unknown. */
  const fetchToolSchemas = async (): Promise<void> => {
    const generation = toolSchemas.generation;
    const schemas = new Map<string, unknown>();
    try {
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = (await ownRequest("tools/list", cursor ? { cursor } : undefined)) as {
          nextCursor?: unknown;
        } | null;
        for (const tool of toolsOf(page)) schemas.set(tool.name, tool.inputSchema);
        cursor = typeof page?.nextCursor === "string" ? page.nextCursor : undefined;
        pages++;
      } while (cursor && pages < MAX_TOOL_LIST_PAGES);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      warn({ message }, "tools/list failed: checks go on without the tools' input schemas");
    }
    if (generation !== toolSchemas.generation) return;
    for (const [tool, schema] of schemas) toolSchemas.schemas.set(tool, schema);
    toolSchemas.complete = true;
    warmUpOnce();
  };

  /** Whether the cache answers for the tool's schema (known, or known to be missing from a whole listing). */
  const schemaKnown = (tool: string) => toolSchemas.schemas.has(tool) || toolSchemas.complete;

  /** The upstream tool's input schema: from the cache, or from one lazy listing when it is not known. */
  const inputSchemaOf = async (tool: string): Promise<unknown> => {
    if (schemaKnown(tool)) return toolSchemas.schemas.get(tool);
    // Before the agent has initialized the upstream, the proxy may not ask it anything.
    if (!initialized) return undefined;
    toolSchemas.fetching ??= fetchToolSchemas().finally(() => {
      toolSchemas.fetching = undefined;
    });
    await toolSchemas.fetching;
    return toolSchemas.schemas.get(tool);
  };

  /**
   * A forwarded call's arguments as its trajectory step keeps them: frozen, and held by nothing that can
   * change them. They are the proxy's own objects already (the front door's JSON form, or the real-path
   * rewrite of it), so when the proxy started the upstream itself (a stdio transport, which serialises
   * what it sends and keeps nothing) they are frozen where they are; an upstream transport the caller gave
   * may keep what it receives and change it, so its calls are copied first.
   */
  const trajectoryArgs = <T>(args: T): T =>
    ownsUpstream ? freezeDeep({ value: args, maxNodes: MAX_FROZEN_NODES }) : frozenCopy(args);

  /** The proxy's own checks' trust: it built the call from the protocol message it forwards. */
  const trust = { contextFacts: true };

  /**
   * The check of one call, by the engine's inline check when it needs no waiting, else against the limit.
   * Not `async`: it hands on checkBounded's promise, two microtask turns fewer on every call.
   */
  const check = (call: { subject: Subject; entry: Relayed; started: number }): Promise<Decision> => {
    const { entry } = call;
    // The agent's cancellation reaches the check through this, without an AbortController per call.
    const cancellation: Cancellation = (cancel) => {
      if (entry.done) {
        cancel(entry.cancelReason);
        return NOOP;
      }
      entry.cancelCheck = cancel;
      return () => {
        entry.cancelCheck = undefined;
      };
    };
    return checkBounded({
      policy,
      subject: call.subject,
      getEngine: async () => engine,
      ready: engine,
      engineName: engine.name,
      limitMs: o.checkTimeoutMs,
      started: call.started,
      cancellation,
      trust,
    });
  };

  /** A call's arguments with their real paths when `realPaths` is on (real-path-args.ts), as checked. */
  const withRealPaths = (args: Record<string, unknown>, inputSchema: unknown) => {
    if (!o.realPaths) return { args, rewrites: [] };
    const base = policy.rules?.paths?.base;
    return realPathArgs({ args, inputSchema, ...(base ? { base } : {}) });
  };

  /** What a call is checked as: the tool under the prefix, the session's trajectory, the task and context. */
  const subjectOf = (call: { checkedAs: string; args: Record<string, unknown>; inputSchema?: unknown }) =>
    toolCallSubject({
      tool: call.checkedAs,
      args: call.args,
      ...(o.task !== undefined ? { task: o.task } : {}),
      ...(o.context ? { context: o.context } : {}),
      ...(call.inputSchema !== undefined ? { inputSchema: call.inputSchema } : {}),
      history,
    });

  let warming: WarmUp | undefined;
  /**
   * Starts the warm-up (warm-up.ts) the first time the tools are known: the same subject and inline check
   * as the agent's calls (real paths included), on calls made up from the listed schemas; nothing else.
   */
  const warmUpOnce = () => {
    const inline = inlineCheckOf({ engine });
    if (warming || closing || o.warmUpChecks === 0 || !inline) return;
    const base = policy.rules?.paths?.base;
    const pathValue = base?.startsWith("/") ? base : process.cwd();
    const calls = [...toolSchemas.schemas].slice(0, WARM_UP_MAX_TOOLS).map(([tool, inputSchema]) => ({
      tool,
      inputSchema,
      args: sampleArgs({ inputSchema, pathValue }),
    }));
    warming = startWarmUp({
      calls,
      maxChecks: o.warmUpChecks,
      maxMs: WARM_UP_MAX_MS,
      check: ({ tool, args, inputSchema }) => {
        const checked = withRealPaths(args, inputSchema).args;
        const subject = subjectOf({ checkedAs: `${prefix}${tool}`, args: checked, inputSchema });
        return inline({ policy, subject, trust }) !== undefined;
      },
    });
    void warming.done.then((checks) => logger?.debug({ checks }, "warmed the check path"));
  };

  /**
   * Checks one call against the policy (and asks the human about an ask, when the agent's client can be
   * asked): whether it is forwarded, and why not. A check that fails throws the mapped MCP error, and
   * nothing is forwarded. Counting, logging and reporting it is `record`'s.
   */
  const decide = async (call: {
    tool: string;
    args: Record<string, unknown>;
    entry: Relayed;
    /** The tool's input schema, for `tools/call`. */
    inputSchema?: unknown;
    /** How the call is named to the human (default: the tool). */
    label?: string;
  }): Promise<Decided> => {
    const { entry } = call;
    const checkedAs = `${prefix}${call.tool}`;
    const started = performance.now();
    let decision: Decision;
    try {
      const subject = subjectOf({ checkedAs, args: call.args, inputSchema: call.inputSchema });
      // The proxy built the call from the protocol message it forwards (toolCallSubject keeps configured
      // context from replacing it), so its context facts are trusted: they are the real call.
      decision = await check({ subject, entry, started });
    } catch (error) {
      const mcpError = toMcpError({ error });
      logger?.error({ tool: checkedAs, code: mcpError.code, message: mcpError.message }, "check failed");
      throw mcpError;
    }
    // An ask (never a failure) goes to the human when the agent's client can show a form.
    let human: (ApprovalAnswer & { id: string }) | undefined;
    if (decision.verdict === "ask" && !decision.failure && o.elicitation && agentElicits && !entry.done) {
      human = await askHuman({ label: call.label ?? call.tool, args: call.args, decision, entry });
      decision = {
        ...decision,
        approval: { id: human.id, status: human.approved ? "approved" : "denied" },
      };
    }
    // Only an allow, or an ask the human approved, forwards: a deny never does.
    const forwarded =
      (decision.verdict === "allow" && decision.allowed === true) ||
      (decision.verdict === "ask" && human?.approved === true);
    const reason =
      decision.verdict === "ask" && !forwarded
        ? human && !human.approved
          ? human.reason
          : noElicitationReason()
        : undefined;
    return {
      tool: call.tool,
      checkedAs,
      decision,
      forwarded,
      ms: performance.now() - started,
      ...(reason ? { reason } : {}),
    };
  };

  /** Counts, logs (in batches, after the answer) and reports a decided call. */
  const record = (decided: Decided) => {
    const { checkedAs, decision, forwarded } = decided;
    stats.checked++;
    stats.byVerdict[decision.verdict]++;
    if (forwarded) stats.forwarded++;
    else stats.blocked++;
    if (callLog) {
      const line = {
        tool: checkedAs,
        verdict: decision.verdict,
        rules: decision.violations.map((v) => v.ruleId),
        engine: decision.engine,
        ms: decided.ms,
      };
      // Written after the answer, in batches (batched-log.ts): off the path the agent waits on, in order.
      callLog.info({ fields: line, message: forwarded ? "forwarded" : "blocked" });
    }
    options.onDecision?.({ tool: decided.tool, checkedAs, decision, forwarded });
  };

  /** Why an ask was refused without asking anyone. */
  const noElicitationReason = () =>
    o.elicitation
      ? "the agent's client does not support elicitation, so no one could be asked to confirm"
      : "confirmation through elicitation is turned off for this proxy";

  /**
   * Sends the agent's client an `elicitation/create` for a held call and waits for the human's answer,
   * at most `elicitationTimeoutMs`; the agent's cancellation of the call (or the proxy closing) ends the
   * wait. Whatever is not an explicit approval refuses (elicit-approval.ts).
   */
  const askHuman = (ask: {
    label: string;
    args: Record<string, unknown>;
    decision: Decision;
    entry: Relayed;
  }): Promise<ApprovalAnswer & { id: string }> =>
    new Promise((resolve) => {
      const approvalId = randomUUID();
      const requestId = nextId();
      const { entry } = ask;
      const cancelRequest = (reason: string) =>
        sendAgent({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId, reason } });
      const settle = (outcome: Parameters<typeof readApprovalAnswer>[0]["outcome"]) => {
        if (!toAgent.delete(requestId)) return;
        clearTimeout(timer);
        entry.cancelCheck = undefined;
        resolve({ ...readApprovalAnswer({ outcome, timeoutMs: o.elicitationTimeoutMs }), id: approvalId });
      };
      const timer = setTimeout(() => {
        cancelRequest("timed out");
        settle("timeout");
      }, o.elicitationTimeoutMs);
      toAgent.set(requestId, settle);
      entry.cancelCheck = () => {
        cancelRequest("cancelled");
        settle("cancelled");
      };
      sendAgent(
        {
          jsonrpc: "2.0",
          id: requestId,
          method: "elicitation/create",
          params: approvalElicitation({ label: ask.label, args: ask.args, decision: ask.decision }),
        },
        entry.agentId !== undefined ? { relatedRequestId: entry.agentId } : undefined,
      );
    });

  /**
   * Adds a forwarded call to the session's trajectory; once answered, it is replaced by the step with its
   * observation. Steps are frozen: a check shares them instead of copying them (toolCallSubject), which
   * is safe only because none changes once a check may hold it.
   */
  const remember = (step: Step): Step => {
    Object.freeze(step);
    history.push(step);
    if (history.length > historyLimit) history.splice(0, history.length - historyLimit);
    return step;
  };

  /** One agent `tools/call`: checked, then answered with the refusal or forwarded as it was checked. */
  const relayCall = async (entry: Relayed, params: ToolCallParams): Promise<void> => {
    const tool = params.name;
    // A known schema is read at once: no promise on the path of every call.
    const inputSchema = schemaKnown(tool) ? toolSchemas.schemas.get(tool) : await inputSchemaOf(tool);
    const real = withRealPaths(params.arguments ?? {}, inputSchema);
    const { args } = real;
    const rewritten = real.rewrites.length > 0;
    if (rewritten) logger?.info({ tool, rewrites: real.rewrites }, "checking and forwarding real paths");
    if (entry.done) return;
    const decided = await decide({ tool, args, entry, inputSchema });
    // Counted and reported before it goes anywhere: an onDecision that throws still forwards nothing.
    record(decided);
    if (!entry.done) {
      if (!decided.forwarded) {
        const { decision, reason } = decided;
        answer(entry, { result: blockedCallResult({ tool, decision, ...(reason ? { reason } : {}) }) });
      } else {
        // What was checked is what is forwarded: the real paths when they were resolved; every other
        // field of params (`_meta`, `task`) as it came.
        entry.step = remember({ action: decided.checkedAs, args: trajectoryArgs(args) });
        relay(
          entry,
          {
            jsonrpc: "2.0",
            method: "tools/call",
            params: rewritten ? { ...params, name: tool, arguments: args } : params,
          },
          true,
        );
      }
    }
  };

  /**
   * A content request: checked as the call `method` with `args` (unless guardContent is off), then
   * forwarded with exactly the checked fields (and `_meta`), and remembered with its text as observation.
   */
  const relayContent = async (
    entry: Relayed,
    call: {
      method: "resources/read" | "prompts/get";
      label: string;
      args: Record<string, unknown>;
      params: Record<string, unknown>;
    },
  ): Promise<void> => {
    const decided = await decide({ tool: call.method, args: call.args, entry, label: call.label });
    record(decided);
    if (!entry.done) {
      if (!decided.forwarded) {
        const { decision, reason } = decided;
        answer(entry, {
          error: errorBody(refusal({ label: call.label, decision, ...(reason ? { reason } : {}) })),
        });
      } else {
        entry.step = remember({ action: decided.checkedAs, args: trajectoryArgs(call.args) });
        relay(entry, { jsonrpc: "2.0", method: call.method, params: call.params }, true);
      }
    }
  };

  /** Starts a check that answers the agent itself; a check that throws answers its error. */
  const guarded = (entry: Relayed, run: Promise<void>) => {
    run.catch((error: unknown) => answer(entry, { error: errorBody(toMcpError({ error })) }));
  };

  const onAgentRequest = (message: Extract<Classified, { kind: "request" }>) => {
    const { id, method } = message;
    if (fromAgent.has(id)) {
      return refuse(id, ErrorCode.InvalidRequest, `request id ${JSON.stringify(id)} is already in flight`);
    }
    const imitated = lookalike({ method, guarded: GUARDED_METHODS });
    if (imitated) {
      warn({ method, imitated }, "refused a method spelled like a guarded one");
      return refuse(
        id,
        ErrorCode.InvalidRequest,
        `refused: "${method}" is not a method; did you mean ${imitated}?`,
      );
    }
    // A guarded request is checked and forwarded in its JSON form (json-rpc-message.ts): what the wire
    // to the upstream would make of an in-process agent's own objects is what the check reads. A message
    // read from stdio is fresh from JSON.parse, its own JSON form already.
    let params = message.params as Record<string, unknown> | undefined;
    if (!agentSendsJson && (GUARDED_METHODS as readonly string[]).includes(method)) {
      const form = jsonForm(params);
      if (!form.ok)
        return refuse(id, ErrorCode.InvalidParams, `${method}: params are not JSON (${form.reason})`);
      params = form.value as Record<string, unknown> | undefined;
    }
    const progressToken = (params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
    const entry: Relayed = {
      agentId: id,
      kind: "other",
      ...(progressToken !== undefined ? { progressToken } : {}),
    };
    switch (method) {
      case "tools/call": {
        if (!isToolCallParams(params)) {
          return refuse(id, ErrorCode.InvalidParams, "tools/call: params are not a tool call");
        }
        entry.kind = "tools/call";
        fromAgent.set(id, entry);
        return guarded(entry, relayCall(entry, params));
      }
      case "resources/read": {
        if (!guardContent) break;
        const uri = params?.uri;
        if (typeof uri !== "string") {
          return refuse(id, ErrorCode.InvalidParams, "resources/read: params.uri is not a string");
        }
        entry.kind = "content";
        fromAgent.set(id, entry);
        return guarded(
          entry,
          relayContent(entry, {
            method: "resources/read",
            label: `resources/read (${uri})`,
            args: { uri },
            params: { uri, ...(params?._meta !== undefined ? { _meta: params._meta } : {}) },
          }),
        );
      }
      case "prompts/get": {
        if (!guardContent) break;
        const name = params?.name;
        const promptArgs = params?.arguments;
        if (
          typeof name !== "string" ||
          (promptArgs !== undefined &&
            (typeof promptArgs !== "object" || promptArgs === null || Array.isArray(promptArgs)))
        ) {
          return refuse(id, ErrorCode.InvalidParams, "prompts/get: params are not a prompt request");
        }
        entry.kind = "content";
        fromAgent.set(id, entry);
        return guarded(
          entry,
          relayContent(entry, {
            method: "prompts/get",
            label: `prompts/get (${name})`,
            args: { name, arguments: promptArgs ?? {} },
            params: {
              name,
              ...(promptArgs !== undefined ? { arguments: promptArgs } : {}),
              ...(params?._meta !== undefined ? { _meta: params._meta } : {}),
            },
          }),
        );
      }
      case "initialize":
        // What the agent's client can do decides whether an ask can be put to its human.
        agentElicits = supportsFormElicitation({ capabilities: params?.capabilities });
        break;
      case "tools/list":
        entry.kind = "tools/list";
        entry.firstPage = typeof params?.cursor !== "string";
        break;
    }
    fromAgent.set(id, entry);
    void relay(entry, message.message, false);
  };

  const onAgentNotification = (message: Extract<Classified, { kind: "notification" }>) => {
    const { method } = message;
    if (
      (GUARDED_METHODS as readonly string[]).includes(method) ||
      lookalike({ method, guarded: GUARDED_METHODS })
    ) {
      // A guarded method without an id cannot be answered, and an upstream that ran it would run it unchecked.
      warn({ method }, "dropped a guarded method sent as a notification");
      return;
    }
    if (method === "notifications/cancelled") {
      const params = message.params as { requestId?: unknown; reason?: unknown } | undefined;
      const entry = fromAgent.get(params?.requestId as RequestId);
      if (!entry) return;
      const reason = typeof params?.reason === "string" ? params.reason : "cancelled";
      cancelUpstream(entry, reason);
      forget(entry);
      entry.cancelReason = reason;
      entry.cancelCheck?.(reason);
      return;
    }
    if (method === "notifications/initialized") initialized = true;
    void sendUpstream(message.message);
  };

  /** The agent's answer to a server request: back upstream under the upstream's id. */
  const onAgentResponse = (message: Extract<Classified, { kind: "response" }>) => {
    const own = typeof message.id === "string" ? toAgent.get(message.id) : undefined;
    if (own) return own(message.message as { result?: unknown; error?: { message?: unknown } });
    const key = String(message.id);
    const upstreamId = serverRequestByAgentId.get(key);
    if (upstreamId === undefined || typeof message.id !== "string") return;
    serverRequestByAgentId.delete(key);
    agentIdByServerRequest.delete(upstreamId);
    void sendUpstream({ ...message.message, id: upstreamId });
  };

  const onAgentMessage = (value: unknown) => {
    const message = classifyMessage(value);
    switch (message.kind) {
      case "request":
        return onAgentRequest(message);
      case "notification":
        return onAgentNotification(message);
      case "response":
        return onAgentResponse(message);
      default:
        warn({ reason: message.reason }, "refused a malformed message from the agent");
        if (message.id !== null)
          refuse(message.id, ErrorCode.InvalidRequest, `invalid message: ${message.reason}`);
    }
  };

  /** The upstream's answer to a relayed request. */
  const onUpstreamResponse = (message: Extract<Classified, { kind: "response" }>) => {
    const entry = typeof message.id === "string" ? toUpstream.get(message.id) : undefined;
    if (!entry) return;
    const body = message.message as { result?: unknown; error?: ErrorBody };
    if (entry.settle) return entry.settle(body);
    if (entry.done) return;
    if (body.error !== undefined) return answer(entry, { error: body.error });
    let result = body.result;
    if (!entry.step && entry.kind === "tools/list") {
      learnTools(toolSchemas, { result, firstPage: entry.firstPage === true });
      warmUpOnce();
      if (hideDenied) result = withoutDeniedTools(result);
    }
    answer(entry, { result });
    // The step's observation is kept once the answer is on its way, off the path the agent waits on. In
    // the same turn: no message of either side is read before it, so the next check sees it as before.
    if (entry.step) observe(entry, entry.step, result);
  };

  /** Replaces a forwarded call's step in the trajectory by the step with its result as observation. */
  const observe = (entry: Relayed, step: Step, result: unknown) => {
    const observation = entry.kind === "tools/call" ? observationOf(result) : contentText(result);
    const observed = Object.freeze(withFields({ base: step, fields: { observation } }));
    const at = history.lastIndexOf(step);
    if (at !== -1) history[at] = observed;
    entry.step = observed;
    trimObservations(history);
  };

  /** A tools/list answer without the tools the policy denies outright (the same object when none is). */
  const withoutDeniedTools = (result: unknown): unknown => {
    const tools = toolsOf(result);
    const kept = tools.filter((tool) => !deniedOutright({ policy, tool: `${prefix}${tool.name}` }));
    return kept.length === tools.length ? result : { ...(result as object), tools: kept };
  };

  /** The request of the agent the upstream's message is about, when that can be known (HTTP streams). */
  const relatedTo = (params: unknown): TransportSendOptions | undefined => {
    const token = (params as { progressToken?: unknown } | undefined)?.progressToken;
    if (token === undefined) return undefined;
    for (const entry of fromAgent.values()) {
      if (entry.progressToken === token && entry.agentId !== undefined)
        return { relatedRequestId: entry.agentId };
    }
    return undefined;
  };

  const onUpstreamMessage = (value: unknown) => {
    const message = classifyMessage(value);
    switch (message.kind) {
      case "response":
        return onUpstreamResponse(message);
      case "request": {
        // A server request (elicitation, sampling, roots, ping): to the agent under an id of the proxy's.
        const agentSideId = nextId();
        serverRequestByAgentId.set(agentSideId, message.id);
        agentIdByServerRequest.set(message.id, agentSideId);
        return sendAgent({ ...message.message, id: agentSideId });
      }
      case "notification": {
        const { method } = message;
        if (method === "notifications/cancelled") {
          const params = message.params as { requestId?: unknown } | undefined;
          const agentSideId = agentIdByServerRequest.get(params?.requestId as RequestId);
          if (agentSideId === undefined) return;
          agentIdByServerRequest.delete(params?.requestId as RequestId);
          serverRequestByAgentId.delete(agentSideId);
          return sendAgent({ ...message.message, params: { ...params, requestId: agentSideId } });
        }
        if (method === "notifications/tools/list_changed") {
          // A changed tool list may change a schema: forget them all (the next call fetches them again).
          toolSchemas.generation++;
          toolSchemas.schemas = new Map();
          toolSchemas.complete = false;
        }
        return sendAgent(
          message.message,
          method === "notifications/progress" ? relatedTo(message.params) : undefined,
        );
      }
      default:
        warn({ reason: message.reason }, "dropped a malformed message from the upstream");
    }
  };

  let closing: Promise<void> | undefined;
  let resolveClosed: () => void = NOOP;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  const close = () => {
    if (closing) return closing;
    // Assigned before anything runs: closing a transport calls its onclose, which lands here again.
    let finish: () => void = NOOP;
    closing = new Promise<void>((resolve) => {
      finish = resolve;
    });
    void (async () => {
      warming?.stop();
      callLog?.flush();
      if (deadlineTimer) clearTimeout(deadlineTimer);
      // Requests still waiting are answered as the SDK answers requests on a closed connection.
      const closedError = errorBody(new McpError(ErrorCode.ConnectionClosed, "Connection closed"));
      for (const entry of [...fromAgent.values()]) {
        answer(entry, { error: closedError });
        entry.cancelCheck?.("closed");
      }
      for (const entry of [...toUpstream.values()]) entry.settle?.({ error: closedError });
      for (const settle of [...toAgent.values()]) settle({ error: { message: "Connection closed" } });
      await agent?.close().catch(() => undefined);
      await upstream.close().catch(() => undefined);
      resolveClosed();
      finish();
    })();
    return closing;
  };

  upstream.onmessage = (message) => onUpstreamMessage(message);
  upstream.onclose = () => void close();
  upstream.onerror = (error) => warn({ message: error.message }, "upstream transport error");
  await upstream.start();

  return {
    connect: async ({ transport }) => {
      if (agent) throw new Error("the guard proxy serves one agent connection");
      agent = transport;
      agentSendsJson = deliversParsedJson(transport);
      transport.onmessage = (message) => onAgentMessage(message);
      transport.onclose = () => void close();
      transport.onerror = (error) => warn({ message: error.message }, "agent transport error");
      await transport.start();
    },
    stats: () => ({ ...stats, byVerdict: { ...stats.byVerdict } }),
    closed,
    close: async () => {
      await close();
    },
  };
}

/**
 * The guard proxy: the non-invasive way to put Warden in front of any MCP tool user. It connects to the
 * real (upstream) MCP server as a client and presents that server's tools, resources and prompts,
 * unchanged, as its own (resources, prompts and completions only when the upstream offers them). Every
 * `tools/call` is first checked against the policy; only an allowed call is forwarded. A deny or an ask
 * comes back as a tool result with `isError: true` explaining the rules (never as an exception), so the
 * agent sees why and can tell its user. Upstream errors pass through with their own codes.
 *
 * The two requests that fetch content are guarded the same way (unless `guardContent: false`), because a
 * resource or a prompt can carry as much as a tool: `resources/read` is checked as a tool call named
 * `resources/read` with arguments `{ uri }`, and `prompts/get` as `prompts/get` with `{ name, arguments }`
 * (each with `toolPrefix` prepended, like tools). These methods have no error form of their result, so a
 * deny or an ask answers an McpError (-32600 InvalidRequest) whose message is the blocked-call text and
 * whose `data["warden/decision"]` is the Decision. Lists, templates, completions, subscriptions and
 * change notifications pass through unchecked: they name content without delivering it.
 *
 * Writing rules for them: to the compiled engine these are ordinary tool names, so a policy that never
 * mentions them gets its `toolDefault` (deny when absent; the bundled mcp-tools policy says "ask", so
 * every read and prompt is refused until a rule allows it), and a `*` glob covers them too (so does
 * `filesystem.*` when toolPrefix is "filesystem."). E.g. allow reads except system files:
 *   { "id": "resource.no-etc", "tool": "resources/read", "effect": "deny", "message": "...",
 *     "when": { "field": "args.uri", "part": "path", "op": "pathWithin", "value": "/etc" } },
 * (`args.uri` is read as a URL, so `file:///tmp/../etc/shadow` and `file://localhost/etc/shadow` are the
 * path /etc/shadow; a raw `startsWith "file:///etc/"` would let both through.)
 *   { "id": "resource.allow-read", "tool": "resources/read", "effect": "allow", "message": "..." }
 * The model-based engines see the same JSON call as the agent's output and judge it by the requests.
 *
 * Argument kinds: each check carries the called tool's `inputSchema`, as the upstream listed it, in
 * `subject.context.toolSchemas` (keyed by the name the call is checked as), so `args:path`, `args:url`…
 * find the path- and URL-valued arguments from the schema too. The schemas are learned from every
 * `tools/list` answer the agent receives, fetched once on the first call when the agent never listed,
 * and forgotten on `notifications/tools/list_changed` (then fetched again on the next call).
 *
 * Real paths (`realPaths: true`, for an upstream on this machine's file system): each path argument is
 * replaced by its real path (symbolic links resolved) before the check, and that is what is forwarded,
 * so a link inside the workspace cannot take a checked path somewhere the policy forbids.
 *
 * The hot path: a well-formed `tools/call` is relayed by the proxy itself, not by the SDK Server and
 * Client (intercept-transport.ts): checked once, forwarded as raw JSON-RPC under an id of the proxy's own
 * (`warden-proxy-N`, so it never meets the agent's or the SDK client's ids), and the upstream's answer
 * sent back under the agent's id as it came — its result or its error, code and data untouched. The
 * relay keeps what the SDK pair gave it: the request time limit (RequestTimeout, cancelled upstream),
 * the agent's `notifications/cancelled` (the check aborted, the call cancelled upstream), and
 * ConnectionClosed for calls still waiting when the proxy closes. Everything else (initialize, lists,
 * resources, prompts, notifications) still goes through the SDK pair.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { DEFAULT_REQUEST_TIMEOUT_MSEC } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  type JSONRPCMessage,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  PromptListChangedNotificationSchema,
  ReadResourceRequestSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ResultSchema,
  type ServerCapabilities,
  type ServerResult,
  SubscribeRequestSchema,
  ToolListChangedNotificationSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "pino";
import { z } from "zod";
import type { Decision, Verdict } from "../core/decision.js";
import type { Policy } from "../core/policy.js";
import type { Step } from "../core/subject.js";
import { toolCallSubject } from "../core/tool-call.js";
import { parseWith } from "../core/validate.js";
import type { Engine } from "../engines/engine.js";
import { checkWithin } from "../runtime/check-within.js";
import { CheckTimeoutMsSchema, DEFAULT_CHECK_TIMEOUT_MS } from "../runtime/guard-service.js";
import { DEFAULT_OFFLOAD_THRESHOLD_BYTES } from "../runtime/offload/check-pool.js";
import { batchedLog } from "./batched-log.js";
import { blockedCallResult, DECISION_META_KEY } from "./blocked-call-result.js";
import { interceptTransport } from "./intercept-transport.js";
import { toMcpError } from "./mcp-errors.js";
import { realPathArgs } from "./real-path-args.js";

/** An upstream server to start as a child process and talk to over stdio. */
export interface StdioUpstream {
  command: string;
  args?: string[];
  /** Environment of the child (default: this process's, so tokens the server needs reach it). */
  env?: Record<string, string>;
  cwd?: string;
}

export interface GuardedMcpProxyOptions {
  /** The real server: a connected-to-be MCP client transport, or a command to start on stdio. */
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
   * Check and forward the real path of each path argument (symbolic links resolved on this machine,
   * relative paths against the policy's `rules.paths.base`; see real-path-args.ts). Only for an upstream
   * that shares this machine's file system, such as a filesystem server the proxy starts (default false).
   */
  realPaths?: boolean;
  /** Time limit of each request to the upstream server (default 60000 ms). */
  requestTimeoutMs?: number;
  /**
   * Time limit of each check (default 300 000 ms; 0 for none): past it the call is refused with a
   * fail-closed CHECK_TIMEOUT decision, whatever the engine is still doing.
   */
  checkTimeoutMs?: number;
  name?: string;
  version?: string;
  /** One line per checked call (stderr in the CLI); none when absent. */
  logger?: Logger;
  /**
   * Called after every check, with whether the call was forwarded; `tool` is the upstream tool's name,
   * or "resources/read" / "prompts/get" for a guarded content request.
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
  /** The side the agent talks to. */
  readonly server: Server;
  /** The side that talks to the upstream server. */
  readonly client: Client;
  /** Serves the agent on this transport (stdio in the CLI). */
  connect(options: { transport: Transport }): Promise<void>;
  stats(): GuardedMcpProxyStats;
  /** Settles when either side has closed (the proxy then closes the other). */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

const OptionsSchema = z.object({
  task: z.string().optional(),
  context: z.record(z.string(), z.unknown()).optional(),
  toolPrefix: z.string().optional(),
  historyLimit: z.number().int().min(0).max(10_000).optional(),
  guardContent: z.boolean().optional(),
  realPaths: z.boolean().optional(),
  requestTimeoutMs: z.number().int().positive().optional(),
  checkTimeoutMs: CheckTimeoutMsSchema.default(DEFAULT_CHECK_TIMEOUT_MS),
});

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
  const whole = options.firstPage && !(options.result as { nextCursor?: unknown }).nextCursor;
  if (whole) {
    cache.schemas = new Map();
    cache.complete = true;
  }
  for (const tool of toolsOf(options.result)) cache.schemas.set(tool.name, tool.inputSchema);
}

/** A relayed `tools/call` on its way: its check's signal, and once forwarded, its upstream id. */
interface RelayedCall {
  agentId: string | number;
  controller: AbortController;
  upstreamId?: string;
  timer?: NodeJS.Timeout;
  /** Its step in the trajectory, once forwarded: the answer fills in the observation. */
  step?: Step;
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

/** Drops the observations of the oldest steps past OBSERVATION_BUDGET_CHARS, counting from the newest. */
function trimObservations(history: Step[]): void {
  let kept = 0;
  for (let i = history.length - 1; i >= 0; i--) {
    const step = history[i] as Step;
    if (step.observation === undefined) continue;
    kept += step.observation.length;
    if (kept > OBSERVATION_BUDGET_CHARS) delete step.observation;
  }
}

function truncated(text: string): string {
  return text.length > MAX_OBSERVATION_CHARS ? `${text.slice(0, MAX_OBSERVATION_CHARS)}…` : text;
}

/**
 * The text of a tools/call result, read defensively: the relay passes the upstream's answer on as it
 * came (the agent's own client validates it), so any field may be missing or of another shape here.
 */
function observationOf(result: ServerResult): string {
  const content = (result as { content?: unknown }).content;
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
function contentText(result: ServerResult): string {
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
  const { contents, messages } = result as { contents?: unknown; messages?: unknown };
  if (Array.isArray(contents)) for (const item of contents) describe(item);
  if (Array.isArray(messages))
    for (const m of messages) describe((m as { content?: unknown } | null)?.content);
  return truncated(parts.join("\n"));
}

/**
 * The answer to a refused resources/read or prompts/get. These have no `isError` result form, so the
 * refusal is an error; InvalidRequest because the request itself, not its arguments' form, is refused.
 */
function refusal(options: { label: string; decision: Decision }): McpError {
  const text = blockedCallResult({ tool: options.label, decision: options.decision })
    .content.map((c) => (c.type === "text" ? c.text : ""))
    .join("\n");
  return toMcpError({
    error: new McpError(ErrorCode.InvalidRequest, text, { [DECISION_META_KEY]: options.decision }),
  });
}

export async function createGuardedMcpProxy(options: GuardedMcpProxyOptions): Promise<GuardedMcpProxy> {
  const o = parseWith({ schema: OptionsSchema, value: options, what: "guard proxy options" });
  const { policy, engine, logger } = options;
  const callLog = logger ? batchedLog({ logger, delayMs: LOG_BATCH_MS }) : undefined;
  const historyLimit = o.historyLimit ?? 50;
  const timeout = o.requestTimeoutMs;
  const upstream = isTransport(options.upstream)
    ? options.upstream
    : new StdioClientTransport({
        command: options.upstream.command,
        args: options.upstream.args ?? [],
        env: options.upstream.env ?? inheritedEnv(),
        ...(options.upstream.cwd ? { cwd: options.upstream.cwd } : {}),
        stderr: "inherit",
      });

  // The relayed tools/call requests (relayCall below): by the agent's id, and by the id sent upstream.
  const relayed = new Map<string | number, RelayedCall>();
  const awaiting = new Map<string, RelayedCall>();
  let relayIds = 0;
  let agent: Transport | undefined;
  let onAgentMessage: (message: JSONRPCMessage) => boolean = () => false;
  let onUpstreamMessage: (message: JSONRPCMessage) => boolean = () => false;

  const name = options.name ?? "warden-guard-proxy";
  const version = options.version ?? "0.1.0";
  const client = new Client({ name, version }, { capabilities: {} });
  await client.connect(
    interceptTransport({ transport: upstream, intercept: (message) => onUpstreamMessage(message) }),
    timeout ? { timeout } : undefined,
  );

  const upstreamCapabilities = client.getServerCapabilities();
  const upstreamTools = upstreamCapabilities?.tools;
  const upstreamResources = upstreamCapabilities?.resources;
  const upstreamPrompts = upstreamCapabilities?.prompts;
  const upstreamCompletions = upstreamCapabilities?.completions;
  // Advertise only what the upstream offers, so the agent never asks for something the proxy cannot answer.
  const capabilities: ServerCapabilities = {
    tools: { listChanged: upstreamTools?.listChanged ?? false },
    ...(upstreamResources
      ? {
          resources: {
            subscribe: upstreamResources.subscribe ?? false,
            listChanged: upstreamResources.listChanged ?? false,
          },
        }
      : {}),
    ...(upstreamPrompts ? { prompts: { listChanged: upstreamPrompts.listChanged ?? false } } : {}),
    ...(upstreamCompletions ? { completions: {} } : {}),
  };
  const instructions = client.getInstructions();
  const server = new Server({ name, version }, { capabilities, ...(instructions ? { instructions } : {}) });

  const history: Step[] = [];
  const stats: GuardedMcpProxyStats = {
    checked: 0,
    forwarded: 0,
    blocked: 0,
    byVerdict: { allow: 0, deny: 0, ask: 0 },
  };
  const guardContent = o.guardContent ?? true;
  const toolSchemas: ToolSchemaCache = { schemas: new Map(), complete: false, generation: 0 };

  /** Reads the whole tool list once for this generation; a failure leaves the schemas unknown. */
  const fetchToolSchemas = async (): Promise<void> => {
    const generation = toolSchemas.generation;
    const schemas = new Map<string, unknown>();
    try {
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await client.listTools(
          cursor ? { cursor } : undefined,
          timeout ? { timeout } : undefined,
        );
        for (const tool of toolsOf(page)) schemas.set(tool.name, tool.inputSchema);
        cursor = page.nextCursor;
        pages++;
      } while (cursor && pages < MAX_TOOL_LIST_PAGES);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      logger?.warn({ message }, "tools/list failed: checks go on without the tools' input schemas");
    }
    if (generation !== toolSchemas.generation) return;
    for (const [tool, schema] of schemas) toolSchemas.schemas.set(tool, schema);
    toolSchemas.complete = true;
  };

  /** The upstream tool's input schema: from the cache, or from one lazy listing when it is not known. */
  const fetchInputSchema = async (tool: string): Promise<unknown> => {
    toolSchemas.fetching ??= fetchToolSchemas().finally(() => {
      toolSchemas.fetching = undefined;
    });
    await toolSchemas.fetching;
    return toolSchemas.schemas.get(tool);
  };

  /** Sends a request upstream as it came: the loose result schema keeps every field of the answer. */
  const forward = async (
    request: { method: string; params?: Record<string, unknown> },
    signal: AbortSignal,
  ): Promise<ServerResult> => {
    try {
      return (await client.request(
        { method: request.method, ...(request.params ? { params: request.params } : {}) },
        ResultSchema,
        { signal, ...(timeout ? { timeout } : {}) },
      )) as ServerResult;
    } catch (error) {
      throw toMcpError({ error });
    }
  };

  /**
   * Checks one call against the policy, then counts, logs and reports it. A check that fails throws the
   * mapped MCP error, and nothing is forwarded.
   */
  const decide = async (call: {
    tool: string;
    args: Record<string, unknown>;
    signal: AbortSignal;
    /** The tool's input schema, for `tools/call`. */
    inputSchema?: unknown;
  }): Promise<{ checkedAs: string; decision: Decision }> => {
    const checkedAs = `${o.toolPrefix ?? ""}${call.tool}`;
    const started = performance.now();
    let decision: Decision;
    try {
      const subject = toolCallSubject({
        tool: checkedAs,
        args: call.args,
        ...(o.task !== undefined ? { task: o.task } : {}),
        ...(o.context ? { context: o.context } : {}),
        ...(call.inputSchema !== undefined ? { inputSchema: call.inputSchema } : {}),
        history,
      });
      // The proxy built the call from the protocol message it forwards (toolCallSubject keeps configured
      // context from replacing it), so its context facts are trusted: they are the real call.
      const trust = { contextFacts: true };
      decision =
        o.checkTimeoutMs === 0
          ? await engine.check({ policy, subject, signal: call.signal, trust })
          : await checkWithin({
              policy,
              subject,
              getEngine: async () => engine,
              engineName: engine.name,
              limitMs: o.checkTimeoutMs,
              started,
              signal: call.signal,
              trust,
            });
    } catch (error) {
      const mcpError = toMcpError({ error });
      logger?.error({ tool: checkedAs, code: mcpError.code, message: mcpError.message }, "check failed");
      throw mcpError;
    }
    stats.checked++;
    stats.byVerdict[decision.verdict]++;
    const forwarded = decision.allowed;
    if (forwarded) stats.forwarded++;
    else stats.blocked++;
    if (logger) {
      const line = {
        tool: checkedAs,
        verdict: decision.verdict,
        rules: decision.violations.map((v) => v.ruleId),
        engine: decision.engine,
        ms: performance.now() - started,
      };
      // Written after the answer, in batches (batched-log.ts): off the path the agent waits on, in order.
      callLog?.info({ fields: line, message: forwarded ? "forwarded" : "blocked" });
    }
    options.onDecision?.({ tool: call.tool, checkedAs, decision, forwarded });
    return { checkedAs, decision };
  };

  /** Adds a forwarded call to the session's trajectory; its observation is filled in once answered. */
  const remember = (step: Step): Step => {
    history.push(step);
    if (history.length > historyLimit) history.splice(0, history.length - historyLimit);
    return step;
  };

  server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
    const result = await forward(request, extra.signal);
    learnTools(toolSchemas, { result, firstPage: !request.params?.cursor });
    return result;
  });

  /**
   * One agent `tools/call`, relayed by the proxy itself (see intercept-transport.ts): checked, then either
   * answered with the refusal or forwarded upstream under an id of the proxy's own, the answer going back
   * under the agent's id as it came.
   */
  const relayCall = async (call: RelayedCall, params: ToolCallParams): Promise<void> => {
    const tool = params.name;
    // Known schemas are read at once: no promise on the path of every call.
    const inputSchema =
      toolSchemas.schemas.has(tool) || toolSchemas.complete
        ? toolSchemas.schemas.get(tool)
        : await fetchInputSchema(tool);
    let args = params.arguments ?? {};
    let rewritten = false;
    if (o.realPaths) {
      const base = policy.rules?.paths?.base;
      const real = realPathArgs({ args, inputSchema, ...(base ? { base } : {}) });
      if (real.rewrites.length > 0) {
        args = real.args;
        rewritten = true;
        logger?.info({ tool, rewrites: real.rewrites }, "checking and forwarding real paths");
      }
    }
    const signal = call.controller.signal;
    const { checkedAs, decision } = await decide({ tool, args, signal, inputSchema });
    if (signal.aborted) return;
    if (!decision.allowed) return answer(call, { result: blockedCallResult({ tool, decision }) });

    call.step = remember({ action: checkedAs, args });
    call.upstreamId = `warden-proxy-${++relayIds}`;
    awaiting.set(call.upstreamId, call);
    const limit = timeout ?? DEFAULT_REQUEST_TIMEOUT_MSEC;
    call.timer = setTimeout(() => {
      cancelUpstream(call, "timed out");
      answer(call, {
        error: errorBody(new McpError(ErrorCode.RequestTimeout, "Request timed out", { timeout: limit })),
      });
    }, limit);
    // Task augmentation is not offered downstream, so only the call itself is forwarded.
    const forwarded = {
      name: tool,
      // What was checked is what is forwarded: the real paths when they were resolved.
      ...(rewritten
        ? { arguments: args }
        : params.arguments !== undefined
          ? { arguments: params.arguments }
          : {}),
      ...(params._meta !== undefined ? { _meta: params._meta } : {}),
    };
    await upstream.send({ jsonrpc: "2.0", id: call.upstreamId, method: "tools/call", params: forwarded });
  };

  /** Sends the agent the answer to a relayed call (once; none after a cancellation) and forgets the call. */
  const answer = (call: RelayedCall, body: { result: Record<string, unknown> } | { error: ErrorBody }) => {
    forget(call);
    if (call.controller.signal.aborted || !agent) return;
    agent.send({ jsonrpc: "2.0", id: call.agentId, ...body } as JSONRPCMessage).catch(() => undefined);
  };

  const forget = (call: RelayedCall) => {
    if (relayed.get(call.agentId) === call) relayed.delete(call.agentId);
    if (call.upstreamId) awaiting.delete(call.upstreamId);
    if (call.timer) clearTimeout(call.timer);
  };

  const cancelUpstream = (call: RelayedCall, reason: string) => {
    if (!call.upstreamId || !awaiting.has(call.upstreamId)) return;
    const notification = {
      jsonrpc: "2.0" as const,
      method: "notifications/cancelled",
      params: { requestId: call.upstreamId, reason },
    };
    upstream.send(notification).catch(() => undefined);
  };

  onAgentMessage = (message) => {
    if (!("method" in message)) return false;
    const params = (message as { params?: unknown }).params;
    if (message.method === "tools/call" && "id" in message) {
      if (!isToolCallParams(params)) return false;
      const call: RelayedCall = { agentId: message.id, controller: new AbortController() };
      relayed.set(message.id, call);
      relayCall(call, params).catch((error) => answer(call, { error: errorBody(toMcpError({ error })) }));
      return true;
    }
    if (message.method === "notifications/cancelled") {
      const call = relayed.get((params as { requestId?: string | number } | undefined)?.requestId ?? "");
      if (!call) return false;
      const reason = (params as { reason?: unknown }).reason;
      cancelUpstream(call, typeof reason === "string" ? reason : "cancelled");
      forget(call);
      call.controller.abort(reason);
      return true;
    }
    return false;
  };

  onUpstreamMessage = (message) => {
    if ("method" in message || !("id" in message) || typeof message.id !== "string") return false;
    const call = awaiting.get(message.id);
    if (!call) return false;
    if ("result" in message) {
      if (call.step) {
        call.step.observation = observationOf(message.result as ServerResult);
        trimObservations(history);
      }
      answer(call, { result: message.result });
    } else if ("error" in message) {
      answer(call, { error: message.error });
    }
    return true;
  };

  // Every well-formed tools/call is relayed before the SDK sees it; what reaches here failed its schema.
  server.setRequestHandler(CallToolRequestSchema, () => {
    throw new McpError(ErrorCode.InvalidParams, "tools/call: params are not a tool call");
  });

  /**
   * A content request: checked as the call `method` with `args` (unless guardContent is off), then
   * forwarded with exactly the checked fields (and `_meta`), and remembered with its text as observation.
   */
  const guarded = async (call: {
    method: "resources/read" | "prompts/get";
    label: string;
    args: Record<string, unknown>;
    params: Record<string, unknown>;
    signal: AbortSignal;
  }): Promise<ServerResult> => {
    if (!guardContent) return forward({ method: call.method, params: call.params }, call.signal);
    const { checkedAs, decision } = await decide({ tool: call.method, args: call.args, signal: call.signal });
    if (!decision.allowed) throw refusal({ label: call.label, decision });
    const step = remember({ action: checkedAs, args: call.args });
    const result = await forward({ method: call.method, params: call.params }, call.signal);
    step.observation = contentText(result);
    trimObservations(history);
    return result;
  };

  if (upstreamResources) {
    server.setRequestHandler(ListResourcesRequestSchema, (request, extra) => forward(request, extra.signal));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, (request, extra) =>
      forward(request, extra.signal),
    );
    server.setRequestHandler(ReadResourceRequestSchema, (request, extra) => {
      const { uri, _meta } = request.params;
      return guarded({
        method: "resources/read",
        label: `resources/read (${uri})`,
        args: { uri },
        params: { uri, ...(_meta !== undefined ? { _meta } : {}) },
        signal: extra.signal,
      });
    });
    if (upstreamResources.subscribe) {
      server.setRequestHandler(SubscribeRequestSchema, (request, extra) => forward(request, extra.signal));
      server.setRequestHandler(UnsubscribeRequestSchema, (request, extra) => forward(request, extra.signal));
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) =>
        server.sendResourceUpdated(notification.params),
      );
    }
    if (upstreamResources.listChanged) {
      client.setNotificationHandler(ResourceListChangedNotificationSchema, () =>
        server.sendResourceListChanged(),
      );
    }
  }

  if (upstreamPrompts) {
    server.setRequestHandler(ListPromptsRequestSchema, (request, extra) => forward(request, extra.signal));
    server.setRequestHandler(GetPromptRequestSchema, (request, extra) => {
      const { name: prompt, arguments: promptArgs, _meta } = request.params;
      const args = { name: prompt, arguments: promptArgs ?? {} };
      return guarded({
        method: "prompts/get",
        label: `prompts/get (${prompt})`,
        args,
        params: {
          name: prompt,
          ...(promptArgs !== undefined ? { arguments: promptArgs } : {}),
          ...(_meta !== undefined ? { _meta } : {}),
        },
        signal: extra.signal,
      });
    });
    if (upstreamPrompts.listChanged) {
      client.setNotificationHandler(PromptListChangedNotificationSchema, () =>
        server.sendPromptListChanged(),
      );
    }
  }

  if (upstreamCompletions) {
    server.setRequestHandler(CompleteRequestSchema, (request, extra) => forward(request, extra.signal));
  }

  // A changed tool list may change a schema: forget them all (the next call fetches them again).
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    toolSchemas.generation++;
    toolSchemas.schemas = new Map();
    toolSchemas.complete = false;
    if (upstreamTools?.listChanged) return server.sendToolListChanged();
  });

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      callLog?.flush();
      // Calls still waiting for the upstream are answered as the SDK answers requests on a closed connection.
      const closedError = errorBody(new McpError(ErrorCode.ConnectionClosed, "Connection closed"));
      for (const call of [...relayed.values()]) {
        answer(call, { error: closedError });
        call.controller.abort();
      }
      await server.close().catch(() => undefined);
      await client.close().catch(() => undefined);
    })();
    return closing;
  };
  const closed = new Promise<void>((resolve) => {
    client.onclose = () => {
      void close().then(resolve);
    };
    server.onclose = () => {
      void close().then(resolve);
    };
  });

  return {
    server,
    client,
    connect: ({ transport }) => {
      agent = transport;
      return server.connect(
        interceptTransport({ transport, intercept: (message) => onAgentMessage(message) }),
      );
    },
    stats: () => ({ ...stats, byVerdict: { ...stats.byVerdict } }),
    closed,
    close: async () => {
      await close();
    },
  };
}

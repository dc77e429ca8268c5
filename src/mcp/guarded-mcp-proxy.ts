/**
 * The guard proxy: the non-invasive way to put Warden in front of any MCP tool user. It connects to the
 * real (upstream) MCP server as a client and presents that server's tools, unchanged, as its own. Every
 * `tools/call` is first checked against the policy; only an allowed call is forwarded. A deny or an ask
 * comes back as a tool result with `isError: true` explaining the rules (never as an exception), so the
 * agent sees why and can tell its user. Upstream errors pass through with their own codes.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  CallToolResultSchema,
  ListToolsRequestSchema,
  ResultSchema,
  type ServerResult,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "pino";
import { z } from "zod";
import type { Decision, Verdict } from "../core/decision.js";
import type { Policy } from "../core/policy.js";
import type { Step } from "../core/subject.js";
import { parseWith } from "../core/validate.js";
import type { Engine } from "../engines/engine.js";
import { blockedCallResult } from "./blocked-call-result.js";
import { toMcpError } from "./mcp-errors.js";
import { toolCallSubject } from "./tool-call-subject.js";

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
  /** Time limit of each request to the upstream server (default 60000 ms). */
  requestTimeoutMs?: number;
  name?: string;
  version?: string;
  /** One line per checked call (stderr in the CLI); none when absent. */
  logger?: Logger;
  /** Called after every check, with whether the call was forwarded. */
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
  requestTimeoutMs: z.number().int().positive().optional(),
});

/** How much of a forwarded call's result the trajectory keeps as the step's observation. */
const MAX_OBSERVATION_CHARS = 2000;

function isTransport(value: GuardedMcpProxyOptions["upstream"]): value is Transport {
  return typeof (value as Transport).start === "function" && typeof (value as Transport).send === "function";
}

function inheritedEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
  );
}

function observationOf(result: CallToolResult): string {
  const text = (result.content ?? []).map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join("\n");
  return text.length > MAX_OBSERVATION_CHARS ? `${text.slice(0, MAX_OBSERVATION_CHARS)}…` : text;
}

export async function createGuardedMcpProxy(options: GuardedMcpProxyOptions): Promise<GuardedMcpProxy> {
  const o = parseWith({ schema: OptionsSchema, value: options, what: "guard proxy options" });
  const { policy, engine, logger } = options;
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

  const name = options.name ?? "warden-guard-proxy";
  const version = options.version ?? "0.1.0";
  const client = new Client({ name, version }, { capabilities: {} });
  await client.connect(upstream, timeout ? { timeout } : undefined);

  const upstreamTools = client.getServerCapabilities()?.tools;
  const instructions = client.getInstructions();
  const server = new Server(
    { name, version },
    {
      capabilities: { tools: { listChanged: upstreamTools?.listChanged ?? false } },
      ...(instructions ? { instructions } : {}),
    },
  );

  const history: Step[] = [];
  const stats: GuardedMcpProxyStats = {
    checked: 0,
    forwarded: 0,
    blocked: 0,
    byVerdict: { allow: 0, deny: 0, ask: 0 },
  };

  server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
    try {
      // The list passes through as the upstream sent it: the loose result schema keeps every field.
      return (await client.request(
        { method: "tools/list", ...(request.params ? { params: request.params } : {}) },
        ResultSchema,
        { signal: extra.signal, ...(timeout ? { timeout } : {}) },
      )) as ServerResult;
    } catch (error) {
      throw toMcpError({ error });
    }
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const tool = request.params.name;
    const args = request.params.arguments ?? {};
    const checkedAs = `${o.toolPrefix ?? ""}${tool}`;
    const started = performance.now();
    let decision: Decision;
    try {
      decision = await engine.check({
        policy,
        subject: toolCallSubject({
          tool: checkedAs,
          args,
          ...(o.task !== undefined ? { task: o.task } : {}),
          ...(o.context ? { context: o.context } : {}),
          history,
        }),
        signal: extra.signal,
      });
    } catch (error) {
      // The check itself failed: nothing is forwarded, and the agent gets the mapped error.
      const mcpError = toMcpError({ error });
      logger?.error({ tool: checkedAs, code: mcpError.code, message: mcpError.message }, "check failed");
      throw mcpError;
    }
    stats.checked++;
    stats.byVerdict[decision.verdict]++;
    const forwarded = decision.allowed;
    if (forwarded) stats.forwarded++;
    else stats.blocked++;
    logger?.info(
      {
        tool: checkedAs,
        verdict: decision.verdict,
        rules: decision.violations.map((v) => v.ruleId),
        engine: decision.engine,
        ms: performance.now() - started,
      },
      forwarded ? "forwarded" : "blocked",
    );
    options.onDecision?.({ tool, checkedAs, decision, forwarded });
    if (!forwarded) return blockedCallResult({ tool, decision });

    const step: Step = { action: checkedAs, args };
    history.push(step);
    if (history.length > historyLimit) history.splice(0, history.length - historyLimit);
    try {
      // Task augmentation is not offered downstream, so only the call itself is forwarded.
      const params = {
        name: tool,
        ...(request.params.arguments !== undefined ? { arguments: request.params.arguments } : {}),
        ...(request.params._meta !== undefined ? { _meta: request.params._meta } : {}),
      };
      const result = (await client.request({ method: "tools/call", params }, CallToolResultSchema, {
        signal: extra.signal,
        ...(timeout ? { timeout } : {}),
      })) as CallToolResult;
      step.observation = observationOf(result);
      return result;
    } catch (error) {
      throw toMcpError({ error });
    }
  });

  if (upstreamTools?.listChanged) {
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => server.sendToolListChanged());
  }

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
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
    connect: ({ transport }) => server.connect(transport),
    stats: () => ({ ...stats, byVerdict: { ...stats.byVerdict } }),
    closed,
    close: async () => {
      await close();
    },
  };
}

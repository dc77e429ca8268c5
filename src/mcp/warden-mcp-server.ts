/**
 * Warden as an MCP server: an agent (or its host) asks for guard decisions through two tools.
 *   warden_check     { policy, input, output?, trajectory?, context?, engine? } -> the Decision as
 *                    structured content, plus a one-line summary as text. A deny is an answer, not an error.
 *   warden_policies  {} -> the preloaded policies (names, versions, compiled or not, rule counts).
 * Bad arguments, an unknown policy or an engine without its model are JSON-RPC errors (./mcp-errors.ts).
 * Connect it to any transport: stdio for `warden mcp serve`, in-memory for tests.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  McpError,
  ErrorCode as McpErrorCode,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "pino";
import { z } from "zod";
import { StepSchema, type Subject } from "../core/subject.js";
import { parseWith } from "../core/validate.js";
import { ENGINE_NAMES } from "../runtime/create-engine.js";
import type { GuardService } from "../runtime/guard-service.js";
import { summarizeDecision } from "./decision-summary.js";
import { toMcpError } from "./mcp-errors.js";

export const WardenCheckArgumentsSchema = z
  .object({
    policy: z.string().min(1).describe("Name of a loaded policy (see warden_policies)"),
    input: z.string().describe("What the guarded agent was asked (its input, e.g. identity and question)"),
    output: z
      .string()
      .default("")
      .describe("What the agent did or is about to do: its output log, answer or tool call (JSON or text)"),
    trajectory: z
      .array(StepSchema)
      .optional()
      .describe("The agent's steps so far ({ action, args, url?, ... }); the last step is the one decided"),
    context: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('Structured facts already known, e.g. { "identity": "nursing" } or { "toolCalls": [...] }'),
    engine: z
      .enum(ENGINE_NAMES)
      .optional()
      .describe("Engine to decide with (the server's default when absent)"),
  })
  .strict();
export type WardenCheckArguments = z.input<typeof WardenCheckArgumentsSchema>;

const NoArgumentsSchema = z.object({}).strict();

function inputSchema(schema: z.ZodType): Tool["inputSchema"] {
  const { $schema: _ignored, ...json } = z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
  return json as Tool["inputSchema"];
}

export const WARDEN_TOOLS: readonly Tool[] = [
  {
    name: "warden_check",
    title: "Check an agent's action against a policy",
    description:
      "Ask Warden whether what an agent was asked and did (or is about to do) satisfies a policy. Returns the " +
      "Decision: allowed, verdict (allow | deny | ask), the violated rules with reasons, and the guard-railed " +
      "output. A deny or ask is a normal answer.",
    inputSchema: inputSchema(WardenCheckArgumentsSchema),
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: "warden_policies",
    title: "List Warden's policies",
    description: "The policies this Warden has loaded: name, version, whether compiled, and rule counts.",
    inputSchema: inputSchema(NoArgumentsSchema),
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
];

export interface WardenMcpServerOptions {
  service: GuardService;
  name?: string;
  version?: string;
  /** One line per tool call on this logger (stderr in the CLI); none when absent. */
  logger?: Logger;
}

export function createWardenMcpServer(options: WardenMcpServerOptions): Server {
  const { service, logger } = options;
  const server = new Server(
    { name: options.name ?? "warden", version: options.version ?? "0.1.0" },
    {
      capabilities: { tools: {} },
      instructions:
        "Warden is a guard for agents. Call warden_policies to see the loaded policies, and warden_check " +
        "before an action to learn whether the policy allows it (and which rules it would break).",
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...WARDEN_TOOLS] }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name } = request.params;
    const started = performance.now();
    try {
      if (name === "warden_policies") {
        parseWith({
          schema: NoArgumentsSchema,
          value: request.params.arguments ?? {},
          what: "warden_policies arguments",
        });
        const policies = service.listPolicies();
        const text = policies
          .map(
            (p) =>
              `${p.name} v${p.version}: ${p.compiled ? `compiled, ${p.rules.total} rules` : "not compiled (model engines only)"}`,
          )
          .join("\n");
        return {
          content: [{ type: "text", text: text || "(no policies loaded)" }],
          structuredContent: { policies },
        };
      }
      if (name !== "warden_check") {
        throw new McpError(
          McpErrorCode.InvalidParams,
          `unknown tool ${name}; this server has ${WARDEN_TOOLS.map((t) => t.name).join(" and ")}`,
        );
      }
      const args = parseWith({
        schema: WardenCheckArgumentsSchema,
        value: request.params.arguments ?? {},
        what: "warden_check arguments",
      });
      const subject: Subject = {
        input: args.input,
        output: args.output,
        ...(args.trajectory ? { trajectory: args.trajectory } : {}),
        ...(args.context ? { context: args.context } : {}),
      };
      const decision = await service.check({
        policy: args.policy,
        subject,
        ...(args.engine ? { engine: args.engine } : {}),
        signal: extra.signal,
      });
      logger?.info(
        {
          tool: name,
          policy: args.policy,
          verdict: decision.verdict,
          engine: decision.engine,
          ms: performance.now() - started,
        },
        "tools/call",
      );
      return {
        content: [{ type: "text", text: summarizeDecision({ decision }) }],
        structuredContent: decision as unknown as Record<string, unknown>,
      };
    } catch (error) {
      const mcpError = toMcpError({ error });
      logger?.warn({ tool: name, code: mcpError.code, message: mcpError.message }, "tools/call failed");
      throw mcpError;
    }
  });
  return server;
}

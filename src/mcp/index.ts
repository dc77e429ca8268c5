/**
 * warden/mcp: Warden over the Model Context Protocol.
 *
 * - `createWardenMcpServer({ service })`: an MCP server with the tools `warden_check` (the Decision as
 *   structured content plus a one-line summary) and `warden_policies`; connect it to any transport.
 * - `createGuardedMcpProxy({ upstream, policy, engine })`: relays the whole protocol between an agent and
 *   an upstream MCP server, both ways, and forwards a `tools/call`, `resources/read` or `prompts/get` only
 *   when the policy allows it (the latter two checked as tool calls of those names; `guardContent: false`
 *   forwards them unchecked); a refused tool call is a tool result with `isError: true` explaining the
 *   rules, a refused read or prompt an MCP error. Tools denied outright are left out of `tools/list`.
 * - `serveGuardedMcpProxyHttp({ proxy, port })`: serves a proxy over Streamable HTTP at `/mcp`.
 * - `toMcpError` / `MCP_ERROR_CODE_BY_WARDEN_CODE`: how Warden errors become MCP errors.
 * Build a `service` with `openGuardService` (from configuration) or `createGuardService`.
 */

export { toolCallSubject } from "../core/tool-call.js";
export { createGuardService, type GuardService } from "../runtime/guard-service.js";
export { type GuardServiceOptions, openGuardService } from "../runtime/open-guard-service.js";
export { blockedCallResult, DECISION_META_KEY } from "./blocked-call-result.js";
export { summarizeDecision } from "./decision-summary.js";
export {
  createGuardedMcpProxy,
  type GuardedMcpProxy,
  type GuardedMcpProxyOptions,
  type GuardedMcpProxyStats,
  type StdioUpstream,
} from "./guarded-mcp-proxy.js";
export { MCP_ERROR_CODE_BY_WARDEN_CODE, toMcpError } from "./mcp-errors.js";
export { type GuardedMcpHttpServer, MCP_HTTP_PATH, serveGuardedMcpProxyHttp } from "./serve-http.js";
export {
  createWardenMcpServer,
  WARDEN_TOOLS,
  type WardenCheckArguments,
  WardenCheckArgumentsSchema,
  type WardenMcpServerOptions,
} from "./warden-mcp-server.js";

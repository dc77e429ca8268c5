/**
 * Every route of the HTTP service, described once for its OpenAPI document (./openapi.ts): method, path,
 * what it does, the scopes it needs and its request and response bodies as the zod schemas the routes
 * validate with. create-warden-app.test.ts checks that each route the app registers is listed here, so a
 * route added without its description fails the tests. A feature's routes add their entries here.
 */
import { z } from "zod";
import { DecisionSchema } from "../core/decision.js";
import { CheckRequestSchema, FeedbackRequestSchema, ToolCallRequestSchema } from "./check-request.js";
import { DecideBodySchema } from "./routes/approvals.js";
import {
  OpenSessionRequestSchema,
  SessionSchema,
  SessionStepRequestSchema,
  SessionWithStepsSchema,
} from "./session-request.js";

export interface RouteDoc {
  method: "get" | "post";
  /** Hono's path syntax (`/v1/sessions/:id`). */
  path: string;
  summary: string;
  /** Scopes of which the caller needs one; absent = any authenticated caller. */
  scopes?: readonly string[];
  /** Answered without a key. */
  public?: boolean;
  /** The JSON body, validated with this schema. */
  body?: z.ZodType;
  /** Query parameters and their meaning. */
  query?: Readonly<Record<string, string>>;
  /** The success status (default 200) and its body: a schema, or a media type with a description. */
  status?: number;
  response: z.ZodType | { mediaType: string; description: string };
  /** The schema's name in components.schemas (for body and response). */
  names?: { body?: string; response?: string };
}

const Loose = (shape: z.ZodRawShape) => z.object(shape).loose();

const PolicySummarySchema = Loose({
  name: z.string(),
  version: z.string(),
  description: z.string().optional(),
  compiled: z.boolean().optional(),
});

const AuditEntrySchema = Loose({
  id: z.string(),
  seq: z.number().int(),
  kind: z.enum(["decision", "approval", "checkpoint"]),
  at: z.string(),
  policy: z.string(),
  policyVersion: z.string(),
  engine: z.string(),
  verdict: z.enum(["allow", "deny", "ask", "none"]),
  allowed: z.boolean(),
  rules: z.array(z.string()),
  explanation: z.string(),
  caller: z.string(),
  latencyMs: z.number(),
  subjectDigest: z.string(),
  subject: z.unknown().optional(),
  approvalId: z.string().optional(),
  face: z.string(),
  hash: z.string(),
  prevHash: z.string(),
});

const ApprovalSchema = Loose({
  id: z.string(),
  policy: z.string(),
  status: z.enum(["pending", "approved", "denied", "expired"]),
  subjectDigest: z.string(),
  rules: z.array(z.string()),
  caller: z.string(),
  createdAt: z.string(),
  expiresAt: z.string(),
  decidedBy: z.string().optional(),
  decidedAt: z.string().optional(),
});

const PAGE = (what: string) => ({ mediaType: "text/html", description: what });

export const ROUTE_CATALOG: readonly RouteDoc[] = [
  {
    method: "get",
    path: "/healthz",
    summary: "Liveness: status, number of policies, default engine, uptime.",
    public: true,
    response: Loose({
      status: z.literal("ok"),
      policies: z.number(),
      engine: z.string(),
      uptimeMs: z.number(),
    }),
    names: { response: "Health" },
  },
  {
    method: "post",
    path: "/v1/check",
    summary: "Decide one subject against a preloaded policy. A deny is a 200 Decision with allowed: false.",
    scopes: ["check"],
    body: CheckRequestSchema,
    response: DecisionSchema,
    names: { body: "CheckRequest", response: "Decision" },
  },
  {
    method: "post",
    path: "/v1/check/tool-call",
    summary: "Decide one tool call about to run, with the steps before it as history.",
    scopes: ["check"],
    body: ToolCallRequestSchema,
    response: DecisionSchema,
    names: { body: "ToolCallRequest", response: "Decision" },
  },
  {
    method: "post",
    path: "/v1/feedback",
    summary: "The right label for a check this server decided (stored as a demonstration when it agrees).",
    scopes: ["memory:write"],
    body: FeedbackRequestSchema,
    response: Loose({ stored: z.boolean(), reason: z.string() }),
    names: { body: "FeedbackRequest", response: "FeedbackResult" },
  },
  {
    method: "get",
    path: "/v1/policies",
    summary: "The policies the caller may use: names, versions, whether compiled, rule counts.",
    scopes: ["check", "policies:read"],
    response: z.object({ policies: z.array(PolicySummarySchema) }),
    names: { response: "PolicyList" },
  },
  {
    method: "get",
    path: "/v1/policies/:name",
    summary: "A whole policy document.",
    scopes: ["policies:read"],
    response: { mediaType: "application/json", description: "The policy (see schema/policy.schema.json)." },
  },
  {
    method: "get",
    path: "/v1/stats",
    summary: "Checks served by verdict, policy and engine; errors; model calls.",
    response: z.record(z.string(), z.unknown()),
    names: { response: "Stats" },
  },
  {
    method: "post",
    path: "/v1/sessions",
    summary: "Open a server-side session: its steps are decided one by one against the steps before them.",
    scopes: ["check"],
    body: OpenSessionRequestSchema,
    status: 201,
    response: SessionSchema,
    names: { body: "OpenSessionRequest", response: "Session" },
  },
  {
    method: "post",
    path: "/v1/sessions/:id/steps",
    summary: "Decide the session's next step (tool rules, temporal rules, the shield) and record it.",
    scopes: ["check"],
    body: SessionStepRequestSchema,
    response: DecisionSchema,
    names: { body: "SessionStepRequest", response: "Decision" },
  },
  {
    method: "post",
    path: "/v1/sessions/:id/finish",
    summary: "Finish the session (idempotent); send an empty JSON object.",
    scopes: ["check"],
    response: SessionSchema,
    names: { response: "Session" },
  },
  {
    method: "get",
    path: "/v1/sessions/:id",
    summary: "The session and its decided steps.",
    scopes: ["check"],
    response: SessionWithStepsSchema,
    names: { response: "SessionWithSteps" },
  },
  {
    method: "get",
    path: "/metrics",
    summary: "Prometheus metrics: warden_checks_total{verdict,policy,engine}, latency, model calls, errors.",
    response: { mediaType: "text/plain", description: "Prometheus text exposition format." },
  },
  {
    method: "get",
    path: "/openapi.json",
    summary: "This document.",
    response: { mediaType: "application/json", description: "OpenAPI 3.1 document." },
  },
  {
    method: "get",
    path: "/v1/audit",
    summary: "The audit log, newest first: one hash-chained row per decision, approval or prune checkpoint.",
    scopes: ["audit:read"],
    query: { limit: "rows at most (default 50)", before: "only rows with a smaller seq (the next page)" },
    response: Loose({ entries: z.array(AuditEntrySchema) }),
    names: { response: "AuditPage" },
  },
  {
    method: "get",
    path: "/v1/audit/:id",
    summary: "One audit row, by id or seq.",
    scopes: ["audit:read"],
    response: AuditEntrySchema,
    names: { response: "AuditEntry" },
  },
  {
    method: "get",
    path: "/v1/approvals",
    summary: "Approvals, newest first (pending by default); a caller with only check sees its own.",
    scopes: ["approvals:read", "check"],
    query: {
      status: "pending | approved | denied | expired (default pending)",
      limit: "at most (default 100)",
    },
    response: Loose({ approvals: z.array(ApprovalSchema) }),
    names: { response: "ApprovalList" },
  },
  {
    method: "get",
    path: "/v1/approvals/:id",
    summary: "One approval; with ?wait=ms, answers once it is decided or the time is up (at most 60000).",
    scopes: ["approvals:read", "check"],
    query: { wait: "milliseconds to wait for a decision (0-60000)" },
    response: ApprovalSchema,
    names: { response: "Approval" },
  },
  {
    method: "post",
    path: "/v1/approvals/:id",
    summary: "Approve or deny a pending approval (409 once decided); recorded in the audit log.",
    scopes: ["approvals:write"],
    body: DecideBodySchema,
    response: ApprovalSchema,
    names: { body: "ApprovalDecision", response: "Approval" },
  },
  {
    method: "get",
    path: "/ui",
    summary: "The review page.",
    public: true,
    response: PAGE("The review page."),
  },
  {
    method: "get",
    path: "/ui/",
    summary: "The review page.",
    public: true,
    response: PAGE("The review page."),
  },
  {
    method: "get",
    path: "/ui/app.js",
    summary: "The review page's script.",
    public: true,
    response: { mediaType: "text/javascript", description: "Script." },
  },
  {
    method: "get",
    path: "/ui/app.css",
    summary: "The review page's style sheet.",
    public: true,
    response: { mediaType: "text/css", description: "Style sheet." },
  },
];

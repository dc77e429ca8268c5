/**
 * Every route of the HTTP service, described once for its OpenAPI document (./openapi.ts): method, path,
 * what it does, the scopes it needs and its request and response bodies as the zod schemas the routes
 * validate with. create-warden-app.test.ts checks that each route the app registers is listed here, so a
 * route added without its description fails the tests. A feature's routes add their entries here.
 */
import { z } from "zod";
import { DecisionSchema } from "../core/decision.js";
import { CheckRequestSchema, FeedbackRequestSchema, ToolCallRequestSchema } from "./check-request.js";
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
];

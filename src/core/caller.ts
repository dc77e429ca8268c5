/**
 * Who is asking for a check, and what they are trusted with. The HTTP service learns it from an API key
 * (see the key directory in src/store), the MCP proxy and library callers state it in code. Trust is
 * never inferred from the request itself: a caller that is not trusted with facts cannot tell the guard
 * what the agent did, only the agent's own input and output can.
 */

/** What an API key (or a library caller) may do. */
export const CALLER_SCOPES = [
  /** Ask for checks (every key has it unless its scopes are narrowed). */
  "check",
  /** Supply facts in `subject.context` (resources, code, toolCall/toolCalls) that override extraction. */
  "facts",
  /** Read whole policy documents (GET /v1/policies/:name). */
  "policies:read",
  /** Teach memory: labelled cases from this caller may be stored as demonstrations. */
  "memory:write",
  /** Read the audit log (GET /v1/audit, GET /v1/audit/:id): every decision, and subjects when kept. */
  "audit:read",
  /** See every approval (GET /v1/approvals…); a caller with "check" sees only its own. */
  "approvals:read",
  /** Approve or deny approvals (POST /v1/approvals/:id, the review page's buttons). */
  "approvals:write",
] as const;
export type CallerScope = (typeof CALLER_SCOPES)[number];

export interface Caller {
  /** The key's name, or a fixed name for unauthenticated and in-process callers ("anonymous", "library"). */
  name: string;
  scopes: readonly CallerScope[];
  /** Policies this caller may use; absent = every loaded policy. */
  policies?: readonly string[];
  /** The API key's id (stable across a name reused after a revoke): what owns a server-side session. */
  keyId?: string;
  /** The key's own rate limit in requests per second; absent = the server's default. */
  ratePerSecond?: number;
}

/** What one check may take on trust from its caller. Absent fields are false. */
export interface CheckTrust {
  /** The caller's context facts (resources, code, toolCall/toolCalls) override what extraction finds. */
  contextFacts?: boolean;
}

export function trustOf(options: { caller: Caller }): CheckTrust {
  return { contextFacts: options.caller.scopes.includes("facts") };
}

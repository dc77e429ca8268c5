/**
 * Who is calling the HTTP service. Without API keys every caller is "anonymous" and may only ask for
 * checks (no facts, no policy contents, no memory writes: anything that can reach the port, the guarded
 * agent included, is anonymous). Once the store holds a key, every route but /healthz needs
 * `Authorization: Bearer <key>`, and the key's scopes and policies say what the caller may do.
 */
import type { Caller, CallerScope } from "../core/caller.js";
import { WardenError } from "../core/errors.js";
import type { KeyDirectory } from "../store/key-directory.js";

/** The store's key directory (createKeyDirectory({ store })), or anything that answers the same. */
export type { KeyDirectory };

export interface Authenticator {
  /** The caller behind an `Authorization` header value, or "unauthorized" (answered 401). */
  authenticate(options: { authorization?: string }): Promise<Caller | "unauthorized">;
}

/** The caller of a service without keys; `policies:read` only when the operator exposes policies. */
export function anonymousCaller(options: { exposePolicies?: boolean } = {}): Caller {
  const scopes: CallerScope[] = options.exposePolicies ? ["check", "policies:read"] : ["check"];
  return { name: "anonymous", scopes };
}

/** No keys configured: everyone is the anonymous caller. */
export function openAuthenticator(options: { exposePolicies?: boolean } = {}): Authenticator {
  const caller = anonymousCaller(options);
  return { authenticate: async () => caller };
}

/** The token of a `Bearer <token>` header value; undefined for any other form. */
export function bearerToken(options: { authorization: string }): string | undefined {
  const match = /^Bearer[ ]+([^\s]+)[ ]*$/i.exec(options.authorization);
  return match?.[1];
}

/**
 * Keys from the store's directory. A request without an Authorization header is anonymous only while
 * the directory holds no key (asked per request, so a key created while the service runs closes it at
 * once); a header that is present must name a valid key, keys or not.
 */
export function keyAuthenticator(options: {
  directory: KeyDirectory;
  /** Anonymous callers (no keys yet) may read whole policies. */
  exposePolicies?: boolean;
}): Authenticator {
  const { directory } = options;
  const anonymous = anonymousCaller(options);
  return {
    async authenticate({ authorization }) {
      if (authorization === undefined) return (await directory.hasKeys()) ? "unauthorized" : anonymous;
      const token = bearerToken({ authorization });
      if (token === undefined) return "unauthorized";
      return (await directory.authenticate({ token })) ?? "unauthorized";
    },
  };
}

/** Throws INVALID_INPUT with reason "forbidden" (403) unless the caller holds one of `scopes`. */
export function requireScope(options: {
  caller: Caller;
  scopes: readonly CallerScope[];
  what: string;
}): void {
  const { caller, scopes } = options;
  if (scopes.some((scope) => caller.scopes.includes(scope))) return;
  const needed = scopes.join(" or ");
  throw new WardenError({
    code: "INVALID_INPUT",
    message: `${options.what} needs the scope ${needed}, which caller "${caller.name}" does not have${caller.name === "anonymous" && scopes.includes("policies:read") ? " (without API keys, start the server with --expose-policies to serve policy contents)" : ""}`,
    details: { reason: "forbidden", scope: needed },
  });
}

/** Throws INVALID_INPUT with reason "forbidden" (403) unless the caller may use the policy. */
export function requirePolicy(options: { caller: Caller; policy: string }): void {
  const { caller, policy } = options;
  if (mayUsePolicy(options)) return;
  throw new WardenError({
    code: "INVALID_INPUT",
    message: `caller "${caller.name}" may not use the policy "${policy}"`,
    details: { reason: "forbidden", fields: ["policy"], policy },
  });
}

export function mayUsePolicy(options: { caller: Caller; policy: string }): boolean {
  const { policies } = options.caller;
  return policies === undefined || policies.includes(options.policy);
}

/** The error answered 401 for a missing or invalid key. */
export function unauthorizedError(): WardenError {
  return new WardenError({
    code: "INVALID_INPUT",
    message:
      "this service needs an API key: send Authorization: Bearer <key> (create one with warden keys create)",
    details: { reason: "unauthorized", fields: ["Authorization"] },
  });
}

/**
 * What keeps a web page from driving the service. Browsers let any page send "simple" cross-origin
 * requests (text/plain or form POSTs, no preflight) and only hide the answer; a check has effects even
 * unanswered (model tokens, stats, learned memory). So: a request that a browser marks as coming from a
 * foreign page (an `Origin` the operator did not allow, or `Sec-Fetch-Site: cross-site|same-site` with no
 * Origin) is refused before it runs, POST bodies must be declared `application/json` (which a page cannot
 * send cross-origin without a preflight), and no `Access-Control-*` header is ever sent unless the
 * operator allowed origins with --cors-origin.
 */
import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { WardenError } from "../core/errors.js";

/** Checks `--cors-origin` values: exact `scheme://host[:port]` origins, as browsers send them. */
export function corsOriginsFrom(options: { origins?: readonly string[] }): ReadonlySet<string> {
  const origins = new Set<string>();
  for (const origin of options.origins ?? []) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (!parsed || parsed.origin === "null" || parsed.origin !== origin.replace(/\/$/, "")) {
      throw new WardenError({
        code: "INVALID_INPUT",
        message: `CORS origin "${origin}" is not an origin; expected scheme://host[:port] such as https://console.example.com ("*" is not accepted: name each origin)`,
        details: { fields: ["corsOrigins"] },
      });
    }
    origins.add(parsed.origin);
  }
  return origins;
}

/**
 * Refuses (403, reason "origin-not-allowed") a request a browser sent for a page of a foreign origin.
 * The service's own origin (`self`, from the Host the allow-list already admitted) is not foreign: it
 * is the review page (/ui) calling its own API, and a foreign page cannot make a browser send it (a
 * rebound DNS name arrives with a Host the allow-list refuses).
 */
export function assertSameSiteOrAllowed(options: {
  origin: string | undefined;
  fetchSite: string | undefined;
  allowed: ReadonlySet<string>;
  self?: string;
}): void {
  const { origin, fetchSite, allowed } = options;
  if (
    origin !== undefined
      ? allowed.has(origin) || (options.self !== undefined && origin === options.self)
      : fetchSite !== "cross-site" && fetchSite !== "same-site"
  ) {
    return;
  }
  throw new WardenError({
    code: "INVALID_INPUT",
    message: `requests from web pages of origin "${(origin ?? `(${fetchSite})`).slice(0, 200)}" are not served; the operator can allow an origin with --cors-origin <origin>`,
    details: { reason: "origin-not-allowed", fields: ["Origin"] },
  });
}

/** The CORS headers for the allowed origins, or a pass-through when there are none (CORS stays closed). */
export function corsFor(options: { allowed: ReadonlySet<string> }): MiddlewareHandler {
  const { allowed } = options;
  if (allowed.size === 0) return async (_c, next) => next();
  return cors({
    origin: (origin) => (allowed.has(origin) ? origin : null),
    allowMethods: ["GET", "POST"],
    allowHeaders: ["Authorization", "Content-Type"],
    maxAge: 600,
  });
}

/** `application/json`, with at most a UTF-8 charset parameter. */
export function isJsonContentType(options: { contentType: string | undefined }): boolean {
  const [type, ...params] = (options.contentType ?? "").split(";").map((part) => part.trim().toLowerCase());
  if (type !== "application/json") return false;
  return params.every((param) => param === "" || /^charset="?utf-8"?$/.test(param));
}

/** Throws INVALID_INPUT with reason "unsupported-media-type" (415) unless the body is declared JSON. */
export function assertJsonContentType(options: { contentType: string | undefined }): void {
  if (isJsonContentType(options)) return;
  throw new WardenError({
    code: "INVALID_INPUT",
    message: `the request body must be sent with Content-Type: application/json (optionally ; charset=utf-8); got ${options.contentType === undefined ? "no Content-Type" : `"${options.contentType.slice(0, 100)}"`}`,
    details: { reason: "unsupported-media-type", fields: ["Content-Type"], expected: "application/json" },
  });
}

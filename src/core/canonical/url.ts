/**
 * Canonical forms of URLs, so a condition on the host, registrable domain, port or path compares what a
 * client would actually contact, not how the agent spelled it.
 *
 * The reading is the WHATWG URL parser's (what Node's `fetch` and browsers do): the host IDNA/punycode-
 * and lower-cased, IPv4 shorthands such as `0x7f.1` resolved, userinfo moved out of the way so
 * `http://good.com@evil.com` is evil.com. Where other parsers honestly disagree, each reading is a form:
 * `\` is a separator to WHATWG but a literal (userinfo) character to RFC 3986 parsers
 * (`http://evil.com\@good.com`), a scheme-less `user:pass@host` may be meant as https, and a path is read
 * both as sent and percent-decoded (to a bounded fixpoint). A host that reaches another's address is
 * read as that one too (`hostReadings`). Unparseable input is undetermined.
 */
import { domainToASCII } from "node:url";
import { lazyModule } from "../lazy-module.js";
import { MAX_DECODE_ROUNDS, normalisePosix, percentDecodeOnce } from "./path.js";
import type { Canonical } from "./types.js";

/** tldts (the public-suffix list) is loaded on the first URL a condition reads (core/lazy-module.ts). */
const tldts = lazyModule<typeof import("tldts")>({ specifier: "tldts" });

export interface UrlParts {
  /** The whole URL as WHATWG serialises it, userinfo removed and the host's trailing dot dropped. */
  href: string;
  /** Lower-case, without the colon: "https". */
  scheme: string;
  /** Punycode, lower-case, no trailing dot; IPv6 keeps its brackets; "" when the URL has no host. */
  host: string;
  /** Registrable domain (public-suffix list, ICANN section); the host itself for IPs, localhost, "". */
  domain: string;
  /** Explicit port, else the scheme's default ("443" for https), else "". */
  port: string;
  /** One reading of the path: as sent or percent-decoded, dot segments resolved. */
  path: string;
  /** `user` or `user:password` as written (percent-encoded), "" when absent. */
  userinfo: string;
}

export const MAX_URL_LENGTH = 65_536;

const DEFAULT_PORTS: Readonly<Record<string, string>> = {
  http: "80",
  https: "443",
  ws: "80",
  wss: "443",
  ftp: "21",
};
const SPECIAL_SCHEMES = new Set(["http", "https", "ws", "wss", "ftp", "file"]);
/** Registered schemes that are never a mistyped `user:pass@host`, so they get no https reading. */
const KNOWN_SCHEMES = new Set([
  ...SPECIAL_SCHEMES,
  "mailto",
  "tel",
  "sms",
  "data",
  "javascript",
  "about",
  "blob",
  "urn",
  "news",
]);

/** Every honest reading of `url` as UrlParts, or undetermined. Never throws. */
export function canonicalUrl({ url }: { url: unknown }): Canonical<UrlParts> {
  try {
    return canonicalUrlUnsafe(url);
  } catch (error) {
    // WHATWG serialisation is not idempotent for a few exotic inputs; those are undetermined, not a crash.
    return undetermined(
      `URL cannot be canonicalised: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

function canonicalUrlUnsafe(url: unknown): Canonical<UrlParts> {
  if (typeof url !== "string") return undetermined(`URL is not a string (${typeof url})`);
  if (url.length > MAX_URL_LENGTH) return undetermined(`URL is longer than ${MAX_URL_LENGTH} characters`);
  const text = url.trim();
  if (text === "") return undetermined("URL is empty");
  const main = parse(withScheme(text));
  if (main === undefined) return undetermined("URL cannot be parsed");
  const parsed = [main, ...alternativeReadings(text).flatMap((alt) => parse(alt) ?? [])];
  const forms = new Map<string, UrlParts>();
  for (const reading of parsed) {
    const parts = urlParts(reading);
    if (!parts.ok) return parts;
    for (const form of parts.forms) forms.set(JSON.stringify(form), form);
  }
  return { ok: true, forms: [...forms.values()] };
}

function undetermined(reason: string): { ok: false; reason: string } {
  return { ok: false, reason };
}

function parse(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/**
 * Scheme-less input is read as https: `example.com/x`, `//example.com`, and `host:port` (which WHATWG
 * would otherwise take as a scheme named after the host).
 */
function withScheme(text: string): string {
  if (/^[/\\]{2}/.test(text)) return `https:${text}`;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):(\d*)(?:[/?#]|$)/.exec(text);
  if (scheme !== null && (scheme[1]!.includes(".") || scheme[1]!.toLowerCase() === "localhost")) {
    return `https://${text}`;
  }
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(text)) return text;
  return `https://${text}`;
}

/** Readings other URL parsers would give, beside the WHATWG one. */
function alternativeReadings(text: string): string[] {
  const readings: string[] = [];
  const full = withScheme(text);
  // RFC 3986 parsers take `\` as an ordinary character (so `evil.com\@good.com` has host good.com).
  if (full.includes("\\")) readings.push(full.replaceAll("\\", "%5C"));
  // `user:pass@host` or `name:stuff` with an unknown scheme may be meant as a scheme-less https URL.
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):(?![/\\]{2})/.exec(full);
  if (scheme !== null && !KNOWN_SCHEMES.has(scheme[1]!.toLowerCase())) readings.push(`https://${full}`);
  return readings;
}

function urlParts(url: URL): Canonical<UrlParts> {
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  const host = canonicalHost({ hostname: url.hostname, special: SPECIAL_SCHEMES.has(scheme) });
  if (host === undefined) return undetermined(`URL host "${url.hostname}" is not a valid domain name`);
  const paths = pathReadings({ pathname: url.pathname, hierarchical: url.pathname.startsWith("/") });
  if (!paths.ok) return paths;
  const port = url.port !== "" ? url.port : (DEFAULT_PORTS[scheme] ?? "");
  const userinfo = url.username + (url.password !== "" ? `:${url.password}` : "");
  const forms = hostReadings({ host }).flatMap((reading) => {
    const href = hrefWithout({ url, host: reading });
    const domain = reading === "" ? "" : (tldts().getDomain(reading) ?? reading);
    return paths.forms.map((path) => ({ href, scheme, host: reading, domain, port, userinfo, path }));
  });
  return { ok: true, forms };
}

/** An IPv4-mapped IPv6 address as WHATWG serialises it (`[::ffff:7f00:1]`): its two low groups. */
const IPV4_MAPPED = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/;

/** Hosts that reach this host's loopback services as 127.0.0.1 does (WHATWG-serialised). */
const LOOPBACK_ALIASES = /^(?:0\.0\.0\.0|127\.\d+\.\d+\.\d+|\[::1?\])$/;

/**
 * The host, then each other host a client reaching it reaches: an IPv4-mapped IPv6 address is its IPv4
 * address on a dual-stack socket (`[::ffff:127.0.0.1]` is 127.0.0.1); the rest of 127.0.0.0/8, `[::1]`,
 * and 0.0.0.0 (also written `0`) or `[::]`, which a client on Linux or macOS connects to loopback, are
 * read as 127.0.0.1 (a service listening on every address, or dual-stack, answers on each); a name
 * under `.localhost` is loopback (RFC 6761, as browsers and systemd-resolved resolve it), read as
 * `localhost`. More readings only make a deny catch more and an allow (which needs every reading) give
 * less.
 */
export function hostReadings(options: { host: string }): string[] {
  const readings = [options.host];
  const mapped = IPV4_MAPPED.exec(options.host);
  if (mapped) {
    const high = Number.parseInt(mapped[1] as string, 16);
    const low = Number.parseInt(mapped[2] as string, 16);
    readings.push(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`);
  }
  const last = readings.at(-1) as string;
  if (last !== "127.0.0.1" && LOOPBACK_ALIASES.test(last)) readings.push("127.0.0.1");
  if (options.host.endsWith(".localhost")) readings.push("localhost");
  return readings;
}

/** This host's loopback by its two names: a rule naming one names the other. */
const LOOPBACK_NAMES: Readonly<Record<string, string>> = { localhost: "127.0.0.1", "127.0.0.1": "localhost" };

/** What cannot be in a host alone: a rule's value with these is a URL or a pattern, not a host. */
const NOT_A_HOST = /[/?#@\\\s]/;

/**
 * A host as a rule writes it (`Bücher.DE.`, `2130706433`, `::1`), in the form a URL's host takes
 * (urlParts: IDNA, lower case, IPv4 shorthands resolved, no trailing dot, IPv6 in brackets), then, for
 * localhost or 127.0.0.1, the other name: every other loopback address a URL names reads as 127.0.0.1
 * (hostReadings), so a rule on either name holds for them all. Only those two: a rule on 127.0.0.2 or
 * [::1] names that address alone, so an allow of it allows no other. Empty when the text is not a host
 * alone (a port, a path or userinfo with it, or no valid name).
 */
export function ruleHostForms(options: { host: string }): string[] {
  const text = options.host.trim();
  if (text === "" || text.length > MAX_URL_LENGTH || NOT_A_HOST.test(text)) return [];
  // A bare IPv6 address (`::1`) is a host only in brackets; `name:port` in brackets is no host at all.
  const url = parse(`http://${text.includes(":") && !text.startsWith("[") ? `[${text}]` : text}/`);
  if (url === undefined || url.port !== "" || url.hostname === "") return [];
  const host = canonicalHost({ hostname: url.hostname, special: true });
  if (host === undefined || host === "") return [];
  const other = LOOPBACK_NAMES[host];
  return other === undefined ? [host] : [host, other];
}

/**
 * Special schemes get their host IDNA-mapped by WHATWG already; an opaque host (other schemes) is decoded,
 * lower-cased and IDNA-mapped here. Trailing dots go (`example.com.` is example.com).
 */
function canonicalHost({ hostname, special }: { hostname: string; special: boolean }): string | undefined {
  let host = hostname;
  if (!special && host !== "" && !host.startsWith("[")) {
    const decoded = percentDecodeOnce(host);
    if (decoded === undefined) return undefined;
    const ascii = domainToASCII(decoded);
    if (ascii === "") return undefined;
    host = ascii;
  }
  host = host.toLowerCase().replace(/\.+$/, "");
  return host === "" && hostname !== "" ? undefined : host;
}

/** The href without userinfo and with the canonical host, so equal URLs serialise equally. */
function hrefWithout({ url, host }: { url: URL; host: string }): string {
  const copy = new URL(url.href);
  copy.username = "";
  copy.password = "";
  if (copy.hostname !== host) copy.hostname = host;
  return copy.href;
}

/**
 * The path as sent and every percent-decoded level (fixpoint within MAX_DECODE_ROUNDS), with `\` also read
 * as a separator once decoded; hierarchical paths get `.`/`..` resolved.
 */
function pathReadings({
  pathname,
  hierarchical,
}: {
  pathname: string;
  hierarchical: boolean;
}): Canonical<string> {
  const levels = [pathname];
  for (let round = 0; ; round++) {
    const current = levels[levels.length - 1]!;
    const next = percentDecodeOnce(current);
    if (next === undefined) return undetermined("URL path does not percent-decode to UTF-8");
    if (next === current) break;
    if (round >= MAX_DECODE_ROUNDS) {
      return undetermined(`URL path still changes after ${MAX_DECODE_ROUNDS} rounds of percent-decoding`);
    }
    levels.push(next);
  }
  const readings = new Set<string>();
  for (const level of levels) {
    const variants = level.includes("\\") ? [level, level.replaceAll("\\", "/")] : [level];
    for (const v of variants) readings.add(hierarchical && v.startsWith("/") ? normalisePosix(v) : v);
  }
  return { ok: true, forms: [...readings] };
}

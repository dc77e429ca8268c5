/**
 * The Host allow-list: the defence against DNS rebinding. A web page on attacker.example can make its own
 * name resolve to 127.0.0.1 and then read the service "same-origin"; the one thing it cannot change is
 * the Host header its browser sends (attacker.example). So a request is served only when its Host names
 * this service: a loopback name by default, the address the server is bound to, or a name the operator
 * added (a DNS name behind a proxy). "*" turns the check off, explicitly.
 */
import { WardenError } from "../core/errors.js";

/** Loopback names, with any port. */
export const LOOPBACK_HOSTS: readonly string[] = ["localhost", "127.0.0.1", "[::1]"];

/** Addresses that mean "every interface": binding one of them does not name the service. */
const WILDCARD_ADDRESSES = new Set(["0.0.0.0", "::", "[::]"]);

/** `host[:port]` where host is a name, an IPv4 address or a bracketed IPv6 address. */
const HOST_HEADER = /^(\[[0-9a-fA-F:.]+\]|[^:[\]\s/@]+)(?::(\d{1,5}))?$/;

/** The host name of a Host header value, lower-cased, without port or trailing dot; undefined if malformed. */
export function hostNameOf(options: { host: string }): string | undefined {
  const match = HOST_HEADER.exec(options.host.trim());
  if (!match?.[1]) return undefined;
  return match[1].toLowerCase().replace(/\.$/, "");
}

/** How an allow-list entry or a bound address is written in Host headers: IPv6 in brackets, lower case. */
export function normalizeAllowedHost(options: { name: string }): string {
  const name = options.name.trim().toLowerCase().replace(/\.$/, "");
  if (name.includes(":") && !name.startsWith("[")) return `[${name}]`;
  return name;
}

/**
 * The names a server bound to `boundHost` answers to: the loopback names, the bound address when it is a
 * specific one, and `extra`. Returns "*" when `extra` holds "*" (the check is off).
 */
export function allowedHostsFor(options: {
  boundHost?: string;
  extra?: readonly string[];
}): ReadonlySet<string> | "*" {
  const extra = options.extra ?? [];
  if (extra.some((name) => name.trim() === "*")) return "*";
  const names = new Set(LOOPBACK_HOSTS);
  const bound = options.boundHost ? normalizeAllowedHost({ name: options.boundHost }) : undefined;
  if (bound && !WILDCARD_ADDRESSES.has(bound)) names.add(bound);
  for (const name of extra) {
    const normalized = normalizeAllowedHost({ name });
    if (!hostNameOf({ host: normalized })) {
      throw new WardenError({
        code: "INVALID_INPUT",
        message: `allowed host "${name}" is not a host name or address (e.g. warden.internal, 10.0.0.5, [fd00::1]; "*" allows any)`,
        details: { fields: ["allowedHosts"] },
      });
    }
    names.add(hostNameOf({ host: normalized }) as string);
  }
  return names;
}

/** Throws INVALID_INPUT with reason "host-not-allowed" (403) unless every host given names this service. */
export function assertHostAllowed(options: {
  allowed: ReadonlySet<string> | "*";
  /** The Host header and the host of the request URL (they differ for an absolute-form request target). */
  hosts: readonly (string | undefined)[];
}): void {
  const { allowed } = options;
  if (allowed === "*") return;
  for (const host of options.hosts) {
    const name = host === undefined ? undefined : hostNameOf({ host });
    if (name !== undefined && allowed.has(name)) continue;
    throw new WardenError({
      code: "INVALID_INPUT",
      // The allowed names are not listed: a rebinding page can read this answer.
      message: `this server does not answer to host "${(host ?? "(none)").slice(0, 100)}"; its operator can add a name with --allowed-host <name>`,
      details: { reason: "host-not-allowed", fields: ["Host"] },
    });
  }
}

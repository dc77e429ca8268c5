/**
 * Canonical forms of argument values (paths, URLs, e-mail addresses, shell commands), so conditions
 * compare what a tool would act on, never the raw spelling. `canonicalForKind` is the one entry point for
 * callers that know an argument's kind; the per-kind functions are exported for direct use.
 */
import { canonicalAddresses, type EmailAddress } from "./email.js";
import { canonicalPath } from "./path.js";
import { parseShellCommand, type ShellCommand } from "./shell.js";
import type { ArgKind, Canonical } from "./types.js";
import { canonicalUrl, type UrlParts } from "./url.js";

export * from "./email.js";
export * from "./flag.js";
export * from "./number.js";
export * from "./path.js";
export * from "./pattern-overlap.js";
export * from "./search-glob.js";
export * from "./shell.js";
export * from "./text.js";
export * from "./types.js";
export * from "./url.js";

/** The canonical value each kind yields. */
export interface CanonicalKinds {
  path: string;
  url: UrlParts;
  email: EmailAddress;
  command: ShellCommand;
}

/** Options some kinds use: paths fold case and resolve relative paths against `base`. */
export interface CanonicalForKindOptions {
  caseFold?: boolean;
  base?: string;
}

export const ARG_KINDS: readonly ArgKind[] = ["path", "url", "email", "command"];

/** Canonicalise `value` as an argument of `kind`; an unknown kind or a non-string is undetermined. */
export function canonicalForKind<K extends ArgKind>({
  kind,
  value,
  options = {},
}: {
  kind: K;
  value: unknown;
  options?: CanonicalForKindOptions;
}): Canonical<CanonicalKinds[K]> {
  return dispatch({ kind, value, options }) as Canonical<CanonicalKinds[K]>;
}

function dispatch({
  kind,
  value,
  options,
}: {
  kind: ArgKind;
  value: unknown;
  options: CanonicalForKindOptions;
}): Canonical<CanonicalKinds[ArgKind]> {
  switch (kind) {
    case "path":
      return canonicalPath({ path: value, caseFold: options.caseFold, base: options.base });
    case "url":
      return canonicalUrl({ url: value });
    case "email":
      return canonicalAddresses({ value });
    case "command":
      if (typeof value !== "string")
        return { ok: false, reason: `command is not a string (${typeof value})` };
      return parseShellCommand({ command: value });
    default:
      return { ok: false, reason: `unknown argument kind "${String(kind)}"` };
  }
}

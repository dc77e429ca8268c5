/**
 * Canonical forms of e-mail recipient values: every address an RFC 5322 address list names, so a rule on
 * recipients sees `eve@evil.test` whether it came bare, as `"Bob" <eve@evil.test>`, with a comment, inside
 * a group (`team: a@x.com, eve@evil.test;`), in an Outlook-style `;`-separated list or as one element of
 * an array. Parsing is the `email-addresses` package's (RFC 5322 + RFC 6532 UTF-8); the domain is
 * IDNA-mapped to punycode, and the whole address lower-cased and NFC-normalised. Anything that does not
 * parse is undetermined, so the caller fails closed.
 */
import { domainToASCII } from "node:url";
import { lazyModule } from "../lazy-module.js";
import type { Canonical } from "./types.js";

/** The RFC 5322 parser, loaded on the first address a condition reads (core/lazy-module.ts). */
const emailAddresses = lazyModule<typeof import("email-addresses")>({ specifier: "email-addresses" });

export interface EmailAddress {
  /** `local@domain`, canonical: lower-case, punycode domain, local part quoted only when it must be. */
  address: string;
  local: string;
  domain: string;
}

/** Longer inputs are undetermined: the parser backtracks, and no recipient field is this long. */
export const MAX_ADDRESS_LIST_LENGTH = 8_192;
/** One address with its display name and comments (an addr-spec alone is at most 254 characters). */
export const MAX_ADDRESS_LENGTH = 512;

/**
 * Every address in `value` (a string holding an address list, or an array of such strings). An empty
 * string or array names no address: `forms` is empty. Never throws.
 */
export function canonicalAddresses({ value }: { value: unknown }): Canonical<EmailAddress> {
  try {
    const lists = typeof value === "string" ? [value] : value;
    if (!Array.isArray(lists))
      return undetermined(`e-mail value is not a string or an array (${typeof value})`);
    const forms = new Map<string, EmailAddress>();
    for (const list of lists) {
      const parsed = parseList(list);
      if (!parsed.ok) return parsed;
      for (const address of parsed.forms) forms.set(address.address, address);
    }
    return { ok: true, forms: [...forms.values()] };
  } catch (error) {
    return undetermined(
      `e-mail value cannot be parsed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

function undetermined(reason: string): { ok: false; reason: string } {
  return { ok: false, reason };
}

function parseList(list: unknown): Canonical<EmailAddress> {
  if (typeof list !== "string") return undetermined(`e-mail list element is not a string (${typeof list})`);
  if (list.length > MAX_ADDRESS_LIST_LENGTH) {
    return undetermined(`e-mail list is longer than ${MAX_ADDRESS_LIST_LENGTH} characters`);
  }
  if (list.trim() === "") return { ok: true, forms: [] };
  const forms: EmailAddress[] = [];
  for (const piece of splitAddressList(list)) {
    const parsed = parsePiece(piece);
    if (!parsed.ok) return parsed;
    forms.push(...parsed.forms);
  }
  return { ok: true, forms };
}

function parsePiece(piece: string): Canonical<EmailAddress> {
  if (piece.length > MAX_ADDRESS_LENGTH) {
    return undetermined(`one address is longer than ${MAX_ADDRESS_LENGTH} characters`);
  }
  const parsed = emailAddresses().parseAddressList({ input: piece, rfc6532: true });
  if (parsed === null) return undetermined(`"${preview(piece)}" is not an RFC 5322 address`);
  const forms: EmailAddress[] = [];
  for (const entry of parsed) {
    const mailboxes = entry.type === "group" ? entry.addresses : [entry];
    for (const mailbox of mailboxes) {
      const address = canonicalMailbox({ local: mailbox.local, domain: mailbox.domain });
      if (address === undefined) return undetermined(`"${preview(mailbox.address)}" has no valid domain`);
      forms.push(address);
    }
  }
  return { ok: true, forms };
}

function preview(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

/** A dot-atom local part needs no quoting; anything else is written as a quoted string. */
const DOT_ATOM =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~\u0080-\uFFFF-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~\u0080-\uFFFF-]+)*$/;

function canonicalMailbox({ local, domain }: { local: string; domain: string }): EmailAddress | undefined {
  const canonicalDomainName = canonicalEmailDomain({ domain });
  if (canonicalDomainName === undefined) return undefined;
  const canonicalLocal = canonicalLocalPart({ local });
  return {
    address: `${canonicalLocal}@${canonicalDomainName}`,
    local: canonicalLocal,
    domain: canonicalDomainName,
  };
}

/**
 * A local part as EmailAddress holds it. Local parts are case-insensitive at practically every mail
 * system; one lower-case form means a rule written as `bob@x.com` also sees `Bob@x.com`.
 */
export function canonicalLocalPart({ local }: { local: string }): string {
  const plain = local.normalize("NFC").toLowerCase();
  return DOT_ATOM.test(plain) ? plain : `"${plain.replace(/["\\]/g, "\\$&")}"`;
}

/** A domain as EmailAddress holds it (punycode, lower case, no trailing dot), or undefined for none. */
export function canonicalEmailDomain({ domain }: { domain: string }): string | undefined {
  if (domain.startsWith("[")) return domain.toLowerCase(); // a domain literal such as [192.0.2.1]
  const ascii = domainToASCII(domain.normalize("NFC"));
  if (ascii === "") return undefined;
  return ascii.toLowerCase().replace(/\.+$/, "");
}

/**
 * Split an address list into its addresses (a group stays one piece) at every `,` and `;` outside quotes,
 * comments, domain literals and angle brackets, except the `;` that ends a group. Outlook-style lists
 * separate addresses with `;`, which RFC 5322 reserves for ending a group; the set of addresses named is
 * the same however that is read, which is all the forms record. Parsing piece by piece also keeps the
 * backtracking parser's cost linear in the length of the list.
 */
export function splitAddressList(text: string): string[] {
  const state = { quoted: false, comment: 0, literal: false, angle: false, group: false };
  const pieces: string[] = [];
  let current = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if ((state.quoted || state.comment > 0 || state.literal) && c === "\\") {
      current += c + (text[i + 1] ?? "");
      i++;
      continue;
    }
    const action = step({ c, state });
    if (action !== "split") current += c;
    if (action !== "keep") {
      pieces.push(current);
      current = "";
    }
  }
  pieces.push(current);
  return pieces.filter((piece) => piece.trim() !== "");
}

type SplitState = { quoted: boolean; comment: number; literal: boolean; angle: boolean; group: boolean };

/** "keep" the character, "split" here (dropping it), or keep it and "end" the piece (a group's `;`). */
function step({ c, state }: { c: string; state: SplitState }): "keep" | "split" | "end" {
  if (state.quoted) {
    if (c === '"') state.quoted = false;
  } else if (state.comment > 0) {
    if (c === "(") state.comment++;
    else if (c === ")") state.comment--;
  } else if (state.literal) {
    if (c === "]") state.literal = false;
  } else if (c === '"') state.quoted = true;
  else if (c === "(") state.comment = 1;
  else if (c === "[") state.literal = true;
  else if (c === "<") state.angle = true;
  else if (c === ">") state.angle = false;
  else if (c === ":" && !state.angle) state.group = true;
  else if ((c === "," || c === ";") && !state.angle) {
    if (c === ";" && state.group) {
      state.group = false;
      return "end";
    }
    return state.group ? "keep" : "split";
  }
  return "keep";
}

/**
 * Shared result type of every canonicaliser in this folder.
 *
 * Warden compares canonical forms, never raw strings. A value that can honestly be read in more than one
 * way (percent-decoded or literal, NFC or not, `\` as a separator or a literal) yields every reading as a
 * form, and the conditions resolve them the strict way. A value that cannot be canonicalised at all is
 * `ok: false` ("undetermined") and fails closed.
 */

/** The result of a canonicaliser: every honest reading, or undetermined with a reason. */
export type Canonical<T> = { ok: true; forms: T[] } | { ok: false; reason: string };

/** The kinds of argument value Warden canonicalises. */
export type ArgKind = "path" | "url" | "email" | "command";

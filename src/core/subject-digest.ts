/**
 * The identity of a question put to the guard: sha256 (hex) of the canonical JSON of what was checked
 * (keys sorted at every level, so equal questions hash equally however their keys were ordered). An
 * approval is reused only by a re-check with the same digest; the audit log records it instead of the
 * subject itself.
 */
import { hash } from "node:crypto";
import { stableStringify } from "../util/stable-json.js";

export function subjectDigest(options: { subject: unknown }): string {
  return digestOfCanonical({ canonical: canonicalSubject({ subject: options.subject }) });
}

/** The canonical JSON a digest is taken of ("null" for a value JSON cannot express). */
export function canonicalSubject(options: { subject: unknown }): string {
  return stableStringify({ value: options.subject }) ?? "null";
}

/** The digest of a canonical text canonicalSubject returned (for a caller that needs the text too). */
export function digestOfCanonical(options: { canonical: string }): string {
  // One-shot (crypto.hash): a Hash object per decision cost more than hashing its few hundred bytes.
  return hash("sha256", options.canonical, "hex");
}

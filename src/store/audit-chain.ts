/**
 * The audit log's hash chain, written once for both backends and for `warden audit verify`. Each row's
 * hash is SHA-256 over the previous row's hash, a newline, and the row's canonical JSON (every field but
 * the two hashes, keys sorted, absent fields left out). The head record (Store.auditHead) keeps the last
 * position and hash apart from the rows, and the base the last prune left, so verify catches an edited,
 * deleted, reordered or inserted row anywhere — the newest included — and names the first bad one.
 *
 * What it cannot catch: someone who can write to the database and recomputes every hash after the row
 * they changed, and the head with them (the chain holds no secret). Keep a copy of the head elsewhere
 * (`warden audit head` prints it as `<seq>:<hash>`; `warden audit verify --anchor <seq>:<hash>` checks that
 * the row at that position still has that hash) to catch that too.
 */
import { hash } from "node:crypto";
import { canonicalValue } from "../util/stable-json.js";
import type { AuditEntry, AuditHead, Store } from "./store.js";

/** The prevHash of the first row ever written. */
export const AUDIT_GENESIS_HASH = "0".repeat(64);

/**
 * The row as hashed: everything but hash and prevHash, as canonical JSON (stable-json.ts). The literal
 * lists the keys in sorted order and its fields are strings, numbers and booleans but for rules and
 * subject, which go through canonicalValue: so JSON.stringify prints stableStringify's text, without
 * stableStringify's walk over the seventeen keys (a row is hashed for every decision).
 */
export function canonicalAuditRow(options: { entry: Omit<AuditEntry, "hash" | "prevHash"> }): string {
  const { entry } = options;
  return JSON.stringify({
    allowed: entry.allowed,
    approvalId: entry.approvalId,
    at: entry.at,
    caller: entry.caller,
    engine: entry.engine,
    explanation: entry.explanation,
    face: entry.face,
    id: entry.id,
    kind: entry.kind,
    latencyMs: entry.latencyMs,
    policy: entry.policy,
    policyVersion: entry.policyVersion,
    rules: canonicalValue({ value: entry.rules }),
    seq: entry.seq,
    subject: canonicalValue({ value: entry.subject }),
    subjectDigest: entry.subjectDigest,
    verdict: entry.verdict,
  });
}

/** SHA-256 (hex) over the previous row's hash, a newline and the row's canonical JSON. */
export function auditRowHash(options: {
  prevHash: string;
  entry: Omit<AuditEntry, "hash" | "prevHash">;
}): string {
  // The one-shot digest (crypto.hash, Node 20.12+): a Hash object per row cost more than the hashing.
  return hash("sha256", `${options.prevHash}\n${canonicalAuditRow({ entry: options.entry })}`, "hex");
}

/** The first thing wrong with the chain. */
export interface AuditProblem {
  /** The position where the chain breaks (the first bad row, or where a row is missing). */
  seq: number;
  /** The id of the row at that position, when there is one. */
  id?: string;
  reason: string;
}

export interface AuditVerification {
  ok: boolean;
  /** Rows checked. */
  rows: number;
  head: AuditHead;
  problem?: AuditProblem;
}

/**
 * Why a row's content does not match its hash. Canonical JSON before 877010a (2026-11-26) left an own
 * "__proto__" key out of every object it sorted, so a row holding one may have been hashed without it:
 * the chain cannot vouch for that key either way, and the reason says so rather than only "edited".
 */
function mismatchReason(options: { entry: Omit<AuditEntry, "hash" | "prevHash"> }): string {
  const { rules, subject } = options.entry;
  return holdsOwnProtoKey({ value: [rules, subject] })
    ? 'its content does not match its hash: the row was edited, or it holds an own "__proto__" key, which versions before 877010a (2026-11-26) left out of the hash, so the chain cannot vouch for that key'
    : "its content does not match its hash (the row was edited)";
}

/** Whether any object in `value` has an own "__proto__" key (walked with a stack: no depth limit). */
function holdsOwnProtoKey(options: { value: unknown }): boolean {
  const pending: unknown[] = [options.value];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value !== "object" || value === null) continue;
    if (!Array.isArray(value) && Object.hasOwn(value, "__proto__")) return true;
    for (const child of Object.values(value)) pending.push(child);
  }
  return false;
}

/** Rows read per round trip while verifying. */
const VERIFY_BATCH = 1000;

/**
 * Walks the chain from its base to its head and reports the first break: a missing or extra position,
 * a row whose prevHash is not its predecessor's hash, a row whose content does not match its hash, a
 * head that does not match the last row, or a row differing from `anchor`.
 */
export async function verifyAuditChain(options: {
  store: Store;
  /** A position and hash recorded earlier (e.g. a copy of the head kept elsewhere). */
  anchor?: { seq: number; hash: string };
}): Promise<AuditVerification> {
  const { store } = options;
  const head = await store.auditHead();
  let prev = head.baseHash;
  let expected = head.baseSeq + 1;
  let rows = 0;
  const fail = (problem: AuditProblem): AuditVerification => ({ ok: false, rows, head, problem });
  for (;;) {
    const batch = await store.readAuditChain({ after: expected - 1, limit: VERIFY_BATCH });
    if (batch.length === 0) break;
    for (const row of batch) {
      if (row.seq !== expected) {
        return fail({
          seq: expected,
          reason: `row ${expected} is missing (next present is ${row.seq}, id ${row.id})`,
        });
      }
      if (row.prevHash !== prev) {
        return fail({
          seq: row.seq,
          id: row.id,
          reason:
            "its prevHash is not the previous row's hash (a row before it was removed, inserted or reordered)",
        });
      }
      const { hash, prevHash: _prev, ...content } = row;
      if (auditRowHash({ prevHash: prev, entry: content }) !== hash) {
        return fail({ seq: row.seq, id: row.id, reason: mismatchReason({ entry: content }) });
      }
      if (options.anchor && options.anchor.seq === row.seq && options.anchor.hash !== hash) {
        return fail({
          seq: row.seq,
          id: row.id,
          reason: `its hash differs from the anchor ${options.anchor.hash}`,
        });
      }
      prev = hash;
      expected += 1;
      rows += 1;
    }
  }
  const last = expected - 1;
  if (last < head.headSeq) {
    return fail({
      seq: last + 1,
      reason: `rows ${last + 1}..${head.headSeq} are missing (the head says the chain ends at ${head.headSeq})`,
    });
  }
  if (last > head.headSeq) {
    return fail({
      seq: head.headSeq + 1,
      reason: `rows after the head (${head.headSeq}) were added outside the log`,
    });
  }
  if (prev !== head.headHash) {
    return fail({ seq: last, reason: "the last row's hash differs from the head record" });
  }
  if (head.baseSeq > 0 && rows === 0) {
    return fail({ seq: head.baseSeq, reason: "the chain was pruned but its checkpoint row is missing" });
  }
  const { anchor } = options;
  if (anchor && anchor.seq > head.headSeq) {
    return fail({
      seq: anchor.seq,
      reason: `the anchor's row ${anchor.seq} is past the head (${head.headSeq}): rows were removed`,
    });
  }
  if (
    anchor &&
    anchor.seq <= head.baseSeq &&
    !(anchor.seq === head.baseSeq && anchor.hash === head.baseHash)
  ) {
    return fail({
      seq: anchor.seq,
      reason: `the anchor's row ${anchor.seq} was pruned and the base does not vouch for it`,
    });
  }
  return { ok: true, rows, head };
}

/**
 * A deduplicating collection of predicates for an importer: the same binding added from many policies
 * is one predicate. Names are stable and descriptive — a slug of what the predicate tests plus a short
 * hash of its binding (so two different bindings with the same slug never collide, and a predicate keeps
 * its name however the policies around it change); fixed predicates may opt out of the hash.
 */
import { createHash } from "node:crypto";
import { WardenError } from "../../../core/errors.js";
import type { Binding, Predicate } from "../../../core/policy.js";
import { stableStringify } from "../../../util/stable-json.js";

export interface PredicateSpec {
  /** Descriptive stem, e.g. "clicks_text_delete_remove" (slugged and shortened here). */
  stem: string;
  kind: "action" | "state";
  description: string;
  binding: Binding;
  /** false for fixed predicates whose stem alone is unique (e.g. "final_answer"). */
  hashed?: boolean;
  source?: string;
  meta?: Record<string, unknown>;
}

export interface PredicateSet {
  /** Adds (or finds) the predicate and returns its name. */
  add(spec: PredicateSpec): string;
  /** Every predicate, sorted by name. */
  list(): Predicate[];
  has(name: string): boolean;
  get(name: string): Predicate | undefined;
}

/** Lower-case identifier slug of free text, at most `max` characters. */
export function slug(options: { text: string; max?: number }): string {
  const max = options.max ?? 40;
  const s = options.text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  const cut = s.length > max ? s.slice(0, max).replace(/_+[^_]*$/, "") || s.slice(0, max) : s;
  const out = cut.replace(/_+$/g, "");
  return /^[a-z_]/.test(out) ? out : `p_${out}`;
}

function hashOf(text: string, length: number): string {
  return createHash("sha256").update(text).digest("hex").slice(0, length);
}

export function createPredicateSet(): PredicateSet {
  const byKey = new Map<string, string>();
  const byName = new Map<string, Predicate>();
  return {
    add(spec) {
      const key = stableStringify({ value: { kind: spec.kind, binding: spec.binding } });
      const existing = byKey.get(key);
      if (existing) return existing;
      const stem = slug({ text: spec.stem, max: 48 });
      let name = spec.hashed === false ? stem : `${stem}_${hashOf(key, 6)}`;
      if (byName.has(name)) {
        if (spec.hashed === false) {
          throw new WardenError({
            code: "INTERNAL",
            message: `two different bindings were given the fixed predicate name '${name}'`,
          });
        }
        name = `${stem}_${hashOf(key, 12)}`;
      }
      const predicate: Predicate = {
        name,
        kind: spec.kind,
        description: spec.description,
        binding: spec.binding,
        ...(spec.source ? { source: spec.source } : {}),
        ...(spec.meta ? { meta: spec.meta } : {}),
      };
      byKey.set(key, name);
      byName.set(name, predicate);
      return name;
    },
    list() {
      return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },
    has: (name) => byName.has(name),
    get: (name) => byName.get(name),
  };
}

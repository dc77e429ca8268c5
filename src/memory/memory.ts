/**
 * GuardAgent's memory for one policy (paper §4.2, App. K): the demonstrations D = [I_i, I_o, P, C] kept in
 * a Store, retrieved k at a time by Levenshtein distance (most or least similar) through the exact index,
 * seeded from user files, and grown by learning according to a stated mode.
 *
 * The store is read lazily, on the first call that needs it. Seeding and learning are idempotent by
 * content (see store/content-hash.ts), across instances too: each insert is the store's atomic
 * addDemonstrationOnce, so Warden instances sharing one database (PostgreSQL, or one SQLite file) that
 * seed or learn the same content at once store it once. Each instance still keeps its own index, read on
 * first use and then grown by its own inserts (plus any content another instance turned out to have
 * stored first): call refresh() to see everything other instances added since.
 */
import { z } from "zod";
import { WardenError } from "../core/errors.js";
import { parseWith } from "../core/validate.js";
import { demonstrationContentHash } from "../store/content-hash.js";
import type { Demonstration, DemonstrationOrigin, Store } from "../store/store.js";
import { type DemonstrationInput, DemonstrationInputSchema } from "./demonstration-input.js";
import type { RetrievalOrder } from "./retrieval.js";
import { createRetrievalIndex, type RetrievalIndex } from "./retrieval-index.js";

/**
 * When the memory appends a case:
 * - "off": never (a fixed memory, e.g. to measure the seed demonstrations alone);
 * - "successful": every case whose guardrail code ran (the paper's "memory grows with successful cases";
 *   call remember only for such cases);
 * - "correct-only": only cases judged correct against a label (`correct: true`), the benchmark setting.
 */
export type LearningMode = "off" | "successful" | "correct-only";

/** A demonstration handed to seed or remember; meta is any JSON object (checked at runtime). */
export type MemoryDemonstrationInput = Omit<DemonstrationInput, "meta"> & { meta?: Record<string, unknown> };

export interface RetrievedDemonstration {
  demonstration: Demonstration;
  distance: number;
}

export interface Memory {
  readonly policy: string;
  readonly learn: LearningMode;
  /** Adds demonstrations not already present (by content); returns what was added and how many were skipped. */
  seed(options: {
    demonstrations: readonly MemoryDemonstrationInput[];
    origin?: DemonstrationOrigin;
  }): Promise<{ added: Demonstration[]; skipped: number }>;
  /** The k demonstrations nearest to (input, output) — or farthest with order "least" — with distances. */
  retrieve(options: {
    input: string;
    output: string;
    k: number;
    order?: RetrievalOrder;
  }): Promise<RetrievedDemonstration[]>;
  /** Appends a case if the learning mode allows it and it is new; returns whether it was stored. */
  remember(options: {
    demonstration: MemoryDemonstrationInput & { policy?: string; origin?: DemonstrationOrigin };
    correct?: boolean;
  }): Promise<boolean>;
  /** One line stating the learning mode, for reports. */
  describeLearning(): string;
  /** Every demonstration of the policy, in insertion order. */
  list(): Promise<Demonstration[]>;
  count(): Promise<number>;
  /** Re-reads the store (to see demonstrations other instances added). */
  refresh(): Promise<void>;
}

const LEARNING_DESCRIPTIONS: Record<LearningMode, string> = {
  off: "memory is fixed: no case is appended (learning off)",
  successful:
    "memory appends every case whose guardrail code ran (paper's description of GuardAgent's memory)",
  "correct-only": "memory appends only cases judged correct against the label (paper's benchmark setting)",
};

export function describeLearningMode(options: { learn: LearningMode }): string {
  return LEARNING_DESCRIPTIONS[options.learn];
}

const OptionsSchema = z.object({
  policy: z.string().min(1, "must not be empty"),
  learn: z.enum(["off", "successful", "correct-only"]).optional(),
});

const RememberSchema = DemonstrationInputSchema.extend({
  policy: z.string().optional(),
  origin: z.enum(["seed", "user", "learned"]).optional(),
}).strip();

/** The memory of `policy` in `store`; `learn` defaults to "successful", as in the GuardAgent engine. */
export function createMemory(options: { store: Store; policy: string; learn?: LearningMode }): Memory {
  const { policy, learn = "successful" } = parseWith({
    schema: OptionsSchema,
    value: { policy: options.policy, learn: options.learn },
    what: "memory options",
  });
  const { store } = options;

  interface State {
    index: RetrievalIndex<Demonstration>;
    hashes: Set<string>;
    items: Demonstration[];
  }
  let loading: Promise<State> | undefined;
  // Writes run one at a time so that two concurrent seeds of the same content cannot both pass the check.
  let writes: Promise<unknown> = Promise.resolve();

  const load = async (): Promise<State> => {
    const items = await store.listDemonstrations({ policy });
    return {
      index: createRetrievalIndex<Demonstration>({ items }),
      hashes: new Set(items.map((demonstration) => demonstrationContentHash({ demonstration }))),
      items: items.slice(),
    };
  };
  const state = (): Promise<State> => {
    if (!loading) {
      const attempt = load();
      loading = attempt;
      // A failed load is retried by the next call rather than cached.
      attempt.catch(() => {
        if (loading === attempt) loading = undefined;
      });
    }
    return loading;
  };
  const serialized = <T>(run: () => Promise<T>): Promise<T> => {
    const next = writes.then(run, run);
    writes = next.catch(() => undefined);
    return next;
  };
  /** Stores `input` unless its content is known (here or, atomically, in the store); returns what was added. */
  const insert = async (
    s: State,
    input: DemonstrationInput,
    origin: DemonstrationOrigin,
  ): Promise<Demonstration | undefined> => {
    const hash = demonstrationContentHash({ demonstration: input });
    // Local fast path: content this instance already holds needs no round trip.
    if (s.hashes.has(hash)) return undefined;
    const { demonstration: stored, added } = await store.addDemonstrationOnce({
      demonstration: {
        policy,
        input: input.input,
        output: input.output,
        plan: input.plan,
        code: input.code,
        origin,
        ...(input.id !== undefined ? { id: input.id } : {}),
        ...(input.label !== undefined ? { label: input.label } : {}),
        ...(input.meta !== undefined ? { meta: input.meta } : {}),
      },
    });
    // Either way the content is now stored; when another instance stored it first, take its record in so
    // this instance retrieves it too, and count the input as skipped.
    s.hashes.add(hash);
    addItem(s, stored);
    return added ? stored : undefined;
  };
  const addItem = (s: State, item: Demonstration): void => {
    // Keep items in seq order (list() promises insertion order); another instance's record may be older.
    let at = s.items.length;
    while (at > 0 && (s.items[at - 1] as Demonstration).seq > item.seq) at--;
    s.items.splice(at, 0, item);
    s.index.add({ items: [item] });
  };

  return {
    policy,
    learn,

    seed: (o) =>
      serialized(async () => {
        const origin = parseWith({
          schema: z.enum(["seed", "user", "learned"]).optional(),
          value: o.origin,
          what: "seed options",
          path: "origin",
        });
        const inputs = parseWith({
          schema: z.array(DemonstrationInputSchema),
          value: o.demonstrations,
          what: "demonstrations to seed",
          path: "demonstrations",
        });
        const s = await state();
        const added: Demonstration[] = [];
        let skipped = 0;
        for (const input of inputs) {
          const stored = await insert(s, input, origin ?? "seed");
          if (stored) added.push(stored);
          else skipped++;
        }
        return { added, skipped };
      }),

    async retrieve(o) {
      const s = await state();
      // The index validates input, output, k and order and names the offending field.
      const hits = s.index.query({ input: o.input, output: o.output, k: o.k, order: o.order ?? "most" });
      return hits.map((hit) => ({ demonstration: hit.item, distance: hit.distance }));
    },

    remember: (o) =>
      serialized(async () => {
        const parsed = parseWith({
          schema: RememberSchema,
          value: o.demonstration,
          what: "demonstration to remember",
          path: "demonstration",
        });
        const correct = parseWith({
          schema: z.boolean().optional(),
          value: o.correct,
          what: "remember options",
          path: "correct",
        });
        if (parsed.policy !== undefined && parsed.policy !== policy) {
          throw new WardenError({
            code: "INVALID_INPUT",
            message: `Invalid demonstration to remember: demonstration.policy: "${parsed.policy}" is not this memory's policy "${policy}"`,
            details: { fields: ["demonstration.policy"] },
          });
        }
        if (learn === "off") return false;
        if (learn === "correct-only" && correct !== true) return false;
        const { policy: _policy, origin, ...input } = parsed;
        const s = await state();
        return (await insert(s, input, origin ?? "learned")) !== undefined;
      }),

    describeLearning: () => describeLearningMode({ learn }),

    async list() {
      return (await state()).items.slice();
    },

    async count() {
      return (await state()).items.length;
    },

    refresh: () =>
      serialized(async () => {
        loading = undefined;
        await state();
      }),
  };
}

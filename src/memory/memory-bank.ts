/**
 * Memories of every policy over one Store, each policy's kept apart: the shape the GuardAgent engine
 * consumes (retrieve and remember take the policy name). Each policy's Memory is created on first use and
 * shares the bank's learning mode.
 *
 * Learned writes are counted, and a failed one is counted, reported to `onWriteError` (the service logs
 * it) and rethrown: the engine that learns keeps its decision, but the failure is never silent
 * (`writeStats`, surfaced in the service's stats).
 */
import { z } from "zod";
import { parseWith } from "../core/validate.js";
import type { Demonstration, DemonstrationOrigin, Store } from "../store/store.js";
import {
  createMemory,
  describeLearningMode,
  type LearningMode,
  type Memory,
  type MemoryDemonstrationInput,
} from "./memory.js";
import type { RetrievalOrder } from "./retrieval.js";

export interface MemoryBank {
  readonly learn: LearningMode;
  /** The memory of one policy (created on first use). */
  forPolicy(options: { policy: string }): Memory;
  retrieve(options: {
    policy: string;
    input: string;
    output: string;
    k: number;
    order: RetrievalOrder;
  }): Promise<Demonstration[]>;
  /** Appends a case to its policy's memory when the learning mode allows; returns whether it was stored. */
  remember(options: {
    demonstration: MemoryDemonstrationInput & { policy: string; origin?: DemonstrationOrigin };
    correct?: boolean;
  }): Promise<boolean>;
  describeLearning(): string;
  /** Cases stored by `remember`, failed writes and the last failure's message. */
  writeStats(): MemoryWriteStats;
}

export interface MemoryWriteStats {
  /** Cases `remember` stored. */
  writes: number;
  /** `remember` calls that failed (the store threw). */
  writeErrors: number;
  /** The last failure, in words; null before the first. */
  lastError: string | null;
}

const PolicyName = z.string().min(1, "must not be empty");

/** Memories of every policy in `store`, sharing one learning mode (default "successful"). */
export function createMemoryBank(options: {
  store: Store;
  learn?: LearningMode;
  /** Told of every failed write (the error is also rethrown to the caller of `remember`). */
  onWriteError?: (options: { error: unknown; policy: string }) => void;
}): MemoryBank {
  const learn =
    parseWith({
      schema: z.enum(["off", "successful", "correct-only"]).optional(),
      value: options.learn,
      what: "memory bank options",
      path: "learn",
    }) ?? "successful";
  const memories = new Map<string, Memory>();
  const counts: MemoryWriteStats = { writes: 0, writeErrors: 0, lastError: null };
  const forPolicy = ({ policy }: { policy: string }): Memory => {
    const name = parseWith({
      schema: PolicyName,
      value: policy,
      what: "memory bank argument",
      path: "policy",
    });
    let memory = memories.get(name);
    if (!memory) {
      memory = createMemory({ store: options.store, policy: name, learn });
      memories.set(name, memory);
    }
    return memory;
  };
  return {
    learn,
    forPolicy,
    async retrieve({ policy, ...query }) {
      const hits = await forPolicy({ policy }).retrieve(query);
      return hits.map((hit) => hit.demonstration);
    },
    async remember({ demonstration, correct }) {
      const policy = parseWith({
        schema: PolicyName,
        value: (demonstration as { policy?: unknown } | undefined)?.policy,
        what: "demonstration to remember",
        path: "demonstration.policy",
      });
      try {
        const stored = await forPolicy({ policy }).remember({
          demonstration,
          ...(correct === undefined ? {} : { correct }),
        });
        if (stored) counts.writes++;
        return stored;
      } catch (error) {
        counts.writeErrors++;
        counts.lastError = error instanceof Error ? error.message : String(error);
        options.onWriteError?.({ error, policy });
        throw error;
      }
    },
    describeLearning: () => describeLearningMode({ learn }),
    writeStats: () => ({ ...counts }),
  };
}

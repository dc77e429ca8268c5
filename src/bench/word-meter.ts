/**
 * Counts the words of every prompt a check sends (the paper's Table 9), attributing calls to the check
 * that made them even when checks run concurrently.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { GenerateObjectOptions, GenerateTextOptions, ModelClient } from "../llm/model.js";

const words = (text: string | undefined) => (text ? text.split(/\s+/).filter((w) => w !== "").length : 0);

function promptWords(o: GenerateTextOptions): number {
  return words(o.system) + words(o.prompt) + (o.messages ?? []).reduce((n, m) => n + words(m.content), 0);
}

export interface WordMeter {
  model: ModelClient;
  /** Runs `fn`, returning its result and the prompt words its model calls used. */
  measure<T>(fn: () => Promise<T>): Promise<{ result: T; words: number }>;
}

export function createWordMeter(options: { model: ModelClient }): WordMeter {
  const storage = new AsyncLocalStorage<{ words: number }>();
  const inner = options.model;
  const count = (o: GenerateTextOptions) => {
    const box = storage.getStore();
    if (box) box.words += promptWords(o);
  };
  const model: ModelClient = {
    id: inner.id,
    generateText: (o: GenerateTextOptions) => {
      count(o);
      return inner.generateText(o);
    },
    generateObject: <T>(o: GenerateObjectOptions<T>) => {
      count(o);
      return inner.generateObject(o);
    },
    ...(inner.embed ? { embed: inner.embed.bind(inner) } : {}),
    stats: () => inner.stats(),
    ...(inner.close ? { close: inner.close.bind(inner) } : {}),
  };
  return {
    model,
    async measure(fn) {
      const box = { words: 0 };
      const result = await storage.run(box, fn);
      return { result, words: box.words };
    },
  };
}

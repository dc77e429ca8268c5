/**
 * In-process GGUF models through node-llama-cpp, for guards that must run with no network at all.
 * The package is an optional peer dependency (its native binaries are hundreds of megabytes) imported
 * only when a `local:` spec is used; without it the call fails with MISSING_DEPENDENCY naming it. Loading never downloads or
 * compiles anything (CPU prebuilt binaries only); the model is loaded once and reused, requests are
 * served one at a time (one CPU-bound context), and structured calls decode under a JSON-schema grammar.
 */
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import type {
  ChatHistoryItem,
  Llama,
  LlamaContext,
  LlamaContextSequence,
  LlamaEmbeddingContext,
  LlamaGrammar,
  LlamaModel,
} from "node-llama-cpp";
import { WardenError } from "../core/errors.js";
import { importOptional } from "../core/optional-import.js";
import type { BackendReply, BackendRequest, ModelBackend } from "./backend.js";

export interface LocalModelOptions {
  /** Context window in tokens (clamped to what the model was trained with). Default 4096. */
  contextSize?: number;
  /** CPU threads. Default: available cores minus one, at least 1. */
  threads?: number;
  /** Output cap when a call gives none, so a model that never stops cannot fill the context. Default 1024. */
  defaultMaxOutputTokens?: number;
}

export const DEFAULT_LOCAL_CONTEXT_SIZE = 4096;
export const DEFAULT_LOCAL_MAX_OUTPUT_TOKENS = 1024;

type NodeLlamaCpp = typeof import("node-llama-cpp");

/** Literal import(), so a bundler sees the package name and keeps it external. */
const loadNodeLlamaCpp = (): Promise<NodeLlamaCpp> => import("node-llama-cpp");

let runtime: Promise<{ lib: NodeLlamaCpp; llama: Llama }> | undefined;

/** One native runtime per process (tests pass a failing loader: not shared); models and contexts are per client. */
function loadRuntime(options: {
  load?: () => Promise<NodeLlamaCpp>;
}): Promise<{ lib: NodeLlamaCpp; llama: Llama }> {
  if (options.load) return startRuntime({ load: options.load });
  runtime ??= startRuntime({ load: loadNodeLlamaCpp });
  runtime.catch(() => {
    runtime = undefined;
  });
  return runtime;
}

async function startRuntime(options: {
  load: () => Promise<NodeLlamaCpp>;
}): Promise<{ lib: NodeLlamaCpp; llama: Llama }> {
  const lib = await importOptional({
    packageName: "node-llama-cpp",
    feature: "local: models",
    load: options.load,
  });
  try {
    const llama = await lib.getLlama({ gpu: false, build: "never" });
    return { lib, llama };
  } catch (error) {
    throw new WardenError({
      code: "MODEL_CONFIG",
      message: `node-llama-cpp has no usable prebuilt CPU binary on this machine (${
        (error as Error).message
      }); Warden never compiles it on the fly`,
      details: { package: "node-llama-cpp" },
      cause: error,
    });
  }
}

interface Loaded {
  lib: NodeLlamaCpp;
  llama: Llama;
  model: LlamaModel;
  context: LlamaContext;
  sequence: LlamaContextSequence;
}

export function defaultLocalThreads(): number {
  return Math.max(1, availableParallelism() - 1);
}

export function createLocalLlamaBackend(
  options: {
    modelPath: string;
    /** How node-llama-cpp is loaded (default: import it); tests pass one that fails. */
    load?: () => Promise<NodeLlamaCpp>;
  } & LocalModelOptions,
): ModelBackend {
  const modelPath = resolve(options.modelPath);
  const threads = options.threads ?? defaultLocalThreads();
  const wantedContext = options.contextSize ?? DEFAULT_LOCAL_CONTEXT_SIZE;
  const defaultMaxOutputTokens = options.defaultMaxOutputTokens ?? DEFAULT_LOCAL_MAX_OUTPUT_TOKENS;
  let loading: Promise<Loaded> | undefined;
  let embedding: Promise<LlamaEmbeddingContext> | undefined;
  const grammars = new Map<string, Promise<LlamaGrammar>>();
  // One context sequence: requests run one after another, in arrival order.
  let queue: Promise<unknown> = Promise.resolve();

  const load = (): Promise<Loaded> => {
    loading ??= (async () => {
      if (!existsSync(modelPath)) {
        throw new WardenError({
          code: "MODEL_CONFIG",
          message: `The local model file ${modelPath} does not exist`,
          details: { field: "spec", path: modelPath },
        });
      }
      const { lib, llama } = await loadRuntime({ ...(options.load ? { load: options.load } : {}) });
      let model: LlamaModel;
      try {
        model = await llama.loadModel({ modelPath, gpuLayers: 0 });
      } catch (error) {
        throw new WardenError({
          code: "MODEL_CONFIG",
          message: `The local model ${modelPath} could not be loaded: ${(error as Error).message}`,
          details: { path: modelPath },
          cause: error,
        });
      }
      const contextSize = Math.max(256, Math.min(wantedContext, model.trainContextSize || wantedContext));
      const context = await model.createContext({ contextSize, threads, sequences: 1 });
      return { lib, llama, model, context, sequence: context.getSequence() };
    })();
    loading.catch(() => {
      loading = undefined;
    });
    return loading;
  };

  const grammarFor = (loaded: Loaded, schema: Record<string, unknown>): Promise<LlamaGrammar> => {
    const key = JSON.stringify(schema);
    let grammar = grammars.get(key);
    if (!grammar) {
      // node-llama-cpp understands a subset of JSON Schema; outside it, fall back to plain JSON and
      // let zod validation judge the shape.
      grammar = loaded.llama
        .createGrammarForJsonSchema(schema as Parameters<Llama["createGrammarForJsonSchema"]>[0])
        .catch(() => loaded.llama.getGrammarFor("json"));
      grammars.set(key, grammar);
    }
    return grammar;
  };

  const serial = <T>(task: () => Promise<T>): Promise<T> => {
    const run = queue.then(task);
    queue = run.catch(() => undefined);
    return run;
  };

  async function complete(request: BackendRequest): Promise<BackendReply> {
    const loaded = await load();
    return serial(async () => {
      request.signal.throwIfAborted();
      const last = request.messages.at(-1);
      if (last?.role !== "user") {
        throw new WardenError({
          code: "INVALID_INPUT",
          message: "A local model call must end with a user message",
          details: { fields: ["messages"] },
        });
      }
      const history: ChatHistoryItem[] = [];
      if (request.system) history.push({ type: "system", text: request.system });
      for (const message of request.messages.slice(0, -1)) {
        if (message.role === "assistant") history.push({ type: "model", response: [message.content] });
        else if (message.role === "user") history.push({ type: "user", text: message.content });
        else history.push({ type: "system", text: message.content });
      }
      const grammar = request.jsonSchema ? await grammarFor(loaded, request.jsonSchema) : undefined;
      // Fresh state per request: answers must not depend on what was asked before.
      await loaded.sequence.clearHistory();
      const session = new loaded.lib.LlamaChatSession({
        contextSequence: loaded.sequence,
        autoDisposeSequence: false,
      });
      const before = loaded.sequence.tokenMeter.getState();
      try {
        session.setChatHistory(history);
        const text = await session.prompt(last.content, {
          maxTokens: request.maxOutputTokens ?? defaultMaxOutputTokens,
          temperature: request.temperature,
          signal: request.signal,
          ...(grammar ? { grammar } : {}),
        });
        const after = loaded.sequence.tokenMeter.getState();
        return {
          text,
          usage: {
            inputTokens: after.usedInputTokens - before.usedInputTokens,
            outputTokens: after.usedOutputTokens - before.usedOutputTokens,
          },
        };
      } finally {
        session.dispose({ disposeSequence: false });
      }
    });
  }

  async function embed(request: { values: string[]; signal: AbortSignal }) {
    const loaded = await load();
    embedding ??= loaded.model.createEmbeddingContext({ threads });
    const context = await embedding;
    return serial(async () => {
      const embeddings: number[][] = [];
      let inputTokens = 0;
      for (const value of request.values) {
        request.signal.throwIfAborted();
        inputTokens += loaded.model.tokenize(value).length;
        const result = await context.getEmbeddingFor(value);
        embeddings.push([...result.vector]);
      }
      return { embeddings, usage: { inputTokens, outputTokens: 0 } };
    });
  }

  return {
    endpoint: modelPath,
    constrainedJson: true,
    maxEmbeddingBatch: 64,
    async prepare() {
      await load();
    },
    complete,
    embed,
    async close() {
      await queue;
      const loaded = await loading?.catch(() => undefined);
      loading = undefined;
      const embeddingContext = await embedding?.catch(() => undefined);
      embedding = undefined;
      grammars.clear();
      await embeddingContext?.dispose();
      if (loaded) {
        await loaded.context.dispose();
        await loaded.model.dispose();
      }
    },
  };
}

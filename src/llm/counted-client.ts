/**
 * The ModelClient every transport is wrapped in: per-request time limit, bounded retries with backoff
 * on transient failures only, cassette record/replay, structured output with re-asks, and exact
 * accounting (calls, provider requests, failures, tokens, latency) both cumulative and per call. Failed
 * calls carry what they cost in `error.details.cost`, so a fail-closed Decision can still report it.
 */
import { z } from "zod";
import { WardenError } from "../core/errors.js";
import { parseWith } from "../core/validate.js";
import type { BackendReply, BackendRequest, ModelBackend } from "./backend.js";
import { type Cassette, cassetteKey, cassetteMiss, embedCassetteKey } from "./cassette.js";
import type {
  GenerateObjectOptions,
  GenerateTextOptions,
  ModelCallResult,
  ModelClient,
  ModelMessage,
  ModelStats,
  ModelUsage,
} from "./model.js";
import { isRetryableError, retryAfterMs, toModelError } from "./provider-errors.js";
import {
  checkStructuredReply,
  type JsonSchemaObject,
  repairMessage,
  schemaToJson,
  structuredInstruction,
} from "./structured-output.js";

export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_RETRIES = 2;
export const DEFAULT_RETRY_DELAY_MS = 500;
export const DEFAULT_MAX_REPAIRS = 2;
/** A Retry-After longer than this is not waited for: the call fails and the engine fails closed. */
const MAX_RETRY_AFTER_MS = 30_000;
const DEFAULT_EMBED_BATCH = 256;
const MAX_ERROR_TEXT_CHARS = 2_000;

export interface CountedClientOptions {
  /** "provider:model-id" */
  id: string;
  backend: ModelBackend;
  /** Time limit of each provider request, ms. A timed-out request is not retried. */
  timeoutMs?: number;
  /** Retries after a network error, HTTP 429 or 5xx (never after other 4xx). */
  maxRetries?: number;
  /** First backoff delay, doubled on each retry; a longer Retry-After header wins. */
  retryDelayMs?: number;
  cassette?: Cassette;
}

const MessageSchema = z.object({
  role: z.enum(["system", "user", "assistant"]),
  content: z.string(),
});

const TextCallSchema = z
  .object({
    system: z.string().optional(),
    prompt: z.string().optional(),
    messages: z.array(MessageSchema).optional(),
    maxOutputTokens: z.number().int().positive().optional(),
    temperature: z.number().min(0).max(2).optional(),
    purpose: z.string().optional(),
    maxRepairs: z.number().int().min(0).max(10).optional(),
  })
  .refine((o) => o.prompt !== undefined || (o.messages !== undefined && o.messages.length > 0), {
    message: "give a prompt or at least one message",
    path: ["prompt"],
  });

interface CallCost {
  requests: number;
  inputTokens: number;
  outputTokens: number;
  replays: number;
}

interface Conversation {
  system?: string;
  messages: ModelMessage[];
}

/** Leading system turns join `system` (Anthropic and others accept system text only up front). */
function toConversation(options: GenerateTextOptions): Conversation {
  const systemParts = options.system ? [options.system] : [];
  const messages = [...(options.messages ?? [])];
  while (messages[0]?.role === "system") systemParts.push(messages.shift()!.content);
  if (options.prompt !== undefined) messages.push({ role: "user", content: options.prompt });
  const conversation: Conversation = { messages };
  if (systemParts.length > 0) conversation.system = systemParts.join("\n\n");
  return conversation;
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  // The backend may ignore the signal; the caller must still get control back on time.
  promise.catch(() => undefined);
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export function createCountedClient(options: CountedClientOptions): ModelClient {
  const { id, backend, cassette } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  const retryDelayMs = options.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS;
  const totals: ModelStats = {
    calls: 0,
    requests: 0,
    failures: 0,
    inputTokens: 0,
    outputTokens: 0,
    totalMs: 0,
  };
  const where = `model ${id} at ${backend.endpoint}`;

  const aborted = () =>
    new WardenError({ code: "ABORTED", message: `The call to ${where} was aborted`, details: { model: id } });

  const addUsage = (cost: CallCost, usage: ModelUsage) => {
    cost.inputTokens += usage.inputTokens;
    cost.outputTokens += usage.outputTokens;
    totals.inputTokens += usage.inputTokens;
    totals.outputTokens += usage.outputTokens;
  };

  /** Loading a model is a one-time cost, not a slow answer: it runs outside the time limit. */
  async function prepare(userSignal: AbortSignal | undefined): Promise<void> {
    if (!backend.prepare) return;
    const loading = backend.prepare();
    if (!userSignal) return loading;
    try {
      await raceAbort(loading, userSignal);
    } catch (error) {
      if (userSignal.aborted) throw aborted();
      throw error;
    }
  }

  /** One logical provider request: time-limited attempts, retried while the failure is transient. */
  async function attempt<T>(
    op: (signal: AbortSignal) => Promise<T>,
    cost: CallCost,
    userSignal: AbortSignal | undefined,
  ): Promise<T> {
    let attempts = 0;
    for (;;) {
      if (userSignal?.aborted) throw aborted();
      attempts++;
      cost.requests++;
      totals.requests++;
      const timeout = new AbortController();
      const timer = setTimeout(() => timeout.abort(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
      const signal = userSignal ? AbortSignal.any([userSignal, timeout.signal]) : timeout.signal;
      try {
        return await raceAbort(op(signal), signal);
      } catch (error) {
        if (userSignal?.aborted) throw aborted();
        if (timeout.signal.aborted) {
          throw new WardenError({
            code: "MODEL_TIMEOUT",
            message: `${where} did not answer within ${timeoutMs} ms`,
            details: { model: id, endpoint: backend.endpoint, timeoutMs },
            cause: error,
          });
        }
        if (attempts <= maxRetries && isRetryableError(error)) {
          const backoff = retryDelayMs * 2 ** (attempts - 1);
          const hinted = retryAfterMs(error);
          if (hinted === undefined || hinted <= MAX_RETRY_AFTER_MS) {
            try {
              await sleep(Math.max(backoff, hinted ?? 0), userSignal);
            } catch {
              throw aborted();
            }
            continue;
          }
        }
        throw toModelError({ error, modelId: id, endpoint: backend.endpoint, requests: attempts });
      } finally {
        clearTimeout(timer);
      }
    }
  }

  async function requestText(
    request: Omit<BackendRequest, "signal">,
    cost: CallCost,
    userSignal: AbortSignal | undefined,
  ): Promise<BackendReply> {
    const key = cassette
      ? cassetteKey({
          modelId: id,
          purpose: request.purpose,
          system: request.system,
          messages: request.messages,
          schema: request.jsonSchema,
        })
      : undefined;
    if (cassette && key && cassette.mode !== "record") {
      const hit = cassette.lookup({ key });
      if (hit?.kind === "text") {
        cost.replays++;
        addUsage(cost, hit.usage);
        return { text: hit.text, usage: hit.usage };
      }
      if (cassette.mode === "replay") {
        throw cassetteMiss({ path: cassette.path, key, model: id, purpose: request.purpose });
      }
    }
    await prepare(userSignal);
    const started = performance.now();
    const reply = await attempt((signal) => backend.complete({ ...request, signal }), cost, userSignal);
    const usage = { inputTokens: reply.usage.inputTokens || 0, outputTokens: reply.usage.outputTokens || 0 };
    addUsage(cost, usage);
    if (cassette && key) {
      const entry = { kind: "text" as const, key, model: id, text: reply.text, usage };
      await cassette.record({
        entry: {
          ...entry,
          ...(request.purpose === undefined ? {} : { purpose: request.purpose }),
          ms: Math.round(performance.now() - started),
        },
      });
    }
    return { text: reply.text, usage };
  }

  function begin(): { cost: CallCost; started: number } {
    totals.calls++;
    return { cost: { requests: 0, inputTokens: 0, outputTokens: 0, replays: 0 }, started: performance.now() };
  }

  function finish(state: { cost: CallCost; started: number }, text: string): ModelCallResult {
    const ms = performance.now() - state.started;
    totals.totalMs += ms;
    const { cost } = state;
    return {
      text,
      usage: { inputTokens: cost.inputTokens, outputTokens: cost.outputTokens },
      ms,
      requests: cost.requests,
      replayed: cost.replays > 0 && cost.requests === 0,
    };
  }

  function fail(state: { cost: CallCost; started: number }, error: unknown): WardenError {
    const ms = performance.now() - state.started;
    totals.totalMs += ms;
    totals.failures++;
    const base = toModelError({
      error,
      modelId: id,
      endpoint: backend.endpoint,
      requests: state.cost.requests,
    });
    const { cost } = state;
    return new WardenError({
      code: base.code,
      message: base.message,
      details: {
        ...base.details,
        cost: { requests: cost.requests, inputTokens: cost.inputTokens, outputTokens: cost.outputTokens, ms },
      },
      cause: base.cause ?? base,
    });
  }

  function validateCall(call: GenerateTextOptions & { maxRepairs?: number }): void {
    const { system, prompt, messages, maxOutputTokens, temperature, purpose, maxRepairs } = call;
    const value = { system, prompt, messages, maxOutputTokens, temperature, purpose, maxRepairs };
    parseWith({ schema: TextCallSchema, value, what: `call to ${id}`, code: "INVALID_INPUT" });
  }

  const client: ModelClient = {
    id,

    async generateText(callOptions) {
      const state = begin();
      try {
        validateCall(callOptions);
        const conversation = toConversation(callOptions);
        const reply = await requestText(
          {
            ...conversation,
            maxOutputTokens: callOptions.maxOutputTokens,
            temperature: callOptions.temperature ?? 0,
            purpose: callOptions.purpose,
          },
          state.cost,
          callOptions.signal,
        );
        return finish(state, reply.text);
      } catch (error) {
        throw fail(state, error);
      }
    },

    async generateObject<T>(callOptions: GenerateObjectOptions<T>) {
      const state = begin();
      try {
        validateCall(callOptions);
        const maxRepairs = callOptions.maxRepairs ?? DEFAULT_MAX_REPAIRS;
        const conversation = toConversation(callOptions);
        const jsonSchema: JsonSchemaObject = schemaToJson({ schema: callOptions.schema });
        const instruction = structuredInstruction({
          jsonSchema,
          schemaName: callOptions.schemaName,
          schemaDescription: callOptions.schemaDescription,
        });
        const system = conversation.system ? `${conversation.system}\n\n${instruction}` : instruction;
        let messages = conversation.messages;
        let lastErrors = "";
        let lastText = "";
        for (let round = 0; round <= maxRepairs; round++) {
          const reply = await requestText(
            {
              system,
              messages,
              maxOutputTokens: callOptions.maxOutputTokens,
              temperature: callOptions.temperature ?? 0,
              purpose: callOptions.purpose,
              jsonSchema,
            },
            state.cost,
            callOptions.signal,
          );
          const check = checkStructuredReply({ text: reply.text, schema: callOptions.schema });
          if (check.ok) return { ...finish(state, reply.text), object: check.value };
          lastErrors = check.errors;
          lastText = reply.text;
          messages = [
            ...messages,
            { role: "assistant", content: reply.text },
            { role: "user", content: repairMessage({ errors: check.errors }) },
          ];
        }
        throw new WardenError({
          code: "MODEL_OUTPUT_INVALID",
          message: `${where} gave no answer matching the ${callOptions.schemaName ?? "requested"} schema in ${
            maxRepairs + 1
          } attempts; last problems: ${lastErrors}`,
          details: {
            model: id,
            attempts: maxRepairs + 1,
            errors: lastErrors,
            lastText: lastText.slice(0, MAX_ERROR_TEXT_CHARS),
          },
        });
      } catch (error) {
        throw fail(state, error);
      }
    },

    stats() {
      return { ...totals };
    },

    async close() {
      await backend.close?.();
    },
  };

  if (backend.embed) {
    const embedBatch = backend.embed.bind(backend);
    const batchSize = Math.max(1, backend.maxEmbeddingBatch ?? DEFAULT_EMBED_BATCH);
    const embeddingModelId = backend.embeddingModelId ?? id;
    client.embed = async ({ values, signal }) => {
      const state = begin();
      try {
        if (!Array.isArray(values) || values.some((v) => typeof v !== "string")) {
          throw new WardenError({
            code: "INVALID_INPUT",
            message: `Invalid call to ${id}: values must be an array of strings`,
            details: { fields: ["values"] },
          });
        }
        const embeddings: number[][] = [];
        for (let start = 0; start < values.length; start += batchSize) {
          const batch = values.slice(start, start + batchSize);
          const key = cassette ? embedCassetteKey({ modelId: embeddingModelId, values: batch }) : undefined;
          if (cassette && key && cassette.mode !== "record") {
            const hit = cassette.lookup({ key });
            if (hit?.kind === "embed") {
              state.cost.replays++;
              addUsage(state.cost, hit.usage);
              embeddings.push(...hit.embeddings);
              continue;
            }
            if (cassette.mode === "replay") {
              throw cassetteMiss({ path: cassette.path, key, model: embeddingModelId, purpose: "embed" });
            }
          }
          await prepare(signal);
          const started = performance.now();
          const reply = await attempt((s) => embedBatch({ values: batch, signal: s }), state.cost, signal);
          addUsage(state.cost, reply.usage);
          embeddings.push(...reply.embeddings);
          if (cassette && key) {
            await cassette.record({
              entry: {
                kind: "embed",
                key,
                model: embeddingModelId,
                embeddings: reply.embeddings,
                usage: reply.usage,
                ms: Math.round(performance.now() - started),
              },
            });
          }
        }
        const result = finish(state, "");
        return { embeddings, usage: result.usage };
      } catch (error) {
        throw fail(state, error);
      }
    };
  }

  return client;
}

/**
 * An in-process ModelClient that answers from a script, for fast tests of pipelines that call a model.
 * It goes through the same counted client as real providers (structured output with re-asks, accounting,
 * time limits), so a pipeline tested against it behaves as it will against a real model; only the
 * transport is replaced. Usage is counted in whitespace-separated words.
 */
import { WardenError } from "../core/errors.js";
import type { BackendRequest, ModelBackend } from "../llm/backend.js";
import { createCountedClient } from "../llm/counted-client.js";
import type { ModelClient, ModelMessage } from "../llm/model.js";
import type { JsonSchemaObject } from "../llm/structured-output.js";
import { countWords } from "./model-server-common.js";

export interface ScriptedRequest {
  /** 0-based position of this request in the script. */
  index: number;
  system?: string;
  messages: ModelMessage[];
  purpose?: string;
  /** The JSON Schema of a structured call (generateObject), absent for plain text. */
  jsonSchema?: JsonSchemaObject;
  maxOutputTokens?: number;
}

/** A reply: text; a WardenError to throw (a failing model); or a function of the request. */
export type ScriptedReply = string | WardenError | ((request: ScriptedRequest) => string | Promise<string>);

export interface ScriptedModel extends ModelClient {
  /** Every request the model received, in order (repairs included). */
  readonly requests: ScriptedRequest[];
  /** Replies not used yet. */
  remaining(): number;
}

export interface ScriptedModelOptions {
  replies: ScriptedReply[];
  /** Default "scripted:model". */
  id?: string;
  /** Offer `embed` with this function (absent: the model has no embeddings). */
  embed?: (text: string) => number[];
  /** Time limit per request, ms (default 60000); a function that never settles hits it. */
  timeoutMs?: number;
}

export function createScriptedModel(options: ScriptedModelOptions): ScriptedModel {
  const id = options.id ?? "scripted:model";
  const replies = [...options.replies];
  const requests: ScriptedRequest[] = [];
  let next = 0;

  const complete = async (request: BackendRequest) => {
    const index = requests.length;
    const recorded: ScriptedRequest = { index, messages: request.messages.map((m) => ({ ...m })) };
    if (request.system !== undefined) recorded.system = request.system;
    if (request.purpose !== undefined) recorded.purpose = request.purpose;
    if (request.jsonSchema !== undefined) recorded.jsonSchema = request.jsonSchema;
    if (request.maxOutputTokens !== undefined) recorded.maxOutputTokens = request.maxOutputTokens;
    requests.push(recorded);
    if (next >= replies.length) {
      throw new WardenError({
        code: "INTERNAL",
        message: `Scripted model ${id} has no reply left for request ${index + 1} (purpose "${
          request.purpose ?? "(none)"
        }"): the script holds ${replies.length}`,
        details: { model: id, index },
      });
    }
    const reply = replies[next++]!;
    if (reply instanceof WardenError) throw reply;
    const text = typeof reply === "function" ? await reply(recorded) : reply;
    const prompt = [request.system ?? "", ...request.messages.map((m) => m.content)];
    return {
      text,
      usage: {
        inputTokens: prompt.reduce((sum, part) => sum + countWords(part), 0),
        outputTokens: countWords(text),
      },
    };
  };

  const backend: ModelBackend = options.embed
    ? {
        endpoint: "scripted",
        complete,
        async embed(request) {
          const toVector = options.embed!;
          return {
            embeddings: request.values.map((value) => toVector(value)),
            usage: {
              inputTokens: request.values.reduce((sum, v) => sum + countWords(v), 0),
              outputTokens: 0,
            },
          };
        },
      }
    : { endpoint: "scripted", complete };

  const client = createCountedClient({ id, backend, maxRetries: 0, timeoutMs: options.timeoutMs });
  return Object.assign(client, {
    requests,
    remaining: () => replies.length - next,
  });
}

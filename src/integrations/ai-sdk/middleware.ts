/**
 * `wardenMiddleware`: GuardAgent's guard-railed output for the AI SDK. A language-model middleware
 * (`wrapLanguageModel({ model, middleware: wardenMiddleware({ guard }) })`) that checks the model's final
 * answer — the user's messages as the input, the answer as the output, the tool calls that ran as the
 * trajectory — and, unless Warden allows it, replaces the answer with a refusal that names the rules.
 *
 * A response that calls tools is not a final answer: it passes through (the calls are guarded by
 * `guardTools`). A refused answer loses everything the model produced (text, reasoning, files, sources),
 * not only its text, and finishes with `content-filter`; the Decision's summary is in
 * `providerMetadata.warden` either way.
 *
 * Streaming is guarded by buffering: the model's stream is read to the end, checked, and only then
 * replayed (or replaced) to the caller, so no unchecked text reaches it — at the price of the text
 * arriving at once, after the check. A check that throws is a refusal (fail closed).
 */
import type { LanguageModelMiddleware } from "ai";
import { z } from "zod";
import { type Decision, failureDecision } from "../../core/decision.js";
import { toWardenError } from "../../core/errors.js";
import { parseWith } from "../../core/validate.js";
import type { Guard } from "../../guard.js";
import { isDecisionLike } from "./decision-shape.js";
import { boundText, runHistory } from "./history.js";

type WrapGenerate = NonNullable<LanguageModelMiddleware["wrapGenerate"]>;
type WrapStream = NonNullable<LanguageModelMiddleware["wrapStream"]>;
type GenerateResult = Awaited<ReturnType<WrapGenerate>>;
type StreamResult = Awaited<ReturnType<WrapStream>>;
type StreamPart = StreamResult["stream"] extends ReadableStream<infer P> ? P : never;
type CallParams = Parameters<WrapGenerate>[0]["params"];
type ContentPart = GenerateResult["content"][number];
type FinishPart = Extract<StreamPart, { type: "finish" }>;

/** What the middleware needs of a guard: `createGuard`'s, or anything with its `check`. */
export type AnswerGuard = Pick<Guard, "check">;

export interface WardenMiddlewareOptions {
  guard: AnswerGuard;
  /** Facts the check should know (identity, user attributes…). */
  context?: Record<string, unknown>;
  /** The text that replaces a refused answer (default: which rules, and why). */
  refusal?: (decision: Decision) => string;
}

const OptionsSchema = z.object({
  guard: z.custom<AnswerGuard>(
    (v) => typeof (v as { check?: unknown } | null)?.check === "function",
    "must be a Warden guard (createGuard) with check",
  ),
  context: z.record(z.string(), z.unknown()).optional(),
  refusal: z.custom<(d: Decision) => string>((v) => typeof v === "function", "must be a function").optional(),
});

/** Longest answer checked; a longer one is refused rather than judged by a part of it. */
const MAX_ANSWER_CHARS = 4 * 1024 * 1024;

/** The default text of a refused answer: the answer is withheld, and which rules say so. */
export function answerRefusalText(decision: Decision): string {
  const lines = ["Warden withheld this answer: it does not follow the policy."];
  for (const v of decision.violations) {
    if (v.ruleId === "warden.undecidable") continue;
    lines.push(`- ${v.ruleId}: ${v.message}`);
  }
  if (decision.failure) lines.push(`The check could not be completed: ${decision.failure.message}`);
  return boundText({ text: lines.join("\n"), max: 4000 });
}

function summary(decision: Decision) {
  return {
    allowed: decision.allowed === true,
    verdict: String(decision.verdict),
    violations: (decision.violations ?? []).map((v) => ({ ruleId: v.ruleId, message: v.message })),
    ...(decision.failure ? { failure: decision.failure.message } : {}),
  };
}

async function checkAnswer(options: {
  settings: WardenMiddlewareOptions;
  prompt: CallParams["prompt"];
  answer: string;
}): Promise<Decision> {
  const { settings, answer } = options;
  try {
    if (answer.length > MAX_ANSWER_CHARS) {
      return failureDecision({
        engine: "ai-sdk",
        code: "INVALID_INPUT",
        message: `the answer is longer than ${MAX_ANSWER_CHARS} characters`,
      });
    }
    // The prompt's own tool results are plain results: refusals in it read as steps that ran, which
    // can only make the answer's check stricter.
    const run = runHistory({ messages: options.prompt, isRefusal: () => false });
    const decision = await settings.guard.check({
      input: run.input,
      output: answer,
      ...(run.history.length > 0 ? { trajectory: run.history } : {}),
      ...(settings.context ? { context: settings.context } : {}),
    });
    if (isDecisionLike(decision)) return decision;
    return failureDecision({
      engine: "ai-sdk",
      code: "INTERNAL",
      message: "the guard answered with no Decision",
    });
  } catch (error) {
    const problem = toWardenError({ error });
    return failureDecision({
      engine: "ai-sdk",
      code: problem.code,
      message: `the check of the answer failed: ${problem.message}`,
    });
  }
}

function isAllowed(decision: Decision): boolean {
  return decision?.allowed === true && decision.verdict === "allow";
}

function refusalOf(options: { settings: WardenMiddlewareOptions; decision: Decision }): string {
  const { settings, decision } = options;
  try {
    return settings.refusal ? String(settings.refusal(decision)) : answerRefusalText(decision);
  } catch {
    return answerRefusalText(decision);
  }
}

function withWarden<T extends { providerMetadata?: GenerateResult["providerMetadata"] }>(
  value: T,
  decision: Decision,
): T {
  return { ...value, providerMetadata: { ...(value.providerMetadata ?? {}), warden: summary(decision) } };
}

function callsTools(parts: readonly { type: string }[]): boolean {
  return parts.some((p) => p.type === "tool-call" || p.type === "tool-approval-request");
}

export function wardenMiddleware(options: WardenMiddlewareOptions): LanguageModelMiddleware {
  parseWith({ schema: OptionsSchema, value: options, what: "wardenMiddleware options" });
  const settings = options;
  return {
    specificationVersion: "v3",

    async wrapGenerate({ doGenerate, params }) {
      const result = await doGenerate();
      if (callsTools(result.content)) return result;
      const answer = result.content
        .filter((p): p is Extract<ContentPart, { type: "text" }> => p.type === "text")
        .map((p) => p.text)
        .join("");
      const decision = await checkAnswer({ settings, prompt: params.prompt, answer });
      if (isAllowed(decision)) return withWarden(result, decision);
      const refused: GenerateResult = {
        ...result,
        content: [{ type: "text", text: refusalOf({ settings, decision }) }],
        finishReason: { unified: "content-filter", raw: result.finishReason.raw },
      };
      return withWarden(refused, decision);
    },

    async wrapStream({ doStream, params }) {
      const { stream, ...rest } = await doStream();
      const parts: StreamPart[] = [];
      const reader = stream.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parts.push(value);
      }
      const replay = (out: StreamPart[]) =>
        new ReadableStream<StreamPart>({
          start(controller) {
            for (const part of out) controller.enqueue(part);
            controller.close();
          },
        });
      if (callsTools(parts)) return { ...rest, stream: replay(parts) };
      const answer = parts
        .filter((p): p is Extract<StreamPart, { type: "text-delta" }> => p.type === "text-delta")
        .map((p) => p.delta)
        .join("");
      const decision = await checkAnswer({ settings, prompt: params.prompt, answer });
      if (isAllowed(decision)) {
        return {
          ...rest,
          stream: replay(parts.map((p): StreamPart => (p.type === "finish" ? withWarden(p, decision) : p))),
        };
      }
      const text = refusalOf({ settings, decision });
      const finish = parts.find((p): p is FinishPart => p.type === "finish");
      const kept = parts.filter(
        (p) => p.type === "stream-start" || p.type === "response-metadata" || p.type === "error",
      );
      const end: FinishPart = {
        type: "finish",
        usage: finish?.usage ?? {
          inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: undefined, text: undefined, reasoning: undefined },
        },
        finishReason: { unified: "content-filter", raw: finish?.finishReason.raw },
      };
      const replaced: StreamPart[] = [
        ...kept,
        { type: "text-start", id: "warden-refusal" },
        { type: "text-delta", id: "warden-refusal", delta: text },
        { type: "text-end", id: "warden-refusal" },
        withWarden(end, decision),
      ];
      return { ...rest, stream: replay(replaced) };
    },
  };
}

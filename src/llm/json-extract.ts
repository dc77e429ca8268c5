/**
 * Lenient JSON extraction from model replies. Models wrap JSON in prose, code fences or reasoning
 * blocks even when told not to; rather than fail the check, take the JSON the reply contains and let
 * schema validation (and a re-ask) judge it.
 */
import { bracketEnds } from "../util/json-brackets.js";

export type JsonExtraction = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * Reasoning models (Qwen3, DeepSeek-R1...) put their thoughts first; those may contain braces. Removed
 * with indexOf rather than a lazy regex, which rescans to the end from each unclosed `<think>`.
 */
function withoutThinkBlocks(text: string): string {
  const lower = text.toLowerCase();
  let out = "";
  let from = 0;
  for (;;) {
    const open = lower.indexOf("<think>", from);
    const close = open < 0 ? -1 : lower.indexOf("</think>", open + 7);
    if (close < 0) return out + text.slice(from);
    out += text.slice(from, open);
    from = close + 8;
  }
}
const FENCE = /```[a-zA-Z0-9_-]*[ \t]*\r?\n?([\s\S]*?)```/g;
/** Bounds the work on long, brace-heavy replies that hold no valid JSON. */
const MAX_CANDIDATES = 64;

function tryParse(text: string): { ok: true; value: unknown } | undefined {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

/**
 * The first balanced object/array in the text that parses, scanning left to right (so the outermost).
 * Linear: every candidate's end comes from one pass, and the text handed to JSON.parse is capped.
 */
function scanForJson(text: string): { ok: true; value: unknown } | undefined {
  const { ends, complete } = bracketEnds({ text });
  if (!complete) return undefined;
  let tried = 0;
  let parseBudget = 4 * text.length + 1_000_000;
  for (let i = 0; i < text.length && tried < MAX_CANDIDATES && parseBudget > 0; i++) {
    const ch = text[i];
    if (ch !== "{" && ch !== "[") continue;
    const end = ends[i]!;
    if (end < 0) continue;
    tried++;
    parseBudget -= end - i;
    const parsed = tryParse(text.slice(i, end));
    if (parsed) return parsed;
  }
  return undefined;
}

export function extractJson(options: { text: string }): JsonExtraction {
  const text = withoutThinkBlocks(options.text).trim();
  if (text === "") return { ok: false, error: "the reply is empty; expected a JSON value" };
  const whole = tryParse(text);
  if (whole) return whole;
  for (const match of text.matchAll(FENCE)) {
    const body = (match[1] ?? "").trim();
    const parsed = tryParse(body) ?? scanForJson(body);
    if (parsed) return parsed;
  }
  const scanned = scanForJson(text);
  if (scanned) return scanned;
  const start = text.search(/[[{]/);
  if (start >= 0 && bracketEnds({ text }).ends[start]! < 0) {
    return { ok: false, error: "the JSON in the reply is incomplete (cut off or unbalanced brackets)" };
  }
  return { ok: false, error: "the reply contains no parseable JSON object or array" };
}

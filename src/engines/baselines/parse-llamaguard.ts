/**
 * Llama Guard's native verdict, read strictly: `safe`, or `unsafe` followed by a line of category codes
 * (`S1`, `S2,S10`) that all name categories the prompt listed. Anything else — another word, `unsafe`
 * without codes, a code the prompt never listed, extra lines — is not a verdict, and the engine fails
 * closed on it.
 */
import { WardenError } from "../../core/errors.js";

export type LlamaGuardVerdict = { safe: true } | { safe: false; codes: string[] };

function invalid(message: string): WardenError {
  return new WardenError({ code: "MODEL_OUTPUT_INVALID", message: `Llama Guard's answer ${message}` });
}

export function parseLlamaGuard(options: { reply: string; codes: ReadonlySet<string> }): LlamaGuardVerdict {
  const lines = options.reply
    .trim()
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== "");
  const [head, second, ...rest] = lines;
  const first = head?.toLowerCase();
  if (first === "safe" && second === undefined) return { safe: true };
  if (first !== "unsafe") throw invalid(`is neither "safe" nor "unsafe": ${JSON.stringify(head ?? "")}`);
  if (second === undefined) throw invalid('says "unsafe" without naming a category');
  if (rest.length > 0) throw invalid("has lines after the category codes");
  const codes = second.split(",").map((c) => c.trim().toUpperCase());
  const unknown = codes.filter((c) => !options.codes.has(c));
  if (unknown.length > 0) throw invalid(`names categories the prompt did not list: ${unknown.join(", ")}`);
  return { safe: false, codes: [...new Set(codes)] };
}

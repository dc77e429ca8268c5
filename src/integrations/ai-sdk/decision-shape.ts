/**
 * Whether a guard's answer is enough of a Decision to act on and explain. `guard` may be any object with
 * `check`/`checkToolCall` (a wrapper, a remote client); an answer without `allowed`, `verdict` and
 * `violations` is treated as a failed check — refused, never run or shown.
 */
import type { Decision } from "../../core/decision.js";

export function isDecisionLike(value: unknown): value is Decision {
  const d = value as Partial<Decision> | null;
  return (
    typeof d === "object" &&
    d !== null &&
    typeof d.allowed === "boolean" &&
    typeof d.verdict === "string" &&
    Array.isArray(d.violations)
  );
}

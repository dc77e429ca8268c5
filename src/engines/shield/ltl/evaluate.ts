/**
 * Batch evaluation of an LTLf formula over a finite trace of n steps, by a bottom-up dynamic
 * programme: every distinct subformula gets one row of n truth values, filled from its operands'
 * rows — future operators sweep backwards from the last step, past operators forwards from the first.
 * O(|φ|·n) time and memory, no recursion per position.
 *
 * Semantics (standard LTLf with past), for a trace of length n and 0 <= i < n:
 *   X φ at i   iff i+1 < n and φ at i+1          (strong next: false at the last step)
 *   WX φ at i  iff i+1 = n or φ at i+1           (weak next: true at the last step)
 *   φ U ψ at i iff some j in [i, n) has ψ at j and φ at every k in [i, j)
 *   φ R ψ = !(!φ U !ψ),  F φ = true U φ,  G φ = !F !φ
 *   Y φ at i   iff i > 0 and φ at i-1            (false at the first step)
 *   φ S ψ at i iff some j in [0, i] has ψ at j and φ at every k in (j, i]
 *   O φ = true S φ,  H φ = !O !φ
 * A position outside the trace holds nothing: evaluating at i >= n is false, so the empty trace
 * satisfies no formula, not even `true`.
 */
import { WardenError } from "../../../core/errors.js";
import type { LtlAst } from "./ast.js";
import { type CompiledLtl, compileLtl } from "./compile.js";
import { holds, type LtlTrace } from "./trace.js";

function checkTrace(trace: unknown): asserts trace is LtlTrace {
  if (!Array.isArray(trace)) {
    throw new WardenError({ code: "INVALID_INPUT", message: "trace: expected an array of steps" });
  }
}

/** Fills the table: row k (offset k*n) holds node k's value at every position. */
function table(compiled: CompiledLtl, trace: LtlTrace): Uint8Array {
  const n = trace.length;
  const { ops, first, second, names } = compiled;
  const v = new Uint8Array(ops.length * n);
  for (let k = 0; k < ops.length; k++) {
    const o = k * n;
    const a = (first[k] as number) * n;
    const b = (second[k] as number) * n;
    switch (ops[k]) {
      case "true":
        v.fill(1, o, o + n);
        break;
      case "false":
        break;
      case "atom": {
        const name = names[k] as string;
        for (let i = 0; i < n; i++) v[o + i] = holds(trace[i] as LtlTrace[number], name) ? 1 : 0;
        break;
      }
      case "!":
        for (let i = 0; i < n; i++) v[o + i] = 1 - (v[a + i] as number);
        break;
      case "&":
        for (let i = 0; i < n; i++) v[o + i] = (v[a + i] as number) & (v[b + i] as number);
        break;
      case "|":
        for (let i = 0; i < n; i++) v[o + i] = (v[a + i] as number) | (v[b + i] as number);
        break;
      case "->":
        for (let i = 0; i < n; i++) v[o + i] = (1 - (v[a + i] as number)) | (v[b + i] as number);
        break;
      case "<->":
        for (let i = 0; i < n; i++) v[o + i] = v[a + i] === v[b + i] ? 1 : 0;
        break;
      case "X":
        for (let i = 0; i < n - 1; i++) v[o + i] = v[a + i + 1] as number;
        break;
      case "WX":
        for (let i = 0; i < n - 1; i++) v[o + i] = v[a + i + 1] as number;
        if (n > 0) v[o + n - 1] = 1;
        break;
      case "F": {
        let acc = 0;
        for (let i = n - 1; i >= 0; i--) v[o + i] = acc = (v[a + i] as number) | acc;
        break;
      }
      case "G": {
        let acc = 1;
        for (let i = n - 1; i >= 0; i--) v[o + i] = acc = (v[a + i] as number) & acc;
        break;
      }
      case "U": {
        // At the last step nothing follows, so φ U ψ reduces to ψ there.
        let acc = 0;
        for (let i = n - 1; i >= 0; i--) v[o + i] = acc = (v[b + i] as number) | ((v[a + i] as number) & acc);
        break;
      }
      case "R": {
        // Dual of U: at the last step φ R ψ reduces to ψ.
        let acc = 1;
        for (let i = n - 1; i >= 0; i--) v[o + i] = acc = (v[b + i] as number) & ((v[a + i] as number) | acc);
        break;
      }
      case "Y":
        for (let i = 1; i < n; i++) v[o + i] = v[a + i - 1] as number;
        break;
      case "O": {
        let acc = 0;
        for (let i = 0; i < n; i++) v[o + i] = acc = (v[a + i] as number) | acc;
        break;
      }
      case "H": {
        let acc = 1;
        for (let i = 0; i < n; i++) v[o + i] = acc = (v[a + i] as number) & acc;
        break;
      }
      case "S": {
        let acc = 0;
        for (let i = 0; i < n; i++) v[o + i] = acc = (v[b + i] as number) | ((v[a + i] as number) & acc);
        break;
      }
    }
  }
  return v;
}

/** The formula's value at every position of the trace (empty for the empty trace). */
export function evaluatePositions(options: { ast: LtlAst; trace: LtlTrace }): boolean[] {
  const { trace } = options;
  checkTrace(trace);
  const compiled = compileLtl({ ast: options.ast });
  const n = trace.length;
  const v = table(compiled, trace);
  const out = new Array<boolean>(n);
  for (let i = 0; i < n; i++) out[i] = v[compiled.root * n + i] === 1;
  return out;
}

/**
 * The formula's value at position `at` (default 0) of the trace. A position at or past the end is
 * false (see the module comment); a negative or fractional `at` is an INVALID_INPUT error.
 */
export function evaluate(options: { ast: LtlAst; trace: LtlTrace; at?: number }): boolean {
  const { trace, at = 0 } = options;
  checkTrace(trace);
  if (!Number.isInteger(at) || at < 0) {
    throw new WardenError({
      code: "INVALID_INPUT",
      message: `at: expected a position (an integer >= 0), got ${String(at)}`,
      details: { fields: ["at"] },
    });
  }
  if (at >= trace.length) return false;
  const compiled = compileLtl({ ast: options.ast });
  const v = table(compiled, trace);
  return v[compiled.root * trace.length + at] === 1;
}

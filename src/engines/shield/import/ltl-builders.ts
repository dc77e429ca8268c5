/**
 * Formula builders for importers: counting and ordering patterns written out in plain LTLf (no counting
 * operators exist), always fully parenthesised so that the text re-parses to the intended tree.
 *
 * Counting. "p holds at >= k distinct steps" unrolls as F(p & X F(p & X ... F p)): each X moves past
 * the step just counted, so k nested F's need k distinct positions. "At most n" is its negation with
 * k = n + 1, "exactly n" the conjunction of both. The formula grows linearly with the bound, which is
 * fine for the bounds web policies use (<= 20), and keeps the rule a pure LTLf formula that both batch
 * evaluation and the step monitor understand — rather than hiding a counter in a predicate binding.
 */

/** p holds at least k times (k <= 0: `true`). */
export function atLeast(options: { atom: string; count: number }): string {
  const { atom, count } = options;
  if (count <= 0) return "true";
  let f = `F ${atom}`;
  for (let i = 1; i < count; i += 1) f = `F(${atom} & X(${f}))`;
  return f;
}

/** p holds at most n times (n < 0: `false`). */
export function atMost(options: { atom: string; count: number }): string {
  if (options.count < 0) return "false";
  return `!(${atLeast({ atom: options.atom, count: options.count + 1 })})`;
}

/** p holds exactly n times. */
export function exactly(options: { atom: string; count: number }): string {
  if (options.count < 0) return "false";
  if (options.count === 0) return `!(F ${options.atom})`;
  return `(${atLeast(options)}) & (${atMost(options)})`;
}

/**
 * The atoms hold at steps in this order: contiguous = at consecutive steps, otherwise at strictly
 * increasing (not necessarily adjacent) steps.
 */
export function sequence(options: { atoms: string[]; contiguous: boolean }): string {
  const { atoms, contiguous } = options;
  if (atoms.length === 0) return "true";
  let f = atoms[atoms.length - 1]!;
  for (let i = atoms.length - 2; i >= 0; i -= 1) {
    f = contiguous ? `${atoms[i]} & X(${f})` : `${atoms[i]} & X(F(${f}))`;
  }
  return `F(${f})`;
}

/** The step is the last one of the trace. */
export const LAST_STEP = "WX false";

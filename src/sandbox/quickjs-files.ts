/** File names QuickJS reports in stacks and syntax errors for the code a run evaluates. */

/** The guardrail program. */
export const PROGRAM_FILE = "guard.js";

/** The i-th prelude (toolbox) source. */
export function preludeFile(index: number): string {
  return `toolbox-${index + 1}.js`;
}

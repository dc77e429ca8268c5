/** Balanced-bracket scanning for JSON written inside text (model replies, agent logs). */

/**
 * Index just past the bracket that closes the `{` or `[` at `start`, honouring JSON strings and their
 * escapes; -1 when the group is unbalanced or closed by the wrong bracket.
 */
export function matchingBracketEnd(options: { text: string; start: number }): number {
  const { text } = options;
  const stack: string[] = [];
  let inString = false;
  for (let i = options.start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === "{") stack.push("}");
    else if (ch === "[") stack.push("]");
    else if (ch === "}" || ch === "]") {
      if (stack.pop() !== ch) return -1;
      if (stack.length === 0) return i + 1;
    }
  }
  return -1;
}

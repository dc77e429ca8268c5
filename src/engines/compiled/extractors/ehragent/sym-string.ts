/**
 * Partially known strings. The abstract interpreter often knows the text of a string except for values
 * computed at run time (a patient id returned by GetValue, a date from Calendar). A SymString keeps the
 * known text and marks each unknown stretch with a Hole, so that a condition such as
 * `'patientunitstayid={}||drugstarttime>{}'.format(a, b)` still shows its column names.
 */

export interface Hole {
  hole: true;
  /** What the unknown text came from, for explanations ("variable x", "GetValue result"). */
  origin: string;
}

export type SymPart = string | Hole;
export type SymString = readonly SymPart[];

export function isHole(part: SymPart): part is Hole {
  return typeof part !== "string";
}

export function hole(origin: string): Hole {
  return { hole: true, origin };
}

/** Joins parts, merging adjacent text and dropping empty text. */
export function symConcat(...strings: SymString[]): SymString {
  const out: SymPart[] = [];
  for (let i = 0; i < strings.length; i++) {
    const s = strings[i]!;
    for (let j = 0; j < s.length; j++) {
      const part = s[j]!;
      if (typeof part === "string") {
        if (part === "") continue;
        const last = out.length - 1;
        if (last >= 0 && typeof out[last] === "string") out[last] = (out[last] as string) + part;
        else out.push(part);
      } else {
        out.push(part);
      }
    }
  }
  return out;
}

export function symText(text: string): SymString {
  return text === "" ? [] : [text];
}

export function symIsKnown(s: SymString): boolean {
  for (let i = 0; i < s.length; i++) if (typeof s[i] !== "string") return false;
  return true;
}

/** The text with each hole rendered by `holeText` (default "{?}"). */
export function symRender(options: {
  value: SymString;
  holeText?: (hole: Hole, index: number) => string;
}): string {
  const { value, holeText } = options;
  if (value.length === 1 && typeof value[0] === "string") return value[0];
  let index = 0;
  let out = "";
  for (const part of value) out += typeof part === "string" ? part : (holeText?.(part, index++) ?? "{?}");
  return out;
}

/** Splits on a separator that occurs in the known text; holes never split. */
export function symSplit(options: { value: SymString; separator: string }): SymString[] {
  const { value, separator } = options;
  let current: SymPart[] = [];
  const pieces: SymPart[][] = [current];
  for (const part of value) {
    if (typeof part !== "string") {
      current.push(part);
      continue;
    }
    if (separator === "") {
      // String.split("") semantics: one piece per UTF-16 unit.
      const texts = part.split("");
      for (let i = 0; i < texts.length; i++) {
        if (i > 0) {
          current = [];
          pieces.push(current);
        }
        if (texts[i] !== "") current.push(texts[i]!);
      }
      continue;
    }
    // indexOf in place of split: no array of texts per part.
    let from = 0;
    for (;;) {
      const at = part.indexOf(separator, from);
      const text = at < 0 ? part.slice(from) : part.slice(from, at);
      if (text !== "") current.push(text);
      if (at < 0) break;
      current = [];
      pieces.push(current);
      from = at + separator.length;
    }
  }
  return pieces;
}

/** The known text before the first hole. */
export function symPrefix(s: SymString): string {
  let out = "";
  for (const part of s) {
    if (typeof part !== "string") break;
    out += part;
  }
  return out;
}

/** Applies a text transformation (lower(), strip()...) to the known parts, keeping holes. */
export function symMapText(options: { value: SymString; map: (text: string) => string }): SymString {
  return symConcat(options.value.map((part) => (typeof part === "string" ? options.map(part) : part)));
}

export function symTrim(s: SymString): SymString {
  // Fully known text (the usual case): no copy of the parts.
  if (s.length === 1 && typeof s[0] === "string") {
    const text = s[0].trim();
    return text === "" ? [] : [text];
  }
  const parts = [...s];
  if (typeof parts[0] === "string") parts[0] = parts[0].trimStart();
  const lastIndex = parts.length - 1;
  if (typeof parts[lastIndex] === "string") parts[lastIndex] = (parts[lastIndex] as string).trimEnd();
  return symConcat(parts);
}

export function describeHoles(s: SymString): string {
  const origins = [...new Set(s.filter(isHole).map((h) => h.origin))];
  return origins.join(", ");
}

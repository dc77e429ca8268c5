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
  for (const s of strings) {
    for (const part of s) {
      if (typeof part === "string") {
        if (part === "") continue;
        const last = out[out.length - 1];
        if (typeof last === "string") out[out.length - 1] = last + part;
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
  return s.every((part) => typeof part === "string");
}

/** The text with each hole rendered by `holeText` (default "{?}"). */
export function symRender(options: {
  value: SymString;
  holeText?: (hole: Hole, index: number) => string;
}): string {
  let index = 0;
  return options.value
    .map((part) => (typeof part === "string" ? part : (options.holeText?.(part, index++) ?? "{?}")))
    .join("");
}

/** Splits on a separator that occurs in the known text; holes never split. */
export function symSplit(options: { value: SymString; separator: string }): SymString[] {
  const pieces: SymPart[][] = [[]];
  for (const part of options.value) {
    if (typeof part !== "string") {
      pieces[pieces.length - 1]!.push(part);
      continue;
    }
    const texts = part.split(options.separator);
    texts.forEach((text, i) => {
      if (i > 0) pieces.push([]);
      if (text !== "") pieces[pieces.length - 1]!.push(text);
    });
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

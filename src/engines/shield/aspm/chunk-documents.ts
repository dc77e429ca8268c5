/**
 * Splits policy documents into chunks the model can read one at a time, each with a clause reference
 * a reviewer can follow back ("it-policy.md §2.3"). Sections come from headings: Markdown `#` headings
 * and numbered headings ("2.3 Data retention", "Section 4: ..."). A heading that carries a number keeps
 * it; an unnumbered one continues the numbering of its previous sibling, or opens "<parent>.1". Text
 * before the first heading is "¶" (preamble). A section longer than `maxChars` is cut between paragraphs (a single paragraph longer
 * than that, between sentences), and the parts are told apart as "(part 2 of 3)".
 */
import { z } from "zod";
import { parseWith } from "../../../core/validate.js";

export interface PolicyDocument {
  name: string;
  text: string;
}

export interface DocumentChunk {
  /** "<document>#<n>", unique across the documents. */
  id: string;
  document: string;
  /** "doc.md §2.3", "doc.md §2.3 (part 2 of 3)", "doc.md ¶ (preamble)". */
  reference: string;
  /** Section number without the document ("2.3"), "" for the preamble. */
  section: string;
  /** The headings leading to this section, outermost first. */
  headings: string[];
  text: string;
}

export const PolicyDocumentSchema = z.object({
  name: z.string().min(1, "give each document a name (e.g. its file name)"),
  text: z.string(),
});

interface Section {
  number: string;
  headings: string[];
  lines: string[];
}

const MARKDOWN_HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const NUMBERED_HEADING = /^(?:(?:section|article|§)\s*)?(\d+(?:\.\d+)*)[.):]?\s+(\S.{0,100})$/i;

function increment(number: string): string {
  const parts = number.split(".");
  parts[parts.length - 1] = String(Number(parts.at(-1)) + 1);
  return parts.join(".");
}

function splitSections(text: string): Section[] {
  const sections: Section[] = [{ number: "", headings: [], lines: [] }];
  const stack: Array<{ level: number; title: string; number: string }> = [];
  // The number last given at each heading level, so an unnumbered heading continues its siblings.
  const lastAtLevel = new Map<number, string>();
  const lines = text.split(/\r?\n/);
  // A document with exactly one top-level Markdown heading, unnumbered, has a title rather than a
  // section 1: its text joins the preamble and its subsections number from 1.
  const topLevel = lines.filter((l) => /^#\s/.test(l));
  const documentTitle =
    topLevel.length === 1 && !/^#\s+(?:(?:section|article|§)\s*)?\d/i.test(topLevel[0]!)
      ? topLevel[0]
      : undefined;
  for (const raw of lines) {
    const line = raw.trimEnd();
    const md = MARKDOWN_HEADING.exec(line);
    let level = 0;
    let title = "";
    let number = "";
    if (md) {
      level = md[1]!.length;
      title = md[2]!.trim();
      const numbered = /^(?:(?:section|article|§)\s*)?(\d+(?:\.\d+)*)[.):]?\s+(.*)$/i.exec(title);
      if (numbered) number = numbered[1]!;
    } else {
      const numbered = NUMBERED_HEADING.exec(line.trim());
      // A numbered line is a heading only when it is short and does not read as a sentence.
      if (numbered && line.trim().length <= 80 && !/[.;:,]$/.test(line.trim()) && line === line.trimStart()) {
        number = numbered[1]!;
        level = number.split(".").length;
        title = line.trim();
      }
    }
    if (level === 0) {
      sections.at(-1)!.lines.push(line);
      continue;
    }
    if (raw === documentTitle) {
      stack.push({ level, title: md ? md[2]!.trim() : line, number: "" });
      sections[0]!.headings = [stack[0]!.title];
      continue;
    }
    while (stack.length > 0 && stack.at(-1)!.level >= level) stack.pop();
    if (number === "") {
      const previous = lastAtLevel.get(level);
      const parent = stack.at(-1)?.number;
      number = previous !== undefined ? increment(previous) : parent ? `${parent}.1` : "1";
    }
    for (const l of [...lastAtLevel.keys()]) if (l > level) lastAtLevel.delete(l);
    lastAtLevel.set(level, number);
    stack.push({ level, title, number });
    sections.push({ number, headings: stack.map((s) => s.title), lines: [] });
  }
  return sections;
}

/** Cuts text into pieces of at most `max` characters, between paragraphs, else between sentences. */
function cut(text: string, max: number): string[] {
  if (text.length <= max) return [text];
  const paragraphs = text.split(/\n\s*\n/).flatMap((p) => {
    if (p.length <= max) return [p];
    const sentences = p.match(/[^.!?]+[.!?]+["')\]]*\s*|[^.!?]+$/g) ?? [p];
    const out: string[] = [];
    let current = "";
    for (const s of sentences) {
      if (current.length + s.length > max && current !== "") {
        out.push(current.trim());
        current = "";
      }
      // A "sentence" longer than the limit is cut hard.
      for (let i = 0; i < s.length; i += max) {
        const piece = s.slice(i, i + max);
        if (current.length + piece.length > max && current !== "") {
          out.push(current.trim());
          current = "";
        }
        current += piece;
      }
    }
    if (current.trim() !== "") out.push(current.trim());
    return out;
  });
  const chunks: string[] = [];
  let current = "";
  for (const p of paragraphs) {
    if (current !== "" && current.length + p.length + 2 > max) {
      chunks.push(current);
      current = "";
    }
    current = current === "" ? p : `${current}\n\n${p}`;
  }
  if (current !== "") chunks.push(current);
  return chunks;
}

export function chunkDocuments(options: {
  documents: readonly PolicyDocument[];
  maxChars?: number;
}): DocumentChunk[] {
  const documents = parseWith({
    schema: z.array(PolicyDocumentSchema),
    value: options.documents,
    what: "documents",
    path: "documents",
  });
  const maxChars = options.maxChars ?? 4000;
  const chunks: DocumentChunk[] = [];
  for (const doc of documents) {
    let n = 0;
    for (const section of splitSections(doc.text)) {
      const body = section.lines.join("\n").trim();
      if (body === "") continue;
      const pieces = cut(body, Math.max(200, maxChars));
      pieces.forEach((piece, i) => {
        n += 1;
        const where = section.number === "" ? "¶ (preamble)" : `§${section.number}`;
        const part = pieces.length > 1 ? ` (part ${i + 1} of ${pieces.length})` : "";
        const heading = section.headings.length > 0 ? `${section.headings.join(" > ")}\n\n` : "";
        chunks.push({
          id: `${doc.name}#${n}`,
          document: doc.name,
          reference: `${doc.name} ${where}${part}`,
          section: section.number,
          headings: section.headings,
          text: `${heading}${piece}`,
        });
      });
    }
  }
  return chunks;
}

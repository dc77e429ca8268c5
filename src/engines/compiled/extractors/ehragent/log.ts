/**
 * Parser for EHRAgent output logs (EICU-AC `ehragent_logs/<id>.txt`). A log is sections separated by a
 * line of 58 dashes: the question, the gold answers, EHRAgent's prompt (ending in the question's
 * Knowledge and "Solution:"), then the solution: code cells `{"cell": "..."}` (occasionally bare code),
 * each followed by its result or an error, debugging prose, a section holding TERMINATE, and the
 * "Ground-Truth Answer ---> ..." line. Also builds and splits GuardAgent's framing of the agent output
 * (knowledge + "Generated code:" + code + "Answer:" + answer). Never throws.
 */
import type { Expr } from "./py-ast.js";
import { parsePython, parsePythonExpression } from "./py-parser.js";

/** A line of exactly 58 dashes between sections. */
const SECTION_SEPARATOR = /\n-{58}\n/;
const EXAMPLES_MARKER = "(END OF EXAMPLES)\n";
const TOOL_CALL = /\b(?:LoadDB|FilterDB|GetValue|SQLInterpreter)\s*[([]/;

export interface EhrAgentCodeBlock {
  code: string;
  /** "cell": a `{"cell": ...}` block; "raw": a section holding bare Python. */
  source: "cell" | "raw";
  /** Index of the section in `sections`. */
  section: number;
  /** The section after it reports an error. */
  failed: boolean;
}

export interface ParsedEhrAgentLog {
  question: string;
  goldAnswers: string[];
  /** GuardAgent's knowledge text: between "(END OF EXAMPLES)\n" and "Question:", or the fallback. */
  knowledge: string;
  hasExamplesMarker: boolean;
  /** The decoded `{"cell": ...}` blocks, in order. */
  codeCells: string[];
  /** Every code block (cells and bare code sections), in order. */
  codeBlocks: EhrAgentCodeBlock[];
  /** The code of the last block before the TERMINATE section: what produced the answer. */
  lastRunCode: string | null;
  /** That block's result was an error (the code that produced the answer was not logged). */
  lastRunCodeFailed: boolean;
  /** As GuardAgent defines it: the section just before the (last) section containing TERMINATE. */
  answer: string;
  /** The section right after the last-run code block (its printed result), trimmed. */
  executionResult: string | null;
  terminated: boolean;
  /** Text after "Ground-Truth Answer --->", when present. */
  groundTruth: string | null;
  sections: string[];
  /** One letter per solution section: C cell, K bare code, E error, T TERMINATE, G ground truth, r other, . empty. */
  shape: string;
  warnings: string[];
}

/** Parses one EHRAgent log. Malformed logs yield warnings and empty fields, not exceptions. */
export function parseEhrAgentLog(options: { text: string }): ParsedEhrAgentLog {
  const text = String(options?.text ?? "").replace(/\r\n?/g, "\n");
  const sections = text.split(SECTION_SEPARATOR);
  const warnings: string[] = [];
  if (sections.length < 4) warnings.push(`log has ${sections.length} sections; expected at least 4`);

  const question = (sections[0] ?? "").trim();
  const goldAnswers = parseGoldAnswers(sections[1] ?? "");

  // The prompt is the section with the examples marker, or else the last one holding "Solution:"
  // before the first code cell.
  const firstCell = sections.findIndex((section, i) => i > 0 && looksLikeCell(section));
  let promptIndex = sections.findIndex((section, i) => i > 0 && section.includes(EXAMPLES_MARKER));
  if (promptIndex < 0) {
    for (let i = 0; i < sections.length && (firstCell < 0 || i < firstCell); i++) {
      if (sections[i]!.includes("Solution:")) promptIndex = i;
    }
  }
  if (promptIndex < 0) {
    warnings.push('no prompt section with "Solution:" found');
    promptIndex = Math.min(2, sections.length - 1);
  }
  const prompt = sections[promptIndex] ?? "";
  const hasExamplesMarker = prompt.includes(EXAMPLES_MARKER);
  const knowledge = extractKnowledge(prompt, hasExamplesMarker, warnings);

  const codeBlocks: EhrAgentCodeBlock[] = [];
  const letters: string[] = [];
  let terminateIndex = -1;
  let groundTruth: string | null = null;
  const tail = prompt.slice(prompt.lastIndexOf("Solution:") + "Solution:".length);
  if (tail.trim() !== "" && isBareCode(tail)) {
    codeBlocks.push({ code: tail.trim(), source: "raw", section: promptIndex, failed: false });
  }
  for (let i = promptIndex + 1; i < sections.length; i++) {
    const section = sections[i]!;
    const trimmed = section.trim();
    if (looksLikeCell(section)) {
      const code = decodeCell({ section });
      if (code === null) {
        warnings.push(`section ${i}: a "cell" block that could not be decoded`);
        letters.push("r");
        continue;
      }
      codeBlocks.push({ code, source: "cell", section: i, failed: false });
      letters.push("C");
      continue;
    }
    if (trimmed.startsWith("Ground-Truth Answer")) {
      groundTruth = (trimmed.split("--->")[1] ?? "").split("\n")[0]!.trim();
      letters.push("G");
      continue;
    }
    if (section.includes("TERMINATE")) {
      terminateIndex = i;
      letters.push("T");
      continue;
    }
    if (trimmed === "") {
      letters.push(".");
      continue;
    }
    if (/^[A-Za-z]*Error\b/.test(trimmed)) {
      letters.push("E");
      continue;
    }
    if (isBareCode(section)) {
      codeBlocks.push({ code: trimmed, source: "raw", section: i, failed: false });
      letters.push("K");
      continue;
    }
    letters.push("r");
  }
  for (const block of codeBlocks) {
    const after = (sections[block.section + 1] ?? "").trim();
    block.failed = /^[A-Za-z]*Error\b/.test(after);
  }

  const beforeEnd = codeBlocks.filter((block) => terminateIndex < 0 || block.section < terminateIndex);
  const lastRun = beforeEnd[beforeEnd.length - 1] ?? codeBlocks[codeBlocks.length - 1] ?? null;
  if (!lastRun) warnings.push("no code found in the log");
  const resultSection = lastRun ? sections[lastRun.section + 1] : undefined;
  const executionResult =
    resultSection !== undefined && !looksLikeCell(resultSection) && !resultSection.includes("TERMINATE")
      ? resultSection.trim()
      : null;
  if (terminateIndex < 0) warnings.push("no TERMINATE section");
  // GuardAgent splits the text after the last "Solution:", so the prompt section counts only by its tail.
  const answer =
    terminateIndex < 0
      ? (executionResult ?? "")
      : terminateIndex - 1 === promptIndex
        ? tail
        : (sections[terminateIndex - 1] ?? "");

  return {
    question,
    goldAnswers,
    knowledge,
    hasExamplesMarker,
    codeCells: codeBlocks.filter((block) => block.source === "cell").map((block) => block.code),
    codeBlocks,
    lastRunCode: lastRun?.code ?? null,
    lastRunCodeFailed: lastRun?.failed ?? false,
    answer,
    executionResult,
    terminated: terminateIndex >= 0,
    groundTruth,
    sections,
    shape: letters.join(""),
    warnings,
  };
}

function looksLikeCell(section: string): boolean {
  const trimmed = section.trim();
  return trimmed.startsWith("{") && /"cell"\s*:/.test(trimmed.slice(0, 40));
}

function isBareCode(section: string): boolean {
  if (!TOOL_CALL.test(section)) return false;
  try {
    parsePython({ source: section.trim() });
    return true;
  } catch {
    return false;
  }
}

function extractKnowledge(prompt: string, hasMarker: boolean, warnings: string[]): string {
  if (hasMarker) {
    const after = prompt.split(EXAMPLES_MARKER)[1] ?? "";
    return after.split("Question:")[0] ?? "";
  }
  // Without the marker (two logs), the question's own Knowledge block is the last one before the last
  // "Solution:"; it ends at "Question:" or "Solution:", whichever comes first.
  const solution = prompt.lastIndexOf("Solution:");
  const start = prompt.lastIndexOf("Knowledge:", solution < 0 ? undefined : solution);
  if (start < 0) {
    warnings.push("no Knowledge block found");
    return "";
  }
  const rest = prompt.slice(start);
  const ends = [rest.indexOf("Question:"), rest.indexOf("Solution:")].filter((i) => i > 0);
  return ends.length > 0 ? rest.slice(0, Math.min(...ends)) : rest;
}

/**
 * Decodes a `{"cell": "..."}` block: strict JSON first, then leniently (LLM-written blocks contain
 * `\'`, backslash-newline continuations and raw newlines). When `\'` is ambiguous, the reading that
 * parses as Python wins.
 */
export function decodeCell(options: { section: string }): string | null {
  const section = String(options?.section ?? "");
  const trimmed = section.trim();
  try {
    const parsed: unknown = JSON.parse(trimmed);
    if (
      typeof parsed === "object" &&
      parsed !== null &&
      typeof (parsed as { cell?: unknown }).cell === "string"
    ) {
      return (parsed as { cell: string }).cell;
    }
  } catch {
    // fall through to the lenient reading
  }
  const open = /"cell"\s*:\s*"/.exec(trimmed);
  if (!open) return null;
  const start = open.index + open[0].length;
  const closingBrace = trimmed.lastIndexOf("}");
  let end = trimmed.lastIndexOf('"', closingBrace >= 0 ? closingBrace : undefined);
  if (end < start) end = trimmed.length;
  const body = trimmed.slice(start, end);
  const plain = decodeLenientJsonString(body, "'");
  const escaped = decodeLenientJsonString(body, "\\'");
  if (plain === escaped) return plain;
  for (const candidate of [plain, escaped]) {
    try {
      parsePython({ source: candidate });
      return candidate;
    } catch {
      // try the other reading
    }
  }
  return plain;
}

function decodeLenientJsonString(body: string, quoteEscape: string): string {
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch !== "\\" || i + 1 >= body.length) {
      out += ch;
      continue;
    }
    const next = body[++i]!;
    switch (next) {
      case "n":
        out += "\n";
        break;
      case "t":
        out += "\t";
        break;
      case "r":
        out += "\r";
        break;
      case "b":
        out += "\b";
        break;
      case "f":
        out += "\f";
        break;
      case '"':
      case "\\":
      case "/":
        out += next;
        break;
      case "'":
        out += quoteEscape;
        break;
      case "\n":
        break;
      case "u": {
        const hex = body.slice(i + 1, i + 5);
        if (/^[0-9a-fA-F]{4}$/.test(hex)) {
          out += String.fromCharCode(Number.parseInt(hex, 16));
          i += 4;
        } else {
          out += "\\u";
        }
        break;
      }
      default:
        out += `\\${next}`;
    }
  }
  return out;
}

/** The gold answers section is a Python list literal of strings; anything else is kept as one answer. */
function parseGoldAnswers(section: string): string[] {
  const trimmed = section.trim();
  if (trimmed === "") return [];
  try {
    const expr = parsePythonExpression({ source: trimmed });
    const values = constantList(expr);
    if (values) return values;
  } catch {
    // not a literal
  }
  return [trimmed];
}

function constantList(expr: Expr): string[] | null {
  if (expr.type !== "List" && expr.type !== "Tuple") return null;
  const out: string[] = [];
  for (const elt of expr.elts) {
    if (elt.type === "Constant") out.push(elt.value === null ? "None" : String(elt.value));
    else if (elt.type === "UnaryOp" && elt.op === "-" && elt.operand.type === "Constant")
      out.push(`-${String(elt.operand.value)}`);
    else return null;
  }
  return out;
}

/** GuardAgent's framing of EHRAgent's output for a guard: knowledge, generated code and answer. */
export function formatEhrAgentOutput(options: { knowledge: string; code: string; answer: string }): string {
  return `${options.knowledge}\nGenerated code:\n${options.code}\nAnswer:\n${options.answer}`;
}

/**
 * Where the parts of text framed by formatEhrAgentOutput lie: the knowledge ends at `knowledgeEnd`, the
 * code is [codeStart, codeEnd), the answer starts at `answerStart`; null when the markers are missing.
 */
function locateParts(
  output: string,
): { knowledgeEnd: number; codeStart: number; codeEnd: number; answerStart: number } | null {
  const codeMarker = "\nGenerated code:\n";
  const answerMarker = "\nAnswer:\n";
  let knowledgeEnd = output.indexOf(codeMarker);
  let codeStart = knowledgeEnd + codeMarker.length;
  if (knowledgeEnd < 0) {
    // An output without knowledge starts with the code marker itself.
    if (!output.startsWith(codeMarker.slice(1))) return null;
    knowledgeEnd = 0;
    codeStart = codeMarker.length - 1;
  }
  const answerAt = output.lastIndexOf(answerMarker);
  if (answerAt < codeStart - 1) return null;
  return {
    knowledgeEnd,
    codeStart,
    codeEnd: Math.max(codeStart, answerAt),
    answerStart: answerAt + answerMarker.length,
  };
}

/** Splits text framed by formatEhrAgentOutput back into its parts; null when the markers are missing. */
export function splitEhrAgentOutput(options: {
  output: string;
}): { knowledge: string; code: string; answer: string } | null {
  const { output } = options;
  const at = locateParts(output);
  if (at === null) return null;
  return {
    knowledge: output.slice(0, at.knowledgeEnd),
    code: output.slice(at.codeStart, at.codeEnd),
    answer: output.slice(at.answerStart),
  };
}

/**
 * The generated code of text framed by formatEhrAgentOutput (splitEhrAgentOutput's `code`), or null
 * when the markers are missing. Cuts out only the code: the compiled engine needs nothing else, on
 * every check.
 */
export function ehrAgentOutputCode(options: { output: string }): string | null {
  const { output } = options;
  const at = locateParts(output);
  return at === null ? null : output.slice(at.codeStart, at.codeEnd);
}

/**
 * The small argument languages of EHRAgent's toolbox. `FilterDB(db, CONDITIONS)` takes conditions joined
 * by `||`, each `column<op>value` (op: = != <> == > < >= <= like, in, not in, is...) or an aggregate
 * selector `max(column)` / `min(column)`, sometimes a function of a column (`datetime(column, ...)=...`).
 * `GetValue(db, ARGUMENT)` takes `column` or `column, operation`. Both strings may be partly unknown
 * (SymString): a column name written literally is read even when the value beside it is not known.
 */
import { isHole, type SymString, symPrefix, symRender, symSplit, symTrim } from "./sym-string.js";

export interface ArgumentColumns {
  /** Column names found, lower case, in order of appearance. */
  columns: string[];
  /** Parts whose column could not be determined, described for a reader. */
  unresolved: string[];
}

const IDENT = "[A-Za-z_][A-Za-z0-9_]*";
const AGGREGATE_SELECTOR = new RegExp(`^\\s*(?:max|min)\\s*\\(\\s*(${IDENT})\\s*\\)\\s*$`, "i");
const WORD_OPERATOR = new RegExp(
  `^\\s*(${IDENT})\\s+(?:not\\s+in|in|not\\s+like|like|glob|is\\s+not|is|not\\s+between|between)(?=\\s|\\(|$)`,
  "i",
);
const FUNCTION_FORM = new RegExp(`^\\s*(${IDENT})\\s*\\(`);
const WRAPPED_COLUMN = new RegExp(`^${IDENT}\\s*\\(\\s*(?:distinct\\s+)?(${IDENT})\\s*\\)$`, "i");
const IDENTIFIERS = new RegExp(IDENT, "g");
/** EHRAgent's data_filter reads the column inside `max(`/`min(` anywhere in a part without a comparison. */
const AGGREGATE_OPEN_AT_END = new RegExp(`(?:max|min)\\s*\\(\\s*(?:${IDENT})?$`, "i");
const AGGREGATE_ANYWHERE = new RegExp(`(?:max|min)\\s*\\(\\s*(${IDENT})`, "gi");

// `column<op>` and a lone `column`, the forms nearly every FilterDB and GetValue argument takes, are
// matched by hand (no regex match arrays); toolbox-arguments.test.ts holds them to the regexes
// `^\s*(IDENT)\s*(?:>=|<=|!=|<>|==|=|>|<)` and `^(IDENT)$`.

/** `\s` of a JavaScript regex: WhiteSpace and LineTerminator. */
export function isRegexSpace(c: number): boolean {
  return (
    c === 32 ||
    (c >= 9 && c <= 13) ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

function isIdentStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
}

function isIdentPart(c: number): boolean {
  return isIdentStart(c) || (c >= 48 && c <= 57);
}

/** The end of the identifier starting at `at`, or -1 when none starts there. */
function identEnd(text: string, at: number): number {
  if (!isIdentStart(text.charCodeAt(at))) return -1;
  let end = at + 1;
  while (end < text.length && isIdentPart(text.charCodeAt(end))) end++;
  return end;
}

/** The identifier `^\s*(IDENT)\s*(?:>=|<=|!=|<>|==|=|>|<)` captures at the start of `text`, or null. */
export function comparedColumn(options: { text: string }): string | null {
  const { text } = options;
  let start = 0;
  while (start < text.length && isRegexSpace(text.charCodeAt(start))) start++;
  const end = identEnd(text, start);
  if (end < 0) return null;
  let at = end;
  while (at < text.length && isRegexSpace(text.charCodeAt(at))) at++;
  const c = text.charCodeAt(at);
  // > >= < <= <> = == all start with one of ><=; ! only as !=.
  if (c === 62 || c === 60 || c === 61 || (c === 33 && text.charCodeAt(at + 1) === 61)) {
    return text.slice(start, end);
  }
  return null;
}

/** Whether the whole text is one identifier (`^(IDENT)$`). */
export function isPlainColumn(options: { text: string }): boolean {
  const { text } = options;
  return text.length > 0 && identEnd(text, 0) === text.length;
}

/** Columns named by a FilterDB condition string. */
export function parseFilterConditions(options: {
  condition: SymString;
  /** Columns of the table being filtered; used to pick the column out of `func(column, ...)` forms. */
  tableColumns?: readonly string[];
}): ArgumentColumns {
  const columns: string[] = [];
  const unresolved: string[] = [];
  const { condition } = options;
  if (condition.length === 1 && typeof condition[0] === "string") {
    // Fully known text (most conditions): the same reading on plain strings, without SymString pieces.
    const text = condition[0];
    for (let from = 0; from <= text.length; ) {
      const at = text.indexOf("||", from);
      const part = (at < 0 ? text.slice(from) : text.slice(from, at)).trim();
      from = at < 0 ? text.length + 1 : at + 2;
      if (part !== "") readCondition(part, part, options.tableColumns, columns, unresolved);
    }
    return { columns, unresolved };
  }
  for (const rawPart of symSplit({ value: condition, separator: "||" })) {
    const part = symTrim(rawPart);
    if (part.length === 0) continue;
    if (isHole(part[0]!)) {
      unresolved.push(
        `FilterDB condition "${symRender({ value: part })}" starts with text only known at run time`,
      );
      continue;
    }
    const prefix = symPrefix(part);
    const whole = part.length === 1 ? prefix : null;
    readCondition(prefix, whole, options.tableColumns, columns, unresolved, part);
  }
  return { columns, unresolved };
}

/**
 * One `||` part of a FilterDB condition, trimmed, that starts with known text: `prefix` is that text,
 * `whole` the whole part when it has no hole. Adds its column, or says why there is none.
 */
function readCondition(
  prefix: string,
  whole: string | null,
  tableColumns: readonly string[] | undefined,
  columns: string[],
  unresolved: string[],
  part: SymString = [prefix],
): void {
  readConditionForm(prefix, whole, tableColumns, columns, unresolved, part);
  // The real tool falls back to `max(`/`min(` anywhere in the part: those columns are read too, and one
  // whose name runs into text only known at run time is not known.
  for (let i = 0; i < part.length; i++) {
    const piece = part[i]!;
    if (typeof piece !== "string" || !piece.includes("(")) continue;
    // exec from 0 rather than matchAll, which copies the regex on every call; no match is empty.
    AGGREGATE_ANYWHERE.lastIndex = 0;
    for (let match = AGGREGATE_ANYWHERE.exec(piece); match; match = AGGREGATE_ANYWHERE.exec(piece)) {
      const column = match[1]!.toLowerCase();
      if (!columns.includes(column)) columns.push(column);
    }
    if (i + 1 < part.length && AGGREGATE_OPEN_AT_END.test(piece)) {
      unresolved.push(
        `FilterDB condition "${symRender({ value: part })}" takes max(/min( of a column only known at run time`,
      );
    }
  }
}

function readConditionForm(
  prefix: string,
  whole: string | null,
  tableColumns: readonly string[] | undefined,
  columns: string[],
  unresolved: string[],
  part: SymString,
): void {
  const aggregate = whole === null ? null : AGGREGATE_SELECTOR.exec(whole);
  const compared = aggregate === null ? comparedColumn({ text: prefix }) : null;
  if (compared !== null) {
    columns.push(compared.toLowerCase());
    return;
  }
  const match = aggregate ?? WORD_OPERATOR.exec(prefix);
  if (match) {
    columns.push(match[1]!.toLowerCase());
    return;
  }
  if (FUNCTION_FORM.test(prefix)) {
    const found = columnsInsideCall({ text: prefix, tableColumns });
    if (found.length > 0) {
      columns.push(...found);
      return;
    }
  }
  unresolved.push(`FilterDB condition "${symRender({ value: part })}" names no column that could be read`);
}

/** Identifiers inside the first call's parentheses, outside quotes, that are columns of the table. */
function columnsInsideCall(options: { text: string; tableColumns: readonly string[] | undefined }): string[] {
  const { text } = options;
  const open = text.indexOf("(");
  let level = 0;
  let quote: string | null = null;
  let end = text.length;
  for (let i = open; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
    } else if (ch === "(") {
      level++;
    } else if (ch === ")") {
      level--;
      if (level === 0) {
        end = i;
        break;
      }
    }
  }
  const inner = text.slice(open + 1, end).replace(/'[^']*'|"[^"]*"/g, " ");
  const identifiers = [...inner.matchAll(IDENTIFIERS)].map((m) => m[0].toLowerCase());
  const known = options.tableColumns;
  if (known === undefined) return identifiers.slice(0, 1);
  return [...new Set(identifiers.filter((id) => known.includes(id)))];
}

/** Columns named by a GetValue argument: `column`, `column, operation` or `operation(column)`. */
export function parseGetValueArgument(options: { argument: SymString }): ArgumentColumns {
  const { argument } = options;
  if (argument.length === 1 && typeof argument[0] === "string") {
    // Fully known text (the usual case): the part before the first comma, on plain strings.
    const comma = argument[0].indexOf(",");
    const head = (comma < 0 ? argument[0] : argument[0].slice(0, comma)).trim();
    if (head !== "") return getValueColumn(head, argument);
  }
  const [first] = symSplit({ value: argument, separator: "," });
  const head = symTrim(first ?? []);
  if (head.length === 0 || head.some(isHole)) {
    return {
      columns: [],
      unresolved: [
        `GetValue argument "${symRender({ value: options.argument })}" has a column name only known at run time`,
      ],
    };
  }
  return getValueColumn(symPrefix(head), argument);
}

/** The column of a GetValue argument whose part before the first comma is `text` (known, trimmed). */
function getValueColumn(text: string, argument: SymString): ArgumentColumns {
  if (isPlainColumn({ text })) return { columns: [text.toLowerCase()], unresolved: [] };
  const wrapped = WRAPPED_COLUMN.exec(text);
  if (wrapped) return { columns: [wrapped[1]!.toLowerCase()], unresolved: [] };
  return {
    columns: [],
    unresolved: [`GetValue argument "${symRender({ value: argument })}" names no column that could be read`],
  };
}

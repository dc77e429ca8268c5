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
const COMPARISON = new RegExp(`^\\s*(${IDENT})\\s*(?:>=|<=|!=|<>|==|=|>|<)`);
const WORD_OPERATOR = new RegExp(
  `^\\s*(${IDENT})\\s+(?:not\\s+in|in|not\\s+like|like|glob|is\\s+not|is|not\\s+between|between)(?=\\s|\\(|$)`,
  "i",
);
const FUNCTION_FORM = new RegExp(`^\\s*(${IDENT})\\s*\\(`);

/** Columns named by a FilterDB condition string. */
export function parseFilterConditions(options: {
  condition: SymString;
  /** Columns of the table being filtered; used to pick the column out of `func(column, ...)` forms. */
  tableColumns?: readonly string[];
}): ArgumentColumns {
  const columns: string[] = [];
  const unresolved: string[] = [];
  for (const rawPart of symSplit({ value: options.condition, separator: "||" })) {
    const part = symTrim(rawPart);
    if (part.length === 0) continue;
    const shown = symRender({ value: part });
    if (isHole(part[0]!)) {
      unresolved.push(`FilterDB condition "${shown}" starts with text only known at run time`);
      continue;
    }
    const prefix = symPrefix(part);
    const whole = part.length === 1 ? prefix : null;
    const aggregate = whole === null ? null : AGGREGATE_SELECTOR.exec(whole);
    const match = aggregate ?? COMPARISON.exec(prefix) ?? WORD_OPERATOR.exec(prefix);
    if (match) {
      columns.push(match[1]!.toLowerCase());
      continue;
    }
    if (FUNCTION_FORM.test(prefix)) {
      const found = columnsInsideCall({ text: prefix, tableColumns: options.tableColumns });
      if (found.length > 0) {
        columns.push(...found);
        continue;
      }
    }
    unresolved.push(`FilterDB condition "${shown}" names no column that could be read`);
  }
  return { columns, unresolved };
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
  const identifiers = [...inner.matchAll(new RegExp(IDENT, "g"))].map((m) => m[0].toLowerCase());
  const known = options.tableColumns;
  if (known === undefined) return identifiers.slice(0, 1);
  return [...new Set(identifiers.filter((id) => known.includes(id)))];
}

/** Columns named by a GetValue argument: `column`, `column, operation` or `operation(column)`. */
export function parseGetValueArgument(options: { argument: SymString }): ArgumentColumns {
  const shown = symRender({ value: options.argument });
  const [first] = symSplit({ value: options.argument, separator: "," });
  const head = symTrim(first ?? []);
  if (head.length === 0 || head.some(isHole)) {
    return {
      columns: [],
      unresolved: [`GetValue argument "${shown}" has a column name only known at run time`],
    };
  }
  const text = symPrefix(head);
  const plain = new RegExp(`^(${IDENT})$`).exec(text);
  if (plain) return { columns: [plain[1]!.toLowerCase()], unresolved: [] };
  const wrapped = new RegExp(`^${IDENT}\\s*\\(\\s*(?:distinct\\s+)?(${IDENT})\\s*\\)$`, "i").exec(text);
  if (wrapped) return { columns: [wrapped[1]!.toLowerCase()], unresolved: [] };
  return { columns: [], unresolved: [`GetValue argument "${shown}" names no column that could be read`] };
}

/**
 * Explains why extracted columns differ from a hand-annotated `access_gt`. Each differing column gets a
 * cause: (a) the extractor is wrong, (b) the annotation lists a column the final code never touches,
 * (c) the annotation omits a column the code does read, (d) anything else (e.g. the logged code is not
 * the code that produced the answer). The test is textual and deliberately conservative: a column only
 * counts as "touched" when its name appears where the code can read it (a string literal other than a
 * LoadDB table name, or an attribute `x.column`); a Python variable or comment with that name does not.
 * Whatever this cannot settle is blamed on the extractor, so that a person looks at it.
 */
import { type Token, tokenizePython } from "./py-tokenizer.js";
import { type DatabaseSchema, EICU_SCHEMA } from "./schema.js";
import { extractSqlAccess } from "./sql-access.js";

export type DisagreementCause = "a" | "b" | "c" | "d";

export const DISAGREEMENT_CAUSES: Record<DisagreementCause, string> = {
  a: "extractor error",
  b: "annotation lists a column the final code never touches",
  c: "annotation omits a column the code reads",
  d: "other",
};

export interface ColumnDisagreement {
  table: string;
  column: string;
  /** missing: in access_gt but not extracted; extra: extracted but not in access_gt. */
  kind: "missing" | "extra";
  cause: DisagreementCause;
  explanation: string;
}

interface Mentions {
  /** Lower-cased words that appear where a column could be read. */
  readable: Set<string>;
  /** Lower-cased tables named as LoadDB arguments or anywhere in a string literal. */
  tablesNamed: Set<string>;
  tokenized: boolean;
}

const TABLE_LOADERS = new Set(["LoadDB"]);

function collectMentions(code: string): Mentions {
  const readable = new Set<string>();
  const tablesNamed = new Set<string>();
  let tokens: Token[];
  try {
    tokens = tokenizePython({ source: code });
  } catch {
    // Untokenizable code: every word outside comments counts, which can only make (b) rarer.
    const words =
      code
        .replace(/#.*$/gm, " ")
        .toLowerCase()
        .match(/[a-z_][a-z0-9_]*/g) ?? [];
    for (const word of words) {
      readable.add(word);
      tablesNamed.add(word);
    }
    return { readable, tablesNamed, tokenized: false };
  }
  tokens.forEach((token, i) => {
    const previous = tokens[i - 1];
    if (token.kind === "string") {
      const words = token.value.toLowerCase().match(/[a-z_][a-z0-9_]*/g) ?? [];
      const loader = tokens[i - 2];
      const isTableArgument =
        previous?.kind === "op" &&
        previous.value === "(" &&
        loader?.kind === "name" &&
        TABLE_LOADERS.has(loader.value);
      for (const word of words) tablesNamed.add(word);
      if (!isTableArgument) for (const word of words) readable.add(word);
    } else if (token.kind === "name" && previous?.kind === "op" && previous.value === ".") {
      readable.add(token.value.toLowerCase());
    }
  });
  return { readable, tablesNamed, tokenized: true };
}

function pairs(tables: Record<string, readonly string[]>): Set<string> {
  const out = new Set<string>();
  for (const [table, columns] of Object.entries(tables)) {
    for (const column of columns) out.add(`${table.toLowerCase()}.${column.toLowerCase()}`);
  }
  return out;
}

/** Every column on which `extracted` and `accessGt` differ, with its cause. Empty when they agree. */
export function classifyDisagreement(options: {
  extracted: Record<string, readonly string[]>;
  accessGt: Record<string, readonly string[]>;
  /** The code the extraction was made from (the log's last-run code). */
  code: string;
  /** The log shows the last code block failing: the code that produced the answer was not logged. */
  lastRunCodeFailed?: boolean;
  /** Errors reported by the extractor (a parse failure makes every difference its fault). */
  extractionErrors?: readonly string[];
  /** Tables the extractor found exposed whole (EhrAgentAccess.wholeTables). */
  wholeTables?: readonly string[];
  /** The question's gold SQL, when known: (b) explanations then say whether it reads the column. */
  goldSql?: string;
  schema?: DatabaseSchema;
}): ColumnDisagreement[] {
  const extracted = pairs(options.extracted);
  const truth = pairs(options.accessGt);
  const mentions = collectMentions(options.code);
  const extractedTables = new Set(Object.keys(options.extracted).map((table) => table.toLowerCase()));
  const failedToRead = (options.extractionErrors ?? []).length > 0;
  const gold =
    options.goldSql === undefined
      ? null
      : new Set(
          extractSqlAccess({ sql: options.goldSql, schema: options.schema ?? EICU_SCHEMA }).reads.map(
            (read) => `${read.table}.${read.column}`,
          ),
        );
  const goldNote = (pair: string) =>
    gold === null
      ? ""
      : gold.has(pair)
        ? "; the gold SQL does read it"
        : "; the gold SQL does not read it either";
  const out: ColumnDisagreement[] = [];

  for (const pair of [...truth].sort()) {
    if (extracted.has(pair)) continue;
    const [table, column] = pair.split(".") as [string, string];
    const base = { table, column, kind: "missing" as const };
    if (failedToRead) {
      out.push({
        ...base,
        cause: "a",
        explanation: `the extractor failed (${options.extractionErrors!.join("; ")})`,
      });
      continue;
    }
    const readInTable = options.extracted[table] ?? [];
    if (!mentions.readable.has(column)) {
      const similar = readInTable.filter(
        (c) => c !== column && (c.startsWith(column) || column.startsWith(c)),
      );
      out.push({
        ...base,
        cause: "b",
        explanation:
          `the final code never names "${column}" where it could be read` +
          (similar.length > 0 ? ` (it reads ${similar.map((c) => `${table}.${c}`).join(", ")})` : "") +
          goldNote(pair),
      });
      continue;
    }
    if (!extractedTables.has(table) && !mentions.tablesNamed.has(table)) {
      out.push({
        ...base,
        cause: "b",
        explanation: `the final code never uses table ${table}${goldNote(pair)}`,
      });
      continue;
    }
    if (options.lastRunCodeFailed) {
      out.push({
        ...base,
        cause: "d",
        explanation: "the last logged code failed; the code that produced the answer is not in the log",
      });
      continue;
    }
    out.push({
      ...base,
      cause: "a",
      explanation: `"${column}" appears in the code where it could be read, but was not extracted for ${table}`,
    });
  }

  for (const pair of [...extracted].sort()) {
    if (truth.has(pair)) continue;
    const [table, column] = pair.split(".") as [string, string];
    const base = { table, column, kind: "extra" as const };
    if (options.lastRunCodeFailed) {
      out.push({
        ...base,
        cause: "d",
        explanation: "the last logged code failed; the code that produced the answer is not in the log",
      });
      continue;
    }
    if (mentions.readable.has(column)) {
      out.push({
        ...base,
        cause: "c",
        explanation: `the code reads "${column}" from ${table}, which the annotation does not list`,
      });
      continue;
    }
    if (options.wholeTables?.includes(table)) {
      out.push({
        ...base,
        cause: "c",
        explanation: `the code exposes every column of ${table} (a whole table is printed, returned or selected with *)`,
      });
      continue;
    }
    out.push({
      ...base,
      cause: "a",
      explanation: `extracted ${table}.${column}, but the code never names "${column}"`,
    });
  }
  return out;
}

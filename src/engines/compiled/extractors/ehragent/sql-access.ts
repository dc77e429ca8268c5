/**
 * Tables and columns read by a SQL query given to EHRAgent's `SQLInterpreter`. The common subset of
 * EHRAgent's SQL is read directly (sql-subset.ts); anything else is parsed with node-sql-parser (SQLite
 * dialect, MySQL as a fallback) and its AST is walked with proper scopes: table aliases, joins, derived
 * tables and CTEs (whose columns trace back to the inner query), correlated subqueries, `*`, and
 * unqualified columns resolved through the schema to the tables in scope (sql-scope.ts, shared by both
 * readers). Parts of the query only known at run time (holes) are replaced by placeholders that cannot
 * be mistaken for schema names.
 */
import { lazyModule } from "../../../../core/lazy-module.js";
import type { DatabaseSchema } from "./schema.js";
import {
  HOLE_IDENTIFIER,
  newScope,
  type SqlAccess,
  type SqlCtes,
  SqlReadRecorder,
  type SqlScope,
} from "./sql-scope.js";
import { readSqlSubset } from "./sql-subset.js";
import { isHole, type SymString } from "./sym-string.js";

export type { ColumnRead, SqlAccess } from "./sql-scope.js";

// node-sql-parser's grammars (~11 MB each in memory) are loaded on the first query outside the subset
// sql-subset.ts reads, so neither a policy without SQL nor EHRAgent's common queries pay for them.
const sqliteParser = lazyModule<typeof import("node-sql-parser/build/sqlite.js")>({
  specifier: "node-sql-parser/build/sqlite.js",
});
const mysqlParser = lazyModule<typeof import("node-sql-parser/build/mysql.js")>({
  specifier: "node-sql-parser/build/mysql.js",
});

/** Renders holes so the query still parses: inside quotes as text, after an operator as a number. */
export function renderSqlWithHoles(options: { sql: SymString }): string {
  let out = "";
  let index = 0;
  for (const part of options.sql) {
    if (!isHole(part)) {
      out += part;
      continue;
    }
    const quotes = (out.match(/'/g) ?? []).length;
    if (quotes % 2 === 1) {
      out += "warden_hole";
    } else if (/(?:[=<>]|\b(?:in|like|glob|between|and|limit|offset|then|else|when)|[(,])\s*$/i.test(out)) {
      out += "0";
    } else {
      out += `${HOLE_IDENTIFIER}${index}`;
    }
    index++;
  }
  return out;
}

type Node = Record<string, unknown>;

/**
 * SQLite's built-in scalar, date, math, JSON and window functions: computations on the values of the
 * query. Any other name (readfile, writefile, load_extension, fts3_tokenizer...) may reach outside the
 * database, so a query that calls one is undetermined.
 */
const SQLITE_FUNCTIONS = new Set(
  `abs changes char coalesce concat concat_ws format glob hex ifnull iif instr last_insert_rowid length
  like likelihood likely lower ltrim max min nullif octet_length printf quote random randomblob replace
  round rtrim sign soundex substr substring total_changes trim typeof unhex unicode unlikely upper
  zeroblob date time datetime julianday unixepoch strftime timediff avg count group_concat string_agg
  sum total acos acosh asin asinh atan atan2 atanh ceil ceiling cos cosh degrees exp floor ln log log10
  log2 mod pi pow power radians sin sinh sqrt tan tanh trunc row_number rank dense_rank percent_rank
  cume_dist ntile lag lead first_value last_value nth_value json json_array json_array_length
  json_extract json_insert json_object json_patch json_remove json_replace json_set json_type json_valid
  json_quote json_group_array json_group_object cast exists not distinct all any current_time current_date current_timestamp`
    .trim()
    .split(/\s+/),
);

/** The lower-case name of a node-sql-parser function node (`{ name: [{ value }] }` or a string). */
function functionName(value: unknown): string | null {
  if (typeof value === "string") return value.toLowerCase();
  if (isNode(value) && Array.isArray(value.name)) {
    const parts = value.name.map((part) =>
      isNode(part) && typeof part.value === "string" ? part.value : null,
    );
    if (parts.every((part) => part !== null)) return parts.join(".").toLowerCase();
  }
  return null;
}

function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function nameOf(value: unknown): string | null {
  if (typeof value === "string") return value;
  if (isNode(value)) {
    if (typeof value.value === "string") return value.value;
    if (isNode(value.expr) && typeof value.expr.value === "string") return value.expr.value;
  }
  return null;
}

/** Holes whose text cannot hold a quote: numbers, and Calendar's dates. */
const QUOTELESS_HOLES = new Set(["number", "Calendar result"]);

/**
 * Whether a part only known at run time lands inside a quoted SQL string or name: a quote in its text
 * would end the literal and change the query (what it reads), so the query is not known.
 */
function holeInsideQuotes(sql: SymString): boolean {
  let single = false;
  let double = false;
  for (const part of sql) {
    if (isHole(part)) {
      if ((single || double) && !QUOTELESS_HOLES.has(part.origin)) return true;
      continue;
    }
    for (const ch of part) {
      if (ch === "'" && !double) single = !single;
      else if (ch === '"' && !single) double = !double;
    }
  }
  return false;
}

/** Reads of one SQL text (possibly several statements). Never throws. */
export function extractSqlAccess(options: { sql: SymString | string; schema: DatabaseSchema }): SqlAccess {
  const { schema } = options;
  const sql = typeof options.sql === "string" ? options.sql : renderSqlWithHoles({ sql: options.sql });
  // The common subset of EHRAgent's SQL is read directly, two orders of magnitude faster than
  // node-sql-parser, with the same resolution and the same order of reads (sql-subset.ts); anything
  // outside it goes to node-sql-parser below.
  const access = readSqlSubset({ sql, schema }) ?? readSqlWithParser({ sql, schema });
  if (typeof options.sql !== "string" && holeInsideQuotes(options.sql)) {
    access.unresolved.push("a value only known at run time is pasted inside a quoted SQL string or name");
  }
  // SQLite has no backslash escapes; the parsers here read `\'` as an escaped quote.
  if (sql.includes("\\")) access.unresolved.push("SQL with a backslash (read differently by SQLite)");
  return access;
}

/**
 * Reads of a rendered SQL text through node-sql-parser, whatever the query: what extractSqlAccess does
 * for queries outside the subset sql-subset.ts reads (exported to hold the two to the same answers).
 */
export function readSqlWithParser(options: { sql: string; schema: DatabaseSchema }): SqlAccess {
  const { sql, schema } = options;
  const recorder = new SqlReadRecorder(schema);
  const errors: string[] = [];

  let ast: unknown;
  try {
    ast = new (sqliteParser().Parser)().astify(sql, { database: "sqlite" });
  } catch (error) {
    // The SQLite grammar of node-sql-parser lacks some of SQLite's syntax (window functions such as
    // `dense_rank() over (order by ...)`, which EHRSQL uses); the MySQL grammar covers it with the same AST.
    try {
      ast = new (mysqlParser().Parser)().astify(sql, { database: "mysql" });
    } catch {
      const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
      errors.push(`SQL could not be parsed: ${message}`);
      fallbackScan({ sql, schema, recorder });
      return recorder.result(errors);
    }
  }

  const walkSelect = (node: Node, parent: SqlScope | null, outerCtes: SqlCtes): Set<string> | "any" => {
    const ctes = new Map(outerCtes);
    if (Array.isArray(node.with)) {
      for (const cte of node.with) {
        if (!isNode(cte)) continue;
        const name = nameOf(cte.name)?.toLowerCase();
        const stmt = isNode(cte.stmt) ? (isNode(cte.stmt.ast) ? cte.stmt.ast : cte.stmt) : null;
        if (name && stmt) ctes.set(name, walkSelect(stmt, parent, ctes));
      }
    }
    const scope = newScope(parent);
    const from = Array.isArray(node.from) ? node.from : [];
    for (const item of from) {
      if (!isNode(item)) continue;
      const alias = typeof item.as === "string" ? item.as.toLowerCase() : null;
      const inner = isNode(item.expr) && isNode(item.expr.ast) ? item.expr.ast : null;
      if (inner) {
        scope.sources.push({ kind: "derived", alias, columns: walkSelect(inner, parent, ctes) });
        continue;
      }
      const table = typeof item.table === "string" ? item.table.toLowerCase() : null;
      if (!table) {
        // Closed world: a FROM item that is neither a table nor a subquery (a table-valued function
        // such as pragma_table_info('diagnosis') or json_each) reads what the reader does not model.
        recorder.note("SQL reads from something that is not a table of the schema (a table-valued function)");
        continue;
      }
      recorder.addTable(scope, table, alias, ctes);
    }
    const columns = Array.isArray(node.columns) ? node.columns : [];
    for (const column of columns) {
      if (isNode(column) && typeof column.as === "string") scope.selectAliases.add(column.as.toLowerCase());
    }
    for (const item of from) {
      if (!isNode(item)) continue;
      walkExpr(item.on, scope, ctes);
      if (Array.isArray(item.using)) {
        for (const name of item.using) {
          const column = nameOf(name);
          if (column) recorder.addUsingColumn(scope, column.toLowerCase());
        }
      }
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === "from" || key === "with" || key === "_next" || key === "tableList" || key === "columnList")
        continue;
      walkExpr(value, scope, ctes);
    }
    if (isNode(node._next)) walkSelect(node._next, parent, outerCtes);
    const outputs = new Set<string>();
    for (const column of columns) {
      if (!isNode(column)) continue;
      if (typeof column.as === "string") outputs.add(column.as.toLowerCase());
      else if (isNode(column.expr) && column.expr.type === "column_ref") {
        const name = nameOf(column.expr.column);
        if (name === "*") return "any";
        if (name) outputs.add(name.toLowerCase());
      }
    }
    if (node.columns === "*") return "any";
    return outputs;
  };

  const walkExpr = (value: unknown, scope: SqlScope, ctes: SqlCtes): void => {
    if (Array.isArray(value)) {
      for (const item of value) walkExpr(item, scope, ctes);
      return;
    }
    if (!isNode(value)) return;
    if (value.type === "column_ref") {
      const column = nameOf(value.column);
      if (column) {
        const table = typeof value.table === "string" ? value.table.toLowerCase() : null;
        recorder.resolveColumn(table, column.toLowerCase(), scope);
      }
      return;
    }
    if (value.type === "function") {
      const name = functionName(value.name);
      if (name === null || !SQLITE_FUNCTIONS.has(name)) {
        recorder.note(`the SQL function "${name ?? "?"}" is outside what the analysis models`);
      }
    }
    if (value.type === "double_quote_string" && typeof value.value === "string") {
      recorder.resolveQuoted(value.value.toLowerCase(), scope);
      return;
    }
    if (value.type === "select") {
      walkSelect(value, scope, ctes);
      return;
    }
    if (isNode(value.ast) && value.ast.type === "select") {
      walkSelect(value.ast, scope, ctes);
      return;
    }
    for (const [key, child] of Object.entries(value)) {
      if (key === "tableList" || key === "columnList") continue;
      walkExpr(child, scope, ctes);
    }
  };

  const statements = Array.isArray(ast) ? ast : [ast];
  for (const statement of statements) {
    if (!isNode(statement)) continue;
    if (statement.type === "select") {
      walkSelect(statement, null, new Map());
    } else {
      errors.push(`SQL statement of type "${String(statement.type)}" is not a read-only query`);
      fallbackScan({ sql, schema, recorder });
    }
  }
  return recorder.result(errors);
}

/**
 * Over-approximation for SQL the parser rejects: every schema table named in the text, and every
 * identifier outside quotes that is a column of one of those tables (qualified names exactly).
 */
function fallbackScan(options: { sql: string; schema: DatabaseSchema; recorder: SqlReadRecorder }): void {
  const { schema, recorder } = options;
  const text = options.sql.replace(/'(?:[^']|'')*'/g, " ").toLowerCase();
  const words = [...text.matchAll(/[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)?/g)].map((m) => m[0]);
  const tables = new Set(words.filter((word) => !word.includes(".") && schema[word]));
  for (const word of words) {
    if (word.includes(".")) {
      const [table, column] = word.split(".") as [string, string];
      if (schema[table]?.includes(column)) recorder.record(table, column);
      continue;
    }
    for (const table of tables) if (schema[table]?.includes(word)) recorder.record(table, word);
  }
}

/**
 * Tables and columns read by a SQL query given to EHRAgent's `SQLInterpreter`. The query is parsed with
 * node-sql-parser (SQLite dialect) and its AST is walked with proper scopes: table aliases, joins,
 * derived tables and CTEs (whose columns trace back to the inner query), correlated subqueries, `*`, and
 * unqualified columns resolved through the schema to the tables in scope. Parts of the query only known
 * at run time (holes) are replaced by placeholders that cannot be mistaken for schema names.
 */
import mysqlParser from "node-sql-parser/build/mysql.js";
import sqliteParser from "node-sql-parser/build/sqlite.js";
import type { DatabaseSchema } from "./schema.js";
import { isHole, type SymString } from "./sym-string.js";

export interface ColumnRead {
  table: string;
  column: string;
}

export interface SqlAccess {
  reads: ColumnRead[];
  /** Tables read through `*`. */
  wholeTables: string[];
  unresolved: string[];
  errors: string[];
}

const HOLE_IDENTIFIER = "warden_hole_";

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

type Source =
  | { kind: "table"; table: string; alias: string | null }
  | { kind: "derived"; alias: string | null; columns: Set<string> | "any" };

interface Scope {
  parent: Scope | null;
  sources: Source[];
  selectAliases: Set<string>;
  /** Columns merged by `JOIN ... USING (...)`: unqualified references to them are not ambiguous. */
  usingColumns: Set<string>;
}

type Ctes = ReadonlyMap<string, Set<string> | "any">;

type Node = Record<string, unknown>;

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

/** Reads of one SQL text (possibly several statements). Never throws. */
export function extractSqlAccess(options: { sql: SymString | string; schema: DatabaseSchema }): SqlAccess {
  const { schema } = options;
  const sql = typeof options.sql === "string" ? options.sql : renderSqlWithHoles({ sql: options.sql });
  const reads = new Map<string, ColumnRead>();
  const wholeTables = new Set<string>();
  const unresolved: string[] = [];
  const errors: string[] = [];
  const record = (table: string, column: string) => {
    reads.set(`${table}.${column}`, { table, column });
  };
  const readColumn = (table: string, column: string) => {
    const columns = schema[table];
    if (!columns) return;
    if (column === "*") {
      wholeTables.add(table);
      for (const c of columns) record(table, c);
    } else if (columns.includes(column)) {
      record(table, column);
    } else if (column.startsWith(HOLE_IDENTIFIER)) {
      unresolved.push(`SQL column of table ${table} is only known at run time`);
    } else {
      unresolved.push(`SQL reads "${column}", which is not a column of ${table}`);
    }
  };

  let ast: unknown;
  try {
    ast = new sqliteParser.Parser().astify(sql, { database: "sqlite" });
  } catch (error) {
    // The SQLite grammar of node-sql-parser lacks some of SQLite's syntax (window functions such as
    // `dense_rank() over (order by ...)`, which EHRSQL uses); the MySQL grammar covers it with the same AST.
    try {
      ast = new mysqlParser.Parser().astify(sql, { database: "mysql" });
    } catch {
      const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
      errors.push(`SQL could not be parsed: ${message}`);
      fallbackScan({ sql, schema, record });
      return { reads: [...reads.values()], wholeTables: [...wholeTables], unresolved, errors };
    }
  }

  const walkSelect = (node: Node, parent: Scope | null, outerCtes: Ctes): Set<string> | "any" => {
    const ctes = new Map(outerCtes);
    if (Array.isArray(node.with)) {
      for (const cte of node.with) {
        if (!isNode(cte)) continue;
        const name = nameOf(cte.name)?.toLowerCase();
        const stmt = isNode(cte.stmt) ? (isNode(cte.stmt.ast) ? cte.stmt.ast : cte.stmt) : null;
        if (name && stmt) ctes.set(name, walkSelect(stmt, parent, ctes));
      }
    }
    const scope: Scope = { parent, sources: [], selectAliases: new Set(), usingColumns: new Set() };
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
      if (!table) continue;
      const cte = ctes.get(table);
      if (cte !== undefined) {
        scope.sources.push({ kind: "derived", alias: alias ?? table, columns: cte });
      } else if (schema[table]) {
        scope.sources.push({ kind: "table", table, alias });
      } else if (table.startsWith(HOLE_IDENTIFIER)) {
        unresolved.push("SQL reads a table whose name is only known at run time");
      } else {
        unresolved.push(`SQL reads table "${table}", which is not in the schema`);
      }
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
          if (column) {
            scope.usingColumns.add(column.toLowerCase());
            resolveColumn(null, column.toLowerCase(), scope);
          }
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

  const walkExpr = (value: unknown, scope: Scope, ctes: Ctes): void => {
    if (Array.isArray(value)) {
      for (const item of value) walkExpr(item, scope, ctes);
      return;
    }
    if (!isNode(value)) return;
    if (value.type === "column_ref") {
      const column = nameOf(value.column);
      if (column) {
        const table = typeof value.table === "string" ? value.table.toLowerCase() : null;
        resolveColumn(table, column.toLowerCase(), scope);
      }
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

  const resolveColumn = (qualifier: string | null, column: string, scope: Scope): void => {
    if (qualifier) {
      for (let s: Scope | null = scope; s; s = s.parent) {
        const source = s.sources.find(
          (candidate) =>
            candidate.alias === qualifier || (candidate.kind === "table" && candidate.table === qualifier),
        );
        if (!source) continue;
        if (source.kind === "table") readColumn(source.table, column);
        return;
      }
      if (schema[qualifier]) {
        readColumn(qualifier, column);
        return;
      }
      unresolved.push(`SQL column "${qualifier}.${column}" refers to an unknown table or alias`);
      return;
    }
    if (column === "*") {
      for (const source of scope.sources) if (source.kind === "table") readColumn(source.table, "*");
      return;
    }
    for (let s: Scope | null = scope; s; s = s.parent) {
      const tables = s.sources.filter(
        (source): source is Extract<Source, { kind: "table" }> =>
          source.kind === "table" && (schema[source.table] ?? []).includes(column),
      );
      const derived = s.sources.some(
        (source) => source.kind === "derived" && (source.columns === "any" || source.columns.has(column)),
      );
      if (tables.length > 0) {
        // SQLite rejects an ambiguous unqualified column, but a guard should count every candidate.
        const distinct = [...new Set(tables.map((source) => source.table))];
        for (const table of distinct) readColumn(table, column);
        if (distinct.length > 1 && !s.usingColumns.has(column)) {
          unresolved.push(`SQL column "${column}" is ambiguous between ${distinct.join(", ")}`);
        }
        return;
      }
      if (derived) return;
    }
    if (scope.selectAliases.has(column)) return;
    if (column.startsWith(HOLE_IDENTIFIER)) {
      unresolved.push("SQL names a column that is only known at run time");
      return;
    }
    unresolved.push(`SQL column "${column}" matches no table in scope`);
  };

  const statements = Array.isArray(ast) ? ast : [ast];
  for (const statement of statements) {
    if (!isNode(statement)) continue;
    if (statement.type === "select") {
      walkSelect(statement, null, new Map());
    } else {
      errors.push(`SQL statement of type "${String(statement.type)}" is not a read-only query`);
      fallbackScan({ sql, schema, record });
    }
  }
  return {
    reads: [...reads.values()],
    wholeTables: [...wholeTables],
    unresolved: [...new Set(unresolved)],
    errors,
  };
}

/**
 * Over-approximation for SQL the parser rejects: every schema table named in the text, and every
 * identifier outside quotes that is a column of one of those tables (qualified names exactly).
 */
function fallbackScan(options: {
  sql: string;
  schema: DatabaseSchema;
  record: (table: string, column: string) => void;
}): void {
  const { schema, record } = options;
  const text = options.sql.replace(/'(?:[^']|'')*'/g, " ").toLowerCase();
  const words = [...text.matchAll(/[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)?/g)].map((m) => m[0]);
  const tables = new Set(words.filter((word) => !word.includes(".") && schema[word]));
  for (const word of words) {
    if (word.includes(".")) {
      const [table, column] = word.split(".") as [string, string];
      if (schema[table]?.includes(column)) record(table, column);
      continue;
    }
    for (const table of tables) if (schema[table]?.includes(word)) record(table, word);
  }
}

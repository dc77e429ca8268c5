/**
 * How a SQL query's column references resolve to schema columns: the scopes of nested selects (table
 * sources with their aliases, derived tables and CTEs, select-list aliases, `USING` columns) and the
 * record of what was read. Shared by the two readers of a query (sql-access.ts walks node-sql-parser's
 * AST; sql-subset.ts parses the common subset itself), so that both resolve names the same way.
 */
import type { DatabaseSchema } from "./schema.js";

export interface ColumnRead {
  table: string;
  column: string;
}

export interface SqlAccess {
  reads: ColumnRead[];
  /** Tables read through `*`. */
  wholeTables: string[];
  /**
   * Every schema table the query reads rows of (named in a FROM or JOIN), with or without a column:
   * `select count(*) from t` and `exists (select 1 from t)` read t.
   */
  tables: string[];
  unresolved: string[];
  errors: string[];
}

/** Prefix of the names renderSqlWithHoles gives to parts of a query only known at run time. */
export const HOLE_IDENTIFIER = "warden_hole_";

export type SqlSource =
  | { kind: "table"; table: string; alias: string | null }
  | { kind: "derived"; alias: string | null; columns: Set<string> | "any" };

export interface SqlScope {
  parent: SqlScope | null;
  sources: SqlSource[];
  selectAliases: Set<string>;
  /** Columns merged by `JOIN ... USING (...)`: unqualified references to them are not ambiguous. */
  usingColumns: Set<string>;
}

/** CTE name -> the columns its query outputs ("any" after a `*`). */
export type SqlCtes = ReadonlyMap<string, Set<string> | "any">;

export function newScope(parent: SqlScope | null): SqlScope {
  return { parent, sources: [], selectAliases: new Set(), usingColumns: new Set() };
}

/** The reads of one query as they are found; `result` lists them in the order found. */
export class SqlReadRecorder {
  private readonly reads = new Map<string, ColumnRead>();
  private readonly wholeTables = new Set<string>();
  private readonly tables = new Set<string>();
  private readonly unresolved: string[] = [];

  constructor(private readonly schema: DatabaseSchema) {}

  record(table: string, column: string): void {
    this.reads.set(`${table}.${column}`, { table, column });
  }

  readColumn(table: string, column: string): void {
    const columns = this.schema[table];
    if (!columns) return;
    if (column === "*") {
      this.wholeTables.add(table);
      for (const c of columns) this.record(table, c);
    } else if (columns.includes(column)) {
      this.record(table, column);
    } else if (column.startsWith(HOLE_IDENTIFIER)) {
      this.unresolved.push(`SQL column of table ${table} is only known at run time`);
    } else {
      this.unresolved.push(`SQL reads "${column}", which is not a column of ${table}`);
    }
  }

  /** A table named in FROM (lower case): a CTE, a schema table, or a reported unknown. */
  addTable(scope: SqlScope, table: string, alias: string | null, ctes: SqlCtes): void {
    const cte = ctes.get(table);
    if (cte !== undefined) {
      scope.sources.push({ kind: "derived", alias: alias ?? table, columns: cte });
    } else if (this.schema[table]) {
      scope.sources.push({ kind: "table", table, alias });
      this.tables.add(table);
    } else if (table.startsWith(HOLE_IDENTIFIER)) {
      this.unresolved.push("SQL reads a table whose name is only known at run time");
    } else {
      this.unresolved.push(`SQL reads table "${table}", which is not in the schema`);
    }
  }

  /** `JOIN ... USING (column)`: the column is read, and unqualified uses of it are not ambiguous. */
  addUsingColumn(scope: SqlScope, column: string): void {
    scope.usingColumns.add(column);
    this.resolveColumn(null, column, scope);
  }

  /**
   * A double-quoted name (`"age"`, lower case): SQLite reads it as a column when one of that name is in
   * scope, and as a string otherwise. The column reading is taken whenever it exists (the strict choice).
   */
  resolveQuoted(name: string, scope: SqlScope): void {
    // "warden_hole" is how renderSqlWithHoles writes a hole inside quotes; HOLE_IDENTIFIER starts with it.
    if (name.includes("warden_hole")) {
      this.unresolved.push("a double-quoted SQL name is only known at run time");
      return;
    }
    for (let s: SqlScope | null = scope; s; s = s.parent) {
      const names = s.sources.some((source) =>
        source.kind === "table"
          ? (this.schema[source.table] ?? []).includes(name)
          : source.columns === "any" || source.columns.has(name),
      );
      if (names) {
        this.resolveColumn(null, name, scope);
        return;
      }
    }
  }

  /** Records a reason the query's reads are not fully known. */
  note(reason: string): void {
    this.unresolved.push(reason);
  }

  /** A column reference (both names lower case), resolved through the scopes from `scope` outwards. */
  resolveColumn(qualifier: string | null, column: string, scope: SqlScope): void {
    const { schema } = this;
    if (qualifier) {
      for (let s: SqlScope | null = scope; s; s = s.parent) {
        const source = s.sources.find(
          (candidate) =>
            candidate.alias === qualifier || (candidate.kind === "table" && candidate.table === qualifier),
        );
        if (!source) continue;
        if (source.kind === "table") this.readColumn(source.table, column);
        return;
      }
      if (schema[qualifier]) {
        this.readColumn(qualifier, column);
        return;
      }
      this.unresolved.push(`SQL column "${qualifier}.${column}" refers to an unknown table or alias`);
      return;
    }
    if (column === "*") {
      for (const source of scope.sources) if (source.kind === "table") this.readColumn(source.table, "*");
      return;
    }
    for (let s: SqlScope | null = scope; s; s = s.parent) {
      const tables = s.sources.filter(
        (source): source is Extract<SqlSource, { kind: "table" }> =>
          source.kind === "table" && (schema[source.table] ?? []).includes(column),
      );
      const derived = s.sources.some(
        (source) => source.kind === "derived" && (source.columns === "any" || source.columns.has(column)),
      );
      if (tables.length > 0) {
        // SQLite rejects an ambiguous unqualified column, but a guard should count every candidate.
        const distinct = [...new Set(tables.map((source) => source.table))];
        for (const table of distinct) this.readColumn(table, column);
        if (distinct.length > 1 && !s.usingColumns.has(column)) {
          this.unresolved.push(`SQL column "${column}" is ambiguous between ${distinct.join(", ")}`);
        }
        return;
      }
      if (derived) return;
    }
    if (scope.selectAliases.has(column)) return;
    if (column.startsWith(HOLE_IDENTIFIER)) {
      this.unresolved.push("SQL names a column that is only known at run time");
      return;
    }
    this.unresolved.push(`SQL column "${column}" matches no table in scope`);
  }

  result(errors: string[]): SqlAccess {
    return {
      reads: [...this.reads.values()],
      wholeTables: [...this.wholeTables],
      tables: [...this.tables],
      unresolved: [...new Set(this.unresolved)],
      errors,
    };
  }
}

/**
 * Role-based access for the compiled engine, split in two: what a role may read is indexed once per
 * policy (compileAccessGrants), and each check only walks the tables and columns the agent read
 * (checkCompiledAccess). The semantics are exactly those of the toolbox's checkAccess (trimmed,
 * case-insensitive names; "*" grants a whole table; a needed "*" is never covered by a column list;
 * results in `needed` order, first spelling, each once); checkAccess itself rebuilds the grant index
 * on every call, which is most of the cost of a compiled decision. access-grants.test.ts holds the two to
 * the same answers.
 */
import {
  type AccessCheck,
  type AccessGrants,
  accessColumnList,
  accessKey,
  type ColumnList,
  indexAccessGrants,
} from "../../toolbox/builtins/check-access.js";

export type { AccessGrants, TableGrant } from "../../toolbox/builtins/check-access.js";

/** Indexes what a role may read (table -> columns, "*" = every column); done once per policy. */
export function compileAccessGrants(options: {
  allowed: Readonly<Record<string, ColumnList>>;
}): AccessGrants {
  return indexAccessGrants(options);
}

/** The tables and columns in `needed` that `grants` does not cover, as checkAccess reports them. */
export function checkCompiledAccess(options: {
  grants: AccessGrants;
  needed: Readonly<Record<string, ColumnList>>;
}): AccessCheck {
  const { grants, needed } = options;
  const tables = Object.keys(needed);
  return checkCanonical(grants, needed, tables) ?? checkAny(grants, needed, tables);
}

/** Names made of lower-case ASCII letters, digits and "_": their own keys, and the usual ones. */
const PLAIN_NAME = /^[a-z0-9_]+$/;

/** A name that is its own key: a non-empty string, trimmed and lower case. */
function isCanonical(name: unknown): name is string {
  // The regex answers the usual names without the copies trim() and toLowerCase() make.
  return typeof name === "string" && (PLAIN_NAME.test(name) || (name !== "" && accessKey(name) === name));
}

/**
 * checkCompiledAccess when every table name and every column is already its own key (what the
 * extractors produce): no table is named twice, so nothing needs merging, and no copies of the lists are
 * needed. A name found among the grants is a key already; only the others are checked. The same answer
 * as checkAny; null, without any effect, for any other input.
 */
function checkCanonical(
  grants: AccessGrants,
  needed: Readonly<Record<string, ColumnList>>,
  tables: readonly string[],
): AccessCheck | null {
  // Every list is read first (checkAny reports a bad one before anything else).
  for (let t = 0; t < tables.length; t++) if (!Array.isArray(needed[tables[t]!])) return null;
  let denied = false;
  const inaccessible: Record<string, string[]> = {};
  for (let t = 0; t < tables.length; t++) {
    const table = tables[t]!;
    const grant = grants.get(table);
    if (grant === undefined && !isCanonical(table)) return null;
    if (grant?.all) continue;
    const columns = needed[table] as readonly unknown[];
    const missing: string[] = [];
    for (let c = 0; c < columns.length; c++) {
      const column = columns[c];
      if (grant?.columns.has(column as string)) continue;
      if (!isCanonical(column)) return null;
      // Each column once, first occurrence kept ("*" is never among a grant's columns).
      if (columns.indexOf(column) === c) missing.push(column);
    }
    if (grant && missing.length === 0) continue;
    denied = true;
    // defineProperty keeps a table literally named "__proto__" an ordinary key; for any other name a
    // plain assignment makes the same own property (Object.prototype has no other setter), faster.
    if (table === "__proto__") {
      Object.defineProperty(inaccessible, table, {
        value: missing,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else inaccessible[table] = missing;
  }
  return { denied, inaccessible };
}

/** checkCompiledAccess for any input: names trimmed and lower-cased, tables named twice merged. */
function checkAny(
  grants: AccessGrants,
  needed: Readonly<Record<string, ColumnList>>,
  tables: readonly string[],
): AccessCheck {
  const keys = tables.map(accessKey);
  // Read (and validate) every list first, in order, so a bad one is reported as checkAccess would.
  const lists = tables.map((table) => accessColumnList(needed[table], `needed.${table}`));
  let denied = false;
  const inaccessible: Record<string, string[]> = {};
  for (let t = 0; t < tables.length; t++) {
    const k = keys[t]!;
    // A table named twice (two spellings of one name) is merged, as checkAccess merges it.
    if (keys.indexOf(k) !== t) continue;
    const names: string[] = [];
    const columnKeys: string[] = [];
    for (let u = t; u < tables.length; u++) {
      if (keys[u] !== k) continue;
      for (const c of lists[u]!) {
        const ck = accessKey(c);
        // First spelling of each column, in order: lists are short, so a scan beats a Map here.
        if (columnKeys.includes(ck)) continue;
        columnKeys.push(ck);
        names.push(c);
      }
    }
    const grant = grants.get(k);
    if (grant?.all) continue;
    const missing: string[] = [];
    for (let c = 0; c < names.length; c++) {
      const ck = columnKeys[c]!;
      if (!grant || ck === "*" || !grant.columns.has(ck)) missing.push(names[c]!);
    }
    if (grant && missing.length === 0) continue;
    denied = true;
    // defineProperty keeps a table literally named "__proto__" an ordinary key.
    Object.defineProperty(inaccessible, tables[t]!.trim(), {
      value: missing,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return { denied, inaccessible };
}

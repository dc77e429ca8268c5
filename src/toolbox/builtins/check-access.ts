/**
 * CheckAccess, the access-control built-in (GuardAgent's CheckAccess): which of the tables and columns
 * an agent read are outside what the identity may read. Two implementations with one semantics: the
 * JavaScript source the sandbox evaluates for model-written programs, and `checkAccess` for the host (the
 * compiled engine). A test runs both on random inputs and requires the same answer.
 *
 * Semantics: `allowed` and `needed` map table names to column lists (a comma-separated string is accepted
 * too). A column "*" in `allowed` (or the value "*") allows every column of the table. Table and column
 * names are trimmed and compared without case. A table absent from `allowed` makes all its needed columns
 * inaccessible (and is reported even with no columns); otherwise the inaccessible columns are the needed
 * ones not allowed. The result lists tables and columns in the order `needed` gives them, each once, in
 * their first spelling (trimmed).
 */
import { WardenError } from "../../core/errors.js";
import type { ToolFunction } from "../tool-function.js";

export type ColumnList = readonly string[] | string;

export interface AccessCheck {
  denied: boolean;
  inaccessible: Record<string, string[]>;
}

function isMap(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** A table or column name as access compares it: trimmed, lower case. */
export function accessKey(name: unknown): string {
  return String(name).trim().toLowerCase();
}

/** A column list (array, or comma-separated string) as trimmed, non-empty names; `where` names it in errors. */
export function accessColumnList(value: unknown, where: string): string[] {
  if (value === null || value === undefined) return [];
  if (typeof value === "string") {
    return value
      .split(",")
      .map((c) => c.trim())
      .filter(Boolean);
  }
  if (!Array.isArray(value)) {
    throw new WardenError({
      code: "INVALID_INPUT",
      message: `checkAccess: ${where} must be a list of column names`,
      details: { fields: [where] },
    });
  }
  const out: string[] = [];
  for (const c of value) {
    const name = String(c).trim();
    if (name) out.push(name);
  }
  return out;
}

/** One table's grant: every column, or the listed ones (keys). */
export interface TableGrant {
  all: boolean;
  columns: Set<string>;
}

/** A role's grants by table key. */
export type AccessGrants = ReadonlyMap<string, TableGrant>;

/** Indexes what an identity may read (table -> columns, "*" = every column); tables named twice merge. */
export function indexAccessGrants(options: { allowed: Readonly<Record<string, ColumnList>> }): AccessGrants {
  const { allowed } = options;
  const grants = new Map<string, TableGrant>();
  for (const table of Object.keys(allowed)) {
    const k = accessKey(table);
    const grant = grants.get(k) ?? { all: false, columns: new Set<string>() };
    for (const c of accessColumnList(allowed[table], `allowed.${table}`)) {
      if (c === "*") grant.all = true;
      else grant.columns.add(accessKey(c));
    }
    grants.set(k, grant);
  }
  return grants;
}

export function checkAccess(options: {
  /** Table -> columns the identity may read ("*" = every column). */
  allowed: Readonly<Record<string, ColumnList>>;
  /** Table -> columns the agent read. */
  needed: Readonly<Record<string, ColumnList>>;
}): AccessCheck {
  const { allowed, needed } = options as { allowed: unknown; needed: unknown };
  if (!isMap(allowed)) {
    throw new WardenError({
      code: "INVALID_INPUT",
      message:
        "checkAccess: allowed must be an object mapping each table to the columns the identity may read",
      details: { fields: ["allowed"] },
    });
  }
  if (!isMap(needed)) {
    throw new WardenError({
      code: "INVALID_INPUT",
      message: "checkAccess: needed must be an object mapping each table to the columns the agent reads",
      details: { fields: ["needed"] },
    });
  }
  const grants = indexAccessGrants({ allowed: allowed as Record<string, ColumnList> });
  const tables = new Map<string, { name: string; columns: Map<string, string> }>();
  for (const table of Object.keys(needed)) {
    const k = accessKey(table);
    let entry = tables.get(k);
    if (!entry) {
      entry = { name: table.trim(), columns: new Map() };
      tables.set(k, entry);
    }
    for (const c of accessColumnList(needed[table], `needed.${table}`)) {
      const ck = c === "*" ? "*" : accessKey(c);
      if (!entry.columns.has(ck)) entry.columns.set(ck, c);
    }
  }
  let denied = false;
  const inaccessible: Record<string, string[]> = {};
  for (const [k, entry] of tables) {
    const grant = grants.get(k);
    if (grant?.all) continue;
    const missing: string[] = [];
    for (const [ck, name] of entry.columns) {
      if (!grant || ck === "*" || !grant.columns.has(ck)) missing.push(name);
    }
    if (grant && missing.length === 0) continue;
    denied = true;
    // defineProperty keeps a table literally named "__proto__" an ordinary key.
    Object.defineProperty(inaccessible, entry.name, {
      value: missing,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return { denied, inaccessible };
}

const SOURCE = `function CheckAccess(allowed, needed) {
  var where = "CheckAccess(allowed, needed): ";
  if (allowed === null || typeof allowed !== "object" || Array.isArray(allowed))
    throw new TypeError(where + "allowed must be an object mapping each table to the columns the identity may read");
  if (needed === null || typeof needed !== "object" || Array.isArray(needed))
    throw new TypeError(where + "needed must be an object mapping each table to the columns the agent reads");
  function columns(value, field) {
    if (value === null || value === undefined) return [];
    if (typeof value === "string") value = value.split(",");
    else if (!Array.isArray(value)) throw new TypeError(where + field + " must be a list of column names");
    var out = [];
    for (var i = 0; i < value.length; i++) {
      var c = String(value[i]).trim();
      if (c) out.push(c);
    }
    return out;
  }
  var grants = Object.create(null), tables = Object.create(null), order = [];
  var keys = Object.keys(allowed), i, j, t, k, list, grant, entry;
  for (i = 0; i < keys.length; i++) {
    t = keys[i];
    k = t.trim().toLowerCase();
    grant = grants[k] || (grants[k] = { all: false, columns: Object.create(null) });
    list = columns(allowed[t], "allowed." + t);
    for (j = 0; j < list.length; j++) {
      if (list[j] === "*") grant.all = true;
      else grant.columns[list[j].toLowerCase()] = true;
    }
  }
  keys = Object.keys(needed);
  for (i = 0; i < keys.length; i++) {
    t = keys[i];
    k = t.trim().toLowerCase();
    entry = tables[k];
    if (!entry) order.push(entry = tables[k] = { key: k, name: t.trim(), seen: Object.create(null), columns: [] });
    list = columns(needed[t], "needed." + t);
    for (j = 0; j < list.length; j++) {
      var ck = list[j].toLowerCase();
      if (!(ck in entry.seen)) {
        entry.seen[ck] = true;
        entry.columns.push(list[j]);
      }
    }
  }
  var denied = false, inaccessible = {};
  for (i = 0; i < order.length; i++) {
    entry = order[i];
    grant = grants[entry.key];
    if (grant && grant.all) continue;
    var missing = [];
    for (j = 0; j < entry.columns.length; j++) {
      var lower = entry.columns[j].toLowerCase();
      if (!grant || lower === "*" || !(lower in grant.columns)) missing.push(entry.columns[j]);
    }
    if (grant && missing.length === 0) continue;
    denied = true;
    Object.defineProperty(inaccessible, entry.name, { value: missing, enumerable: true, writable: true, configurable: true });
  }
  return { denied: denied, inaccessible: inaccessible };
}`;

export const CHECK_ACCESS_FUNCTION: ToolFunction = {
  name: "CheckAccess",
  signature:
    'CheckAccess(allowed: { [table: string]: string[] | "*" }, needed: { [table: string]: string[] }) -> { denied: boolean, inaccessible: { [table: string]: string[] } }',
  description:
    'Access control: the needed tables/columns the identity may not read (a table missing from allowed makes all its needed columns inaccessible; "*" allows every column; names compared without case); denied is true when any is inaccessible.',
  source: SOURCE,
};

/**
 * The abstract values tracked by the EHRAgent code interpreter. A value is what the interpreter knows
 * about a Python value at a program point: a table handle (LoadDB/FilterDB result) and its rows and
 * column series, a partly known string, containers, functions, or "unknown". `oneOf` keeps the
 * alternatives that flow together after an if/else; `join` merges values and bounds their size.
 */
import type { Expr, Param, Stmt } from "./py-ast.js";
import { sortedJoin } from "./sort-strings.js";
import { hole, isHole, type SymString } from "./sym-string.js";

/**
 * The variables of one scope at one program point. Branches run on copies of a frame that share its
 * `scope` (one object per module, class body or function call): a closure that names an outer scope
 * reads whichever copy of it is live at the time (Interpreter.live), as Python reads the one variable.
 */
export interface Frame {
  vars: Map<string, Val>;
  parent: Frame | null;
  scope: object;
}

export type Val =
  | { k: "str"; s: SymString }
  | { k: "num"; value: number | null }
  | { k: "bool" }
  | { k: "none" }
  /** A DataFrame from LoadDB/FilterDB: which tables it may hold rows of. */
  | { k: "table"; tables: readonly string[] }
  /** One row of such a table (iteration, iloc[i], iterrows()). */
  | { k: "row"; tables: readonly string[] }
  /** A column series, `db['col']` (already counted as read when created). */
  | { k: "column"; tables: readonly string[]; column: string }
  /** `.iloc` / `.loc` / `.at` / `.iat` of a table, row or column. */
  | { k: "indexer"; of: "table" | "row" | "column"; tables: readonly string[]; mode: string }
  /**
   * A list, tuple or set. exact: items are the elements in order; otherwise items approximate every
   * element (any element may be any of them). tuple: made by a tuple display (`%` formatting spreads a
   * tuple, not a list).
   */
  | { k: "list"; items: Val[]; exact: boolean; tuple?: true }
  | { k: "dict"; keys: Val[]; values: Val[]; exact: boolean }
  | { k: "slice" }
  | {
      k: "func";
      name: string;
      params: readonly Param[];
      body: readonly Stmt[] | Expr;
      closure: Frame;
      /** Default values of the parameters, in order, evaluated once where the function is defined. */
      defaults: readonly (Val | undefined)[];
      id: number;
    }
  | { k: "builtin"; name: string }
  /** An imported module or a member of one the interpreter models (python-world.ts), by qualified name. */
  | { k: "module"; path: string }
  | { k: "method"; self: Val; name: string }
  | { k: "unknown"; origin: string }
  | { k: "oneOf"; options: Val[] };

export const NONE: Val = { k: "none" };
export const BOOL: Val = { k: "bool" };
export const NUM: Val = { k: "num", value: null };
const NO_TABLES: readonly string[] = Object.freeze([]);

const MAX_OPTIONS = 12;
const MAX_ITEMS = 16;

export function unknown(origin: string): Val {
  return { k: "unknown", origin };
}

export function str(s: SymString): Val {
  return { k: "str", s };
}

export function unknownStr(origin: string): Val {
  return { k: "str", s: [hole(origin)] };
}

export function num(value: number | null): Val {
  return { k: "num", value };
}

/** A key that is equal for values the interpreter cannot tell apart. */
export function valKey(value: Val, depth = 0): string {
  if (depth > 4) return "…";
  switch (value.k) {
    case "str":
      // Known text (most strings) is its parts as they are.
      return value.s.every((part) => typeof part === "string")
        ? `s:${JSON.stringify(value.s)}`
        : `s:${JSON.stringify(value.s.map((part) => (isHole(part) ? { h: part.origin } : part)))}`;
    case "num":
      return `n:${value.value}`;
    case "table":
    case "row":
      return `${value.k}:${sortedJoin(value.tables)}`;
    case "column":
      return `c:${sortedJoin(value.tables)}.${value.column}`;
    case "indexer":
      return `i:${value.of}:${value.mode}:${sortedJoin(value.tables)}`;
    case "list":
      return `l${value.exact ? "e" : ""}${value.tuple ? "t" : ""}[${value.items.map((item) => valKey(item, depth + 1)).join(";")}]`;
    case "dict":
      return `d[${value.keys.map((item, i) => `${valKey(item, depth + 1)}=${valKey(value.values[i]!, depth + 1)}`).join(";")}]`;
    case "func":
      return `f:${value.id}`;
    case "builtin":
      return `b:${value.name}`;
    case "module":
      return `M:${value.path}`;
    case "method":
      return `m:${value.name}:${valKey(value.self, depth + 1)}`;
    case "unknown":
      return `u:${value.origin}`;
    case "oneOf":
      return `o(${value.options.map((option) => valKey(option, depth + 1)).join("|")})`;
    default:
      return value.k;
  }
}

/**
 * Whether valKey(value) throws: it reads a missing dict value (a dict comprehension can leave a dict
 * with fewer values than keys) within the depth valKey looks at. join calls valKey on every option,
 * so a join of such a value throws; callers that skip a join as an optimisation check this to throw
 * just where the join would have.
 */
export function breaksValKey(value: Val | undefined, depth = 0): boolean {
  if (depth > 4) return false;
  if (value === undefined) return true;
  switch (value.k) {
    case "list":
      return value.items.some((item) => breaksValKey(item, depth + 1));
    case "dict":
      return value.keys.some(
        (key, i) => breaksValKey(key, depth + 1) || breaksValKey(value.values[i], depth + 1),
      );
    case "method":
      return breaksValKey(value.self, depth + 1);
    case "oneOf":
      return value.options.some((option) => breaksValKey(option, depth + 1));
    default:
      return false;
  }
}

/** Every alternative of a value (a non-oneOf value is its own only alternative). */
export function options(value: Val): Val[] {
  return value.k === "oneOf" ? value.options : [value];
}

/** Merges values that may flow to the same place; tables merge by union of their tables. */
export function join(...values: Val[]): Val {
  const flat: Val[] = [];
  const seen = new Set<string>();
  for (const value of values) {
    for (const option of options(value)) {
      const key = valKey(option);
      if (seen.has(key)) continue;
      seen.add(key);
      flat.push(option);
    }
  }
  if (flat.length === 0) return NONE;
  // Several known numbers flowing together: a number (loop counters then settle at once).
  let numbers = 0;
  for (const option of flat) if (option.k === "num") numbers++;
  if (numbers > 1) {
    const rest = flat.filter((option) => option.k !== "num");
    flat.length = 0;
    flat.push(NUM, ...rest);
  }
  // Handles of the same kind merge into one handle over the union of tables.
  const merged: Val[] = [];
  for (const option of flat) {
    if (option.k === "table" || option.k === "row") {
      const same = merged.findIndex((other) => other.k === option.k);
      const other = merged[same];
      if (other && (other.k === "table" || other.k === "row")) {
        merged[same] = { k: option.k, tables: [...new Set([...other.tables, ...option.tables])] };
        continue;
      }
    }
    merged.push(option);
  }
  if (merged.length === 1) return merged[0]!;
  if (merged.length > MAX_OPTIONS) {
    // Too many alternatives: keep the handles (they matter for attribution) and forget the rest.
    const handles = merged.filter((option) => option.k === "table" || option.k === "row");
    return handles.length > 0
      ? { k: "oneOf", options: [...handles, unknown("many alternatives")] }
      : unknown("many alternatives");
  }
  return { k: "oneOf", options: merged };
}

/** Applies `fn` to each alternative and joins the results. */
export function mapOptions(value: Val, fn: (option: Val) => Val): Val {
  if (value.k !== "oneOf") return fn(value);
  return join(...value.options.map(fn));
}

/** A list value that approximates its elements (used after mutation or for unknown lengths). */
export function inexactList(items: Val[]): Val {
  const elements = options(join(...items));
  return { k: "list", items: elements.slice(0, MAX_ITEMS), exact: false };
}

/**
 * Adds an element to a list in place (Python lists are shared by reference). Answers whether what the
 * list may hold changed (a loop runs until nothing does).
 */
export function appendToList(list: Extract<Val, { k: "list" }>, item: Val): boolean {
  const before = list.exact ? null : valKey(list);
  list.exact = false;
  const joined = options(join(...list.items, item));
  list.items.length = 0;
  list.items.push(...joined.slice(0, MAX_ITEMS));
  return before === null || valKey(list) !== before;
}

/** The tables a DataFrame-like value (or any alternative of it) refers to. */
export function handleTables(value: Val): readonly string[] {
  // One handle (the usual case): its tables, never listed twice, as they are.
  if (value.k === "table" || value.k === "row" || value.k === "column" || value.k === "indexer") {
    return value.tables;
  }
  if (value.k !== "oneOf") return NO_TABLES;
  const tables = new Set<string>();
  for (const option of options(value)) {
    if (option.k === "table" || option.k === "row" || option.k === "column" || option.k === "indexer") {
      for (const table of option.tables) tables.add(table);
    }
  }
  return [...tables];
}

/**
 * Abstract interpretation of EHRAgent code: walks the AST once (loops twice, both branches of every if),
 * tracking what each variable may hold (abstract-values.ts), and records every table column the code
 * reads through the toolbox (LoadDB, FilterDB, GetValue, SQLInterpreter) or through pandas-style access
 * on the DataFrames those tools return (`db['col']`, `row['col']`, `db.col`, `.iloc`, `.loc`, iterrows,
 * sort_values(by=...)). What cannot be determined is reported, never guessed silently.
 */
import {
  appendToList,
  BOOL,
  breaksValKey,
  type Frame,
  handleTables,
  inexactList,
  join,
  mapOptions,
  NONE,
  NUM,
  num,
  options,
  str,
  unknown,
  unknownStr,
  type Val,
} from "./abstract-values.js";
import type { Expr, FStringPart, Module, Param, Stmt } from "./py-ast.js";
import { type DatabaseSchema, schemaColumnSets } from "./schema.js";
import { extractSqlAccess } from "./sql-access.js";
import {
  describeHoles,
  hole,
  isHole,
  type SymString,
  symConcat,
  symIsKnown,
  symMapText,
  symRender,
  symText,
  symTrim,
} from "./sym-string.js";
import { parseFilterConditions, parseGetValueArgument } from "./toolbox-arguments.js";

export interface InterpretResult {
  /** table -> columns read. */
  reads: Map<string, Set<string>>;
  /** Tables whose every column the code exposes (a whole DataFrame printed or returned, SQL `*`). */
  wholeTables: Set<string>;
  /** Tables read without a column named (a row count, `select 1 from t`, LoadDB): reading the table. */
  tablesRead: Set<string>;
  unresolved: string[];
  errors: string[];
}

/** A list of words written as one block of text. */
const words = (text: string): string[] => text.trim().split(/\s+/);

const TOOLBOX = new Set(["LoadDB", "FilterDB", "GetValue", "SQLInterpreter", "Calculate", "Calendar"]);
const PY_BUILTINS = new Set(
  words(`
  len int float abs round sum ord hash id str repr bool isinstance callable hasattr any all list tuple
  set frozenset sorted reversed dict zip enumerate range map filter max min next iter print getattr
  type chr divmod pow exec eval compile __import__ setattr globals locals vars
`),
);

/**
 * One value per toolbox function and builtin, made once: a lookup of `LoadDB` or `len` is frequent and
 * the value is never changed (frozen to keep it so).
 */
const BUILTIN_VALUES: ReadonlyMap<string, Val> = new Map(
  [...TOOLBOX, ...PY_BUILTINS].map((name) => [name, Object.freeze({ k: "builtin", name }) as Val]),
);

/** DataFrame methods whose result is again a DataFrame over the same table. */
const TABLE_RETURNING = new Set(
  words(`
  head tail sort_values sort_index drop_duplicates reset_index set_index copy dropna fillna filter
  drop rename nlargest nsmallest sample query astype where mask assign groupby loc replace round
`),
);

/** DataFrame methods and attributes that reveal the values of every column. */
const WHOLE_TABLE_READS = new Set(
  words(`
  to_dict to_string to_json to_csv to_numpy to_records to_markdown to_html to_list tolist values T
  describe sum mean max min median std var mode nunique unique value_counts idxmax idxmin first last
  agg aggregate transform items iteritems info cumsum diff
`),
);

/** DataFrame attributes that reveal no cell values. */
const TABLE_METADATA = new Set(["empty", "shape", "size", "ndim", "columns", "index", "dtypes", "axes"]);

const MASK_METHODS = new Set(
  words(`
  isin isna isnull notna notnull between contains startswith endswith eq ne lt gt le ge duplicated
`),
);

// Made once here rather than as an arrow at each call.
const lowerCase = (text: string) => text.toLowerCase();
const upperCase = (text: string) => text.toUpperCase();

const NO_KWARGS: ReadonlyMap<string, Val> = new Map();

/** Parameter names each toolbox function's arguments go by, besides their position. */
const LOADDB_NAME = ["DBNAME", "dbname", "db_name", "name", "table"];
const DATABASE_NAMES = ["DATABASE", "database", "db", "data"];
const CONDITION_NAMES = ["CONDITIONS", "conditions", "condition", "argument"];
const ARGUMENT_NAMES = ["ARGUMENT", "argument", "column", "col"];
const SQL_NAMES = ["SQL", "sql", "query"];

const MAX_EXACT_ITERATION = 32;
const MAX_STEPS = 200_000;
const MAX_CALL_DEPTH = 8;

class BudgetExceeded extends Error {}

interface Ctx {
  frame: Frame;
  returns: Val[];
}

/** Runs the abstract interpreter over a parsed module. Never throws. */
export function interpretModule(options: { module: Module; schema: DatabaseSchema }): InterpretResult {
  const interpreter = new Interpreter(options.schema);
  interpreter.run(options.module);
  return {
    reads: interpreter.reads,
    wholeTables: interpreter.wholeTables,
    tablesRead: interpreter.tablesRead,
    unresolved: unique(interpreter.unresolved),
    errors: unique(interpreter.errors),
  };
}

/** The list without repeats, first occurrences kept; most lists are empty or have one entry. */
function unique(list: string[]): string[] {
  return list.length < 2 ? list : [...new Set(list)];
}

class Interpreter {
  readonly reads = new Map<string, Set<string>>();
  readonly wholeTables = new Set<string>();
  readonly tablesRead = new Set<string>();
  readonly unresolved: string[] = [];
  readonly errors: string[] = [];
  private steps = 0;
  private depth = 0;
  private nextFuncId = 1;
  /** Every function value created, and the ids of those the analysis saw called. */
  private readonly functions: Extract<Val, { k: "func" }>[] = [];
  private called: Set<number> | null = null;

  /** The schema's columns per table as Sets (own tables only; see hasColumn). */
  private readonly columnSets: ReadonlyMap<string, ReadonlySet<string>>;

  constructor(private readonly schema: DatabaseSchema) {
    this.columnSets = schemaColumnSets({ schema });
  }

  run(module: Module): void {
    const frame: Frame = { vars: new Map(), parent: null };
    const ctx: Ctx = { frame, returns: [] };
    try {
      this.execBlock(module.body, ctx);
      // The value left in `answer` (EHRAgent prints it) and a trailing bare expression (a notebook cell
      // displays it) expose every column of a DataFrame they hold.
      const answer = frame.vars.get("answer");
      if (answer) this.exposeHandles(answer);
      const last = module.body[module.body.length - 1];
      if (last?.type === "ExprStmt") this.exposeHandles(this.evaluate(last.value, ctx));
      this.probeUncalledFunctions();
    } catch (error) {
      if (error instanceof BudgetExceeded) {
        this.errors.push("analysis stopped: the code loops or recurses beyond the analysis budget");
      } else {
        this.errors.push(
          `internal analysis error: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
  }

  // ------------------------------------------------------------------ recording

  /**
   * Whether `table` has `column`, by a Set lookup. A name that is not one of the schema's own tables
   * ("constructor") takes the plain property lookup, which is what it always did.
   */
  private hasColumn(table: string, column: string): boolean {
    const set = this.columnSets.get(table);
    return set !== undefined ? set.has(column) : Boolean(this.schema[table]?.includes(column));
  }

  private read(table: string, column: string, how: string): void {
    const known = this.columnSets.get(table);
    const columns = known === undefined ? this.schema[table] : null;
    if (known === undefined && !columns) {
      this.unresolved.push(`${how}: table "${table}" is not in the schema`);
      return;
    }
    if (known !== undefined ? !known.has(column) : !columns!.includes(column)) {
      this.unresolved.push(`${how} reads "${column}", which is not a column of ${table}`);
      return;
    }
    let set = this.reads.get(table);
    if (!set) {
      set = new Set();
      this.reads.set(table, set);
    }
    set.add(column);
  }

  private readAll(tables: readonly string[]): void {
    for (const table of tables) {
      if (this.schema[table]) this.wholeTables.add(table);
      for (const column of this.schema[table] ?? []) this.read(table, column, "whole table");
    }
  }

  /** Reads `column` in whichever of `tables` has it; reports it when none does. */
  private readIn(tables: readonly string[], column: string, how: string): readonly string[] {
    // One table (the usual case): no filtered copy.
    const having =
      tables.length === 1 && this.hasColumn(tables[0]!, column)
        ? tables
        : tables.filter((table) => this.hasColumn(table, column));
    if (having.length === 0) {
      this.unresolved.push(`${how} reads "${column}", which is not a column of ${tables.join(" or ")}`);
      return [];
    }
    for (const table of having) this.read(table, column, how);
    return having;
  }

  /** Attribution when the DataFrame is unknown: every schema table that has the column. */
  private readAnywhere(column: string, how: string): void {
    const candidates = Object.keys(this.schema).filter((table) => this.hasColumn(table, column));
    if (candidates.length === 0) {
      this.unresolved.push(`${how} reads "${column}", which is not a column of any table`);
      return;
    }
    for (const table of candidates) this.read(table, column, how);
  }

  private exposeHandles(value: Val, depth = 0): void {
    if (depth > 4) return;
    for (const option of options(value)) {
      if (option.k === "table" || option.k === "row") this.readAll(option.tables);
      if (option.k === "list") for (const item of option.items) this.exposeHandles(item, depth + 1);
      if (option.k === "dict") for (const item of option.values) this.exposeHandles(item, depth + 1);
    }
  }

  private tick(): void {
    this.steps++;
    if (this.steps > MAX_STEPS) throw new BudgetExceeded();
  }

  // ------------------------------------------------------------------ statements

  private execBlock(body: readonly Stmt[], ctx: Ctx): void {
    for (const stmt of body) this.exec(stmt, ctx);
  }

  private branch(ctx: Ctx, body: readonly Stmt[]): Map<string, Val> {
    const frame: Frame = { vars: new Map(ctx.frame.vars), parent: ctx.frame.parent };
    this.execBlock(body, { frame, returns: ctx.returns });
    return frame.vars;
  }

  /**
   * Sets `frame` to the join of several states: each name any state has, bound to the join of its
   * values. Updated in place (the order of a frame's names is never observed), and a name bound to the
   * very same plain value everywhere keeps it without a join: join of one non-oneOf value is that value,
   * unless valKey breaks on it (breaksValKey), when the join throws as it always did. `maps` may include
   * frame.vars.
   */
  private mergeInto(frame: Frame, maps: Map<string, Val>[]): void {
    const vars = frame.vars;
    for (const name of vars.keys()) {
      let present = false;
      for (const map of maps) {
        if (map.has(name)) {
          present = true;
          break;
        }
      }
      if (!present) vars.delete(name);
    }
    for (let m = 0; m < maps.length; m++) {
      for (const name of maps[m]!.keys()) {
        let seen = false;
        for (let earlier = 0; earlier < m; earlier++) {
          if (maps[earlier]!.has(name)) {
            seen = true;
            break;
          }
        }
        if (seen) continue;
        let first: Val | undefined;
        let same = true;
        for (const other of maps) {
          const value = other.get(name);
          if (value === undefined) continue;
          if (first === undefined) first = value;
          else if (value !== first) same = false;
        }
        let merged = first!;
        if (!same || merged.k === "oneOf" || breaksValKey(merged)) {
          const values: Val[] = [];
          for (const other of maps) {
            const value = other.get(name);
            if (value !== undefined) values.push(value);
          }
          merged = join(...values);
        }
        if (vars.get(name) !== merged) vars.set(name, merged);
      }
    }
  }

  private exec(stmt: Stmt, ctx: Ctx): void {
    this.tick();
    switch (stmt.type) {
      case "Assign": {
        const value = this.evaluate(stmt.value, ctx);
        for (const target of stmt.targets) this.assign(target, value, ctx);
        return;
      }
      case "AugAssign": {
        const current = this.evaluate(stmt.target, ctx);
        const value = this.evaluate(stmt.value, ctx);
        const target = stmt.target;
        if (target.type === "Name" && current.k === "list" && stmt.op === "+") {
          for (const item of this.elements(value)) appendToList(current, item);
          return;
        }
        this.assign(target, this.binary(stmt.op, current, value), ctx);
        return;
      }
      case "AnnAssign":
        if (stmt.value) this.assign(stmt.target, this.evaluate(stmt.value, ctx), ctx);
        return;
      case "ExprStmt":
        this.evaluate(stmt.value, ctx);
        return;
      case "If": {
        this.evaluate(stmt.test, ctx);
        const body = this.branch(ctx, stmt.body);
        // No else: the state after it is the state before, which needs no copy.
        const orelse = stmt.orelse.length === 0 ? ctx.frame.vars : this.branch(ctx, stmt.orelse);
        this.mergeInto(ctx.frame, [body, orelse]);
        return;
      }
      case "For": {
        const iterable = this.evaluate(stmt.iter, ctx);
        const before = new Map(ctx.frame.vars);
        const passes = this.iterationPasses(iterable);
        for (const item of passes) {
          this.assign(stmt.target, item, ctx);
          this.execBlock(stmt.body, ctx);
        }
        this.mergeInto(ctx.frame, [before, ctx.frame.vars]);
        this.execBlock(stmt.orelse, ctx);
        return;
      }
      case "While": {
        const before = new Map(ctx.frame.vars);
        for (let pass = 0; pass < 2; pass++) {
          this.evaluate(stmt.test, ctx);
          this.execBlock(stmt.body, ctx);
        }
        this.mergeInto(ctx.frame, [before, ctx.frame.vars]);
        this.execBlock(stmt.orelse, ctx);
        return;
      }
      case "FunctionDef":
        for (const decorator of stmt.decorators) this.evaluate(decorator, ctx);
        ctx.frame.vars.set(stmt.name, this.makeFunction(stmt.name, stmt.params, stmt.body, ctx.frame));
        return;
      case "ClassDef": {
        for (const base of stmt.bases) this.evaluate(base, ctx);
        this.execBlock(stmt.body, { frame: { vars: new Map(), parent: ctx.frame }, returns: [] });
        ctx.frame.vars.set(stmt.name, unknown(`class ${stmt.name}`));
        return;
      }
      case "Return":
        ctx.returns.push(stmt.value ? this.evaluate(stmt.value, ctx) : NONE);
        return;
      case "Try": {
        const before = new Map(ctx.frame.vars);
        this.execBlock(stmt.body, ctx);
        const afterBody = new Map(ctx.frame.vars);
        // An exception may leave the body at any point: handlers start from either state.
        const handlerStates = stmt.handlers.map((handler) => {
          const frame: Frame = { vars: new Map(before), parent: ctx.frame.parent };
          this.mergeInto(frame, [before, afterBody]);
          if (handler.exceptionType) this.evaluate(handler.exceptionType, { frame, returns: ctx.returns });
          if (handler.name) frame.vars.set(handler.name, unknown("exception"));
          this.execBlock(handler.body, { frame, returns: ctx.returns });
          return frame.vars;
        });
        this.execBlock(stmt.orelse, ctx);
        this.mergeInto(ctx.frame, [ctx.frame.vars, ...handlerStates]);
        this.execBlock(stmt.finalbody, ctx);
        return;
      }
      case "With":
        for (const item of stmt.items) {
          const value = this.evaluate(item.context, ctx);
          if (item.target) this.assign(item.target, value, ctx);
        }
        this.execBlock(stmt.body, ctx);
        return;
      case "Raise":
        if (stmt.exc) this.evaluate(stmt.exc, ctx);
        return;
      case "Del":
        for (const target of stmt.targets) {
          if (target.type === "Name") ctx.frame.vars.delete(target.id);
          else
            this.evaluate(
              target.type === "Subscript" || target.type === "Attribute" ? target.value : target,
              ctx,
            );
        }
        return;
      case "Assert":
        this.evaluate(stmt.test, ctx);
        if (stmt.msg) this.evaluate(stmt.msg, ctx);
        return;
      case "Import":
      case "Pass":
      case "Break":
      case "Continue":
      case "Global":
        return;
    }
  }

  /** The values bound to a loop target: each element of a short known list, else an element twice. */
  private iterationPasses(iterable: Val): Val[] {
    if (iterable.k === "list" && iterable.exact && iterable.items.length <= MAX_EXACT_ITERATION) {
      return [...iterable.items];
    }
    const element = this.elementOf(iterable);
    return [element, element];
  }

  private elements(value: Val): Val[] {
    if (value.k === "list" && value.exact) return [...value.items];
    return [this.elementOf(value)];
  }

  /** What iterating over a value yields. */
  private elementOf(value: Val): Val {
    return mapOptions(value, (option) => {
      switch (option.k) {
        case "list":
          return option.items.length === 0 ? unknown("element of empty list") : join(...option.items);
        case "dict":
          return option.keys.length === 0 ? unknown("key of empty dict") : join(...option.keys);
        case "table":
          return { k: "row", tables: option.tables };
        case "column":
          return unknown(`value of ${option.column}`);
        case "str":
          return unknownStr("character");
        default:
          return unknown("element");
      }
    });
  }

  private assign(target: Expr, value: Val, ctx: Ctx): void {
    switch (target.type) {
      case "Name":
        ctx.frame.vars.set(target.id, value);
        return;
      case "Tuple":
      case "List": {
        const starred = target.elts.findIndex((elt) => elt.type === "Starred");
        const exact =
          value.k === "list" && value.exact && starred < 0 && value.items.length === target.elts.length
            ? value.items
            : null;
        target.elts.forEach((elt, i) => {
          if (elt.type === "Starred") {
            this.assign(elt.value, inexactList([this.elementOf(value)]), ctx);
          } else {
            this.assign(elt, exact ? exact[i]! : this.elementOf(value), ctx);
          }
        });
        return;
      }
      case "Starred":
        this.assign(target.value, inexactList([this.elementOf(value)]), ctx);
        return;
      case "Attribute":
        this.evaluate(target.value, ctx);
        return;
      case "Subscript": {
        const container = this.evaluate(target.value, ctx);
        const index =
          target.index.type === "Slice" ? ({ k: "slice" } as Val) : this.evaluate(target.index, ctx);
        for (const option of options(container)) {
          if (option.k === "dict") {
            const key = this.knownText(index);
            const existing = key === null ? -1 : option.keys.findIndex((k) => this.knownText(k) === key);
            if (existing >= 0) option.values[existing] = join(option.values[existing]!, value);
            else {
              option.keys.push(index);
              option.values.push(value);
              if (key === null) option.exact = false;
            }
          } else if (option.k === "list") {
            appendToList(option, value);
          }
          // Assigning a DataFrame column writes; it reads nothing.
        }
        return;
      }
      default:
        this.evaluate(target, ctx);
    }
  }

  // ------------------------------------------------------------------ expressions

  private evaluate(expr: Expr, ctx: Ctx): Val {
    this.tick();
    switch (expr.type) {
      case "Name":
        return this.lookup(expr.id, ctx.frame);
      case "Constant":
        switch (expr.kind) {
          case "str":
          case "bytes":
            return str(symText(String(expr.value)));
          case "int":
          case "float":
          case "complex":
            return num(typeof expr.value === "number" ? expr.value : null);
          case "bool":
            return BOOL;
          default:
            return NONE;
        }
      case "FString":
        return this.evalFString(expr.parts, ctx);
      case "BinOp":
        return this.binary(expr.op, this.evaluate(expr.left, ctx), this.evaluate(expr.right, ctx));
      case "UnaryOp": {
        const operand = this.evaluate(expr.operand, ctx);
        if (expr.op === "not" || expr.op === "~") return BOOL;
        return operand.k === "num" && operand.value !== null
          ? num(expr.op === "-" ? -operand.value : operand.value)
          : NUM;
      }
      case "BoolOp":
        return join(...expr.values.map((value) => this.evaluate(value, ctx)));
      case "Compare":
        this.evaluate(expr.left, ctx);
        for (const comparator of expr.comparators) this.evaluate(comparator, ctx);
        return BOOL;
      case "Call":
        return this.evalCall(expr, ctx);
      case "Attribute":
        return mapOptions(this.evaluate(expr.value, ctx), (option) => this.getAttr(option, expr.attr));
      case "Subscript": {
        const container = this.evaluate(expr.value, ctx);
        const index = this.evaluate(expr.index, ctx);
        return mapOptions(container, (option) => this.subscript(option, index));
      }
      case "Slice":
        for (const part of [expr.lower, expr.upper, expr.step]) if (part) this.evaluate(part, ctx);
        return { k: "slice" };
      case "List":
      case "Tuple":
      case "Set": {
        const items: Val[] = [];
        let exact = expr.type !== "Set";
        for (const elt of expr.elts) {
          if (elt.type === "Starred") {
            const spread = this.evaluate(elt.value, ctx);
            if (spread.k === "list" && spread.exact) items.push(...spread.items);
            else {
              items.push(this.elementOf(spread));
              exact = false;
            }
          } else {
            items.push(this.evaluate(elt, ctx));
          }
        }
        return exact ? { k: "list", items, exact: true } : inexactList(items);
      }
      case "Dict": {
        const keys: Val[] = [];
        const values: Val[] = [];
        let exact = true;
        expr.keys.forEach((key, i) => {
          const value = this.evaluate(expr.values[i]!, ctx);
          if (key === null) {
            if (value.k === "dict") {
              keys.push(...value.keys);
              values.push(...value.values);
            } else exact = false;
            return;
          }
          keys.push(this.evaluate(key, ctx));
          values.push(value);
        });
        return { k: "dict", keys, values, exact };
      }
      case "Comprehension":
        return this.evalComprehension(expr, ctx);
      case "Lambda":
        return this.makeFunction("lambda", expr.params, expr.body, ctx.frame);
      case "IfExp":
        this.evaluate(expr.test, ctx);
        return join(this.evaluate(expr.body, ctx), this.evaluate(expr.orelse, ctx));
      case "Starred":
        return this.elementOf(this.evaluate(expr.value, ctx));
      case "NamedExpr": {
        const value = this.evaluate(expr.value, ctx);
        ctx.frame.vars.set(expr.target, value);
        return value;
      }
    }
  }

  private lookup(name: string, frame: Frame): Val {
    for (let f: Frame | null = frame; f; f = f.parent) {
      const value = f.vars.get(name);
      if (value !== undefined) return value;
    }
    return BUILTIN_VALUES.get(name) ?? unknown(name);
  }

  private evalFString(parts: readonly FStringPart[], ctx: Ctx): Val {
    const pieces: SymString[] = [];
    for (const part of parts) {
      if (part.kind === "text") {
        pieces.push(symText(part.text));
        continue;
      }
      const value = this.evaluate(part.expr, ctx);
      const spec = part.spec.length > 0 ? this.evalFString(part.spec, ctx) : null;
      pieces.push(
        this.formatField(value, part.conversion, spec !== null && !(spec.k === "str" && spec.s.length === 0)),
      );
    }
    return str(symConcat(...pieces));
  }

  private evalComprehension(expr: Extract<Expr, { type: "Comprehension" }>, ctx: Ctx): Val {
    const inner: Ctx = { frame: { vars: new Map(), parent: ctx.frame }, returns: ctx.returns };
    const elements: Val[] = [];
    const values: Val[] = [];
    this.comprehensionLevel(expr, 0, ctx, inner, elements, values);
    if (expr.kind === "dict") {
      return { k: "dict", keys: options(join(...elements)), values: options(join(...values)), exact: false };
    }
    return inexactList(elements);
  }

  /** Generator `index` of a comprehension and those after it (a method, not a closure per call). */
  private comprehensionLevel(
    expr: Extract<Expr, { type: "Comprehension" }>,
    index: number,
    ctx: Ctx,
    inner: Ctx,
    elements: Val[],
    values: Val[],
  ): void {
    if (index === expr.generators.length) {
      elements.push(this.evaluate(expr.elt, inner));
      if (expr.value) values.push(this.evaluate(expr.value, inner));
      return;
    }
    const generator = expr.generators[index]!;
    const iterable = this.evaluate(generator.iter, index === 0 ? ctx : inner);
    const items =
      iterable.k === "list" && iterable.exact && iterable.items.length <= 8
        ? iterable.items
        : [this.elementOf(iterable)];
    for (const item of items) {
      this.assign(generator.target, item, inner);
      for (const condition of generator.ifs) this.evaluate(condition, inner);
      this.comprehensionLevel(expr, index + 1, ctx, inner, elements, values);
    }
  }

  // ------------------------------------------------------------------ strings

  /** The text of a value as str() would render it, with holes where it is not known. */
  private textOf(value: Val, depth = 0): SymString {
    if (depth > 4) return [hole("nested value")];
    switch (value.k) {
      case "str":
        return value.s;
      case "num":
        return value.value === null ? [hole("number")] : symText(String(value.value));
      case "none":
        return symText("None");
      case "list": {
        if (!value.exact) return [hole("list")];
        const parts = value.items.map((item) => this.reprOf(item, depth + 1));
        return symConcat(
          symText("["),
          ...parts.flatMap((part, i) => (i === 0 ? [part] : [symText(", "), part])),
          symText("]"),
        );
      }
      case "table":
      case "row":
        // Printing a DataFrame shows every column.
        this.readAll(value.tables);
        return [hole(`${value.k} of ${value.tables.join("/")}`)];
      case "column":
        return [hole(`values of ${value.column}`)];
      case "unknown":
        return [hole(value.origin)];
      case "oneOf": {
        const texts = value.options.map((option) => this.textOf(option, depth + 1));
        const first = texts[0]!;
        const same =
          symIsKnown(first) &&
          texts.every((text) => symRender({ value: text }) === symRender({ value: first }));
        return same ? first : [hole("one of several values")];
      }
      default:
        return [hole(value.k)];
    }
  }

  private reprOf(value: Val, depth = 0): SymString {
    if (value.k === "str") return symConcat(symText("'"), value.s, symText("'"));
    return this.textOf(value, depth);
  }

  private knownText(value: Val): string | null {
    if (value.k !== "str" || !symIsKnown(value.s)) return null;
    return symRender({ value: value.s });
  }

  private formatField(value: Val, conversion: string | null, hasSpec: boolean): SymString {
    if (hasSpec && value.k !== "str") return [hole("formatted value")];
    return conversion === "r" || conversion === "a" ? this.reprOf(value) : this.textOf(value);
  }

  /** str.format: `{}`, `{0}`, `{name}`, conversions and specs; `{{`/`}}` are literal braces. */
  private strFormat(template: SymString, args: Val[], kwargs: ReadonlyMap<string, Val>): Val {
    const out: SymString[] = [];
    let auto = 0;
    for (const part of template) {
      if (isHole(part)) {
        out.push([part]);
        continue;
      }
      let i = 0;
      let text = "";
      while (i < part.length) {
        // Copy the run of text up to the next brace in one slice.
        let brace = i;
        while (brace < part.length && part.charCodeAt(brace) !== 123 && part.charCodeAt(brace) !== 125)
          brace++;
        if (brace > i) text += part.slice(i, brace);
        if (brace >= part.length) break;
        i = brace;
        const ch = part[i]!;
        if (part[i + 1] === ch) {
          text += ch;
          i += 2;
          continue;
        }
        if (ch !== "{") {
          text += ch;
          i++;
          continue;
        }
        const close = part.indexOf("}", i);
        if (close < 0) {
          text += part.slice(i);
          break;
        }
        out.push(symText(text));
        text = "";
        const field = part.slice(i + 1, close);
        const match = /^([^!:]*)(?:!([rsa]))?(?::(.*))?$/.exec(field);
        const name = match?.[1] ?? "";
        const base = /^[A-Za-z_0-9]*/.exec(name)![0];
        let value: Val | undefined;
        if (base === "") value = args[auto++];
        else if (/^\d+$/.test(base)) value = args[Number(base)];
        else value = kwargs.get(base);
        if (value === undefined) out.push([hole(`missing format argument "${base}"`)]);
        else if (base.length < name.length) out.push([hole(`format field ${name}`)]);
        else out.push(this.formatField(value, match?.[2] ?? null, (match?.[3] ?? "") !== ""));
        i = close + 1;
      }
      out.push(symText(text));
    }
    return str(symConcat(...out));
  }

  /** printf-style `template % values`. */
  private percentFormat(template: SymString, right: Val): Val {
    const args = right.k === "list" && right.exact ? right.items : [right];
    let next = 0;
    const out: SymString[] = [];
    const conversion = /%(\([^)]*\))?[-#0 +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?([diouxXeEfFgGcrsa%])/g;
    for (const part of template) {
      if (isHole(part)) {
        out.push([part]);
        continue;
      }
      let last = 0;
      for (const match of part.matchAll(conversion)) {
        out.push(symText(part.slice(last, match.index)));
        last = match.index + match[0].length;
        const type = match[2]!;
        if (type === "%") {
          out.push(symText("%"));
          continue;
        }
        let value: Val | undefined;
        if (match[1]) {
          const key = match[1].slice(1, -1);
          if (right.k === "dict") {
            const index = right.keys.findIndex((k) => this.knownText(k) === key);
            value = index >= 0 ? right.values[index] : undefined;
          }
        } else {
          value = args[next++];
        }
        if (value === undefined) out.push([hole("missing % argument")]);
        else if (type === "s") out.push(this.textOf(value));
        else if (type === "r" || type === "a") out.push(this.reprOf(value));
        else if (value.k === "num" && value.value !== null && "di".includes(type))
          out.push(symText(String(Math.trunc(value.value))));
        else out.push([hole(`%${type} value`)]);
      }
      out.push(symText(part.slice(last)));
    }
    return str(symConcat(...out));
  }

  private binary(op: string, left: Val, right: Val): Val {
    return mapOptions(left, (l) => mapOptions(right, (r) => this.binaryOne(op, l, r)));
  }

  private binaryOne(op: string, left: Val, right: Val): Val {
    if (op === "+") {
      if (left.k === "str" && right.k === "str") return str(symConcat(left.s, right.s));
      if (left.k === "str" && (right.k === "unknown" || right.k === "column"))
        return str(symConcat(left.s, this.textOf(right)));
      if (right.k === "str" && (left.k === "unknown" || left.k === "column"))
        return str(symConcat(this.textOf(left), right.s));
      if (left.k === "list" && right.k === "list") {
        return left.exact && right.exact
          ? { k: "list", items: [...left.items, ...right.items], exact: true }
          : inexactList([...left.items, ...right.items]);
      }
      if (left.k === "num" && right.k === "num") {
        return left.value !== null && right.value !== null ? num(left.value + right.value) : NUM;
      }
    }
    if (op === "%" && left.k === "str") return this.percentFormat(left.s, right);
    if (op === "*" && (left.k === "str" || right.k === "str")) return unknownStr("repeated string");
    if (op === "*" && left.k === "list") return inexactList(left.items);
    if (op === "&" || op === "|" || op === "^") {
      if (left.k === "list" || right.k === "list")
        return inexactList([this.elementOf(left), this.elementOf(right)]);
      return BOOL;
    }
    if (left.k === "num" && right.k === "num") return NUM;
    if (left.k === "table" || right.k === "table" || left.k === "column" || right.k === "column")
      return unknown("arithmetic on data");
    return unknown(`result of ${op}`);
  }

  // ------------------------------------------------------------------ attributes and subscripts

  private getAttr(value: Val, attr: string): Val {
    switch (value.k) {
      case "table": {
        const column = attr.toLowerCase();
        const having = value.tables.filter((table) => this.hasColumn(table, column));
        if (having.length > 0) {
          for (const table of having) this.read(table, column, "attribute access");
          return { k: "column", tables: having, column };
        }
        if (attr === "iloc" || attr === "loc" || attr === "at" || attr === "iat") {
          return { k: "indexer", of: "table", tables: value.tables, mode: attr };
        }
        if (TABLE_METADATA.has(attr)) return unknown(`${attr} of a table`);
        if (attr === "values" || attr === "T") {
          this.readAll(value.tables);
          return inexactList([unknown("cell value")]);
        }
        return { k: "method", self: value, name: attr };
      }
      case "row": {
        const column = attr.toLowerCase();
        const having = value.tables.filter((table) => this.hasColumn(table, column));
        if (having.length > 0) {
          for (const table of having) this.read(table, column, "attribute access");
          return unknown(`${column} value`);
        }
        if (attr === "iloc" || attr === "loc" || attr === "at" || attr === "iat") {
          return { k: "indexer", of: "row", tables: value.tables, mode: attr };
        }
        if (attr === "name" || attr === "index" || attr === "empty" || attr === "size" || attr === "shape") {
          return unknown(`${attr} of a row`);
        }
        if (attr === "values") {
          this.readAll(value.tables);
          return inexactList([unknown("cell value")]);
        }
        return { k: "method", self: value, name: attr };
      }
      case "column":
        if (attr === "values" || attr === "str" || attr === "dt" || attr === "array") return value;
        if (attr === "iloc" || attr === "loc" || attr === "at" || attr === "iat") {
          return { k: "indexer", of: "column", tables: value.tables, mode: attr };
        }
        if (TABLE_METADATA.has(attr)) return unknown(`${attr} of a column`);
        return { k: "method", self: value, name: attr };
      case "str":
      case "list":
      case "dict":
        return { k: "method", self: value, name: attr };
      case "unknown":
        // `tools.FilterDB(...)`: a toolbox function reached through a module.
        if (TOOLBOX.has(attr)) return { k: "builtin", name: attr };
        return unknown(`${value.origin}.${attr}`);
      default:
        return unknown(`.${attr}`);
    }
  }

  private subscript(container: Val, index: Val): Val {
    switch (container.k) {
      case "table":
        return mapOptions(index, (idx) => this.tableSubscript(container.tables, idx));
      case "row":
        return mapOptions(index, (idx) => {
          if (idx.k === "str") {
            const column = this.knownText(idx);
            if (column === null) {
              this.unresolved.push(
                `row subscript with a column name only known at run time (${describeHoles(idx.s)})`,
              );
              return unknown("row value");
            }
            this.readIn(container.tables, column.toLowerCase(), "row subscript");
            return unknown(`${column} value`);
          }
          if (idx.k === "list" && idx.exact) {
            for (const item of idx.items) {
              const column = this.knownText(item);
              if (column !== null) this.readIn(container.tables, column.toLowerCase(), "row subscript");
            }
          }
          return unknown("row value");
        });
      case "indexer":
        return this.indexerSubscript(container, index);
      case "column":
        return mapOptions(index, (idx) =>
          idx.k === "slice" || idx.k === "bool" ? container : unknown(`value of ${container.column}`),
        );
      case "list":
        return mapOptions(index, (idx) => {
          if (idx.k === "slice")
            return container.exact ? { ...container, items: [...container.items], exact: false } : container;
          if (container.exact && idx.k === "num" && idx.value !== null) {
            const at = idx.value < 0 ? container.items.length + idx.value : idx.value;
            const item = container.items[at];
            if (item) return item;
          }
          return this.elementOf(container);
        });
      case "dict":
        return mapOptions(index, (idx) => {
          const key = this.knownText(idx);
          const at = key === null ? -1 : container.keys.findIndex((k) => this.knownText(k) === key);
          if (at >= 0) return container.values[at]!;
          return container.values.length > 0 ? join(...container.values) : unknown("dict value");
        });
      case "str":
        return unknownStr("part of a string");
      case "unknown":
        return unknown(`${container.origin}[...]`);
      default:
        return unknown("subscript");
    }
  }

  private tableSubscript(tables: readonly string[], idx: Val): Val {
    switch (idx.k) {
      case "str": {
        const column = this.knownText(idx);
        if (column === null) {
          this.unresolved.push(
            `table subscript with a column name only known at run time (${describeHoles(idx.s)})`,
          );
          return unknown("column");
        }
        const having = this.readIn(tables, column.toLowerCase(), "table subscript");
        return having.length > 0
          ? { k: "column", tables: having, column: column.toLowerCase() }
          : unknown("column");
      }
      case "list": {
        if (idx.exact && idx.items.every((item) => item.k === "str")) {
          for (const item of idx.items) {
            const column = this.knownText(item);
            if (column === null)
              this.unresolved.push("table subscript with a column name only known at run time");
            else this.readIn(tables, column.toLowerCase(), "table subscript");
          }
          return { k: "table", tables };
        }
        return { k: "table", tables };
      }
      case "slice":
      case "bool":
        return { k: "table", tables };
      case "num":
        return unknown("positional column");
      default:
        this.unresolved.push(
          `table subscript with ${this.describe(idx)}: cannot tell which columns it reads`,
        );
        return { k: "table", tables };
    }
  }

  /** The columns an indexer's column part names. */
  private readIndexerColumns(indexer: Extract<Val, { k: "indexer" }>, part: Val): void {
    for (const option of options(part)) {
      if (option.k === "str") {
        const column = this.knownText(option);
        if (column === null) this.unresolved.push("indexer with a column name only known at run time");
        else this.readIn(indexer.tables, column.toLowerCase(), `.${indexer.mode}[...]`);
      } else if (option.k === "list") {
        for (const item of option.items) this.readIndexerColumns(indexer, item);
      } else if (option.k === "slice") {
        this.readAll(indexer.tables);
      } else {
        this.unresolved.push(`.${indexer.mode}[...] selects columns by position: cannot tell which`);
      }
    }
  }

  private indexerSubscript(indexer: Extract<Val, { k: "indexer" }>, index: Val): Val {
    const parts = index.k === "list" && index.exact && index.items.length === 2 ? index.items : null;
    const rowPart = parts ? parts[0]! : index;
    const columnPart = parts ? parts[1]! : null;
    if (indexer.of === "column") return unknown("column value");
    if (indexer.of === "row") {
      if (indexer.mode === "loc" || indexer.mode === "at") this.readIndexerColumns(indexer, index);
      else this.unresolved.push(`row.${indexer.mode}[...] selects a column by position: cannot tell which`);
      return unknown("row value");
    }
    if (columnPart) {
      this.readIndexerColumns(indexer, columnPart);
      return unknown("cell value");
    }
    if (indexer.mode === "at" || indexer.mode === "iat") {
      this.unresolved.push(`.${indexer.mode}[...] without a column`);
      return unknown("cell value");
    }
    return mapOptions(rowPart, (row) =>
      row.k === "num" || (indexer.mode === "loc" && (row.k === "str" || row.k === "unknown"))
        ? { k: "row", tables: indexer.tables }
        : { k: "table", tables: indexer.tables },
    );
  }

  // ------------------------------------------------------------------ calls

  private evalCall(expr: Extract<Expr, { type: "Call" }>, ctx: Ctx): Val {
    const callee = this.evaluate(expr.func, ctx);
    const args: Val[] = [];
    for (const arg of expr.args) {
      if (arg.type === "Starred") {
        const spread = this.evaluate(arg.value, ctx);
        if (spread.k === "list" && spread.exact) args.push(...spread.items);
        else args.push(this.elementOf(spread));
      } else {
        args.push(this.evaluate(arg, ctx));
      }
    }
    // Most calls have no keywords: they share one empty map (never written to).
    const kwargs = expr.keywords.length === 0 ? NO_KWARGS : new Map<string, Val>();
    for (const keyword of expr.keywords) {
      const value = this.evaluate(keyword.value, ctx);
      if (keyword.name !== null) (kwargs as Map<string, Val>).set(keyword.name, value);
      else if (value.k === "dict") {
        value.keys.forEach((key, i) => {
          const name = this.knownText(key);
          if (name !== null) (kwargs as Map<string, Val>).set(name, value.values[i]!);
        });
      }
    }
    if (callee.k !== "oneOf") return this.callOne(callee, args, kwargs);
    return mapOptions(callee, (option) => this.callOne(option, args, kwargs));
  }

  private callOne(callee: Val, args: Val[], kwargs: ReadonlyMap<string, Val>): Val {
    switch (callee.k) {
      case "builtin":
        return TOOLBOX.has(callee.name)
          ? this.callToolbox(callee.name, args, kwargs)
          : this.callBuiltin(callee.name, args, kwargs);
      case "func":
        return this.invoke(callee, args, kwargs);
      case "method":
        return this.callMethod(callee.self, callee.name, args, kwargs);
      case "unknown":
        return this.callUnknown(callee.origin, args, kwargs);
      default:
        return this.callUnknown(callee.k, args, kwargs);
    }
  }

  private makeFunction(
    name: string,
    params: readonly Param[],
    body: readonly Stmt[] | Expr,
    closure: Frame,
  ): Val {
    const func: Extract<Val, { k: "func" }> = {
      k: "func",
      name,
      params,
      body,
      closure,
      id: this.nextFuncId++,
    };
    this.functions.push(func);
    return func;
  }

  /**
   * Functions the analysis never saw called may still run (a method of a class instance, a callback
   * handed to unmodelled code). Probe each with unknown arguments; if that reveals reads, count them and
   * say so, which lowers confidence.
   */
  private probeUncalledFunctions(): void {
    for (let i = 0; i < this.functions.length; i++) {
      const func = this.functions[i]!;
      if (this.called?.has(func.id)) continue;
      const before = this.snapshotReads();
      const unresolvedBefore = this.unresolved.length;
      this.invoke(
        func,
        func.params
          .filter((param) => param.kind === "normal")
          .map((param) => unknown(`argument ${param.name}`)),
        new Map(),
      );
      if (this.snapshotReads() !== before || this.unresolved.length > unresolvedBefore) {
        this.unresolved.push(
          `function ${func.name} is never called directly; the reads in its body are counted`,
        );
      }
    }
  }

  private snapshotReads(): string {
    return [...this.reads.entries()]
      .map(([table, columns]) => `${table}:${[...columns].sort().join(",")}`)
      .join(";");
  }

  private invoke(func: Extract<Val, { k: "func" }>, args: Val[], kwargs: ReadonlyMap<string, Val>): Val {
    if (this.called === null) this.called = new Set();
    this.called.add(func.id);
    if (this.depth >= MAX_CALL_DEPTH) {
      this.unresolved.push(
        `calls nested deeper than ${MAX_CALL_DEPTH} (function ${func.name}) were not followed`,
      );
      return unknown(`result of ${func.name}`);
    }
    const frame: Frame = { vars: new Map(), parent: func.closure };
    const ctx: Ctx = { frame, returns: [] };
    this.bindParams(func.params, args, kwargs, ctx);
    this.depth++;
    try {
      if (!Array.isArray(func.body)) return this.evaluate(func.body as Expr, ctx);
      this.execBlock(func.body as readonly Stmt[], ctx);
      return ctx.returns.length > 0 ? join(...ctx.returns) : NONE;
    } finally {
      this.depth--;
    }
  }

  private bindParams(
    params: readonly Param[],
    args: Val[],
    kwargs: ReadonlyMap<string, Val>,
    ctx: Ctx,
  ): void {
    let position = 0;
    const used = new Set<string>();
    for (const param of params) {
      if (param.kind === "varargs") {
        ctx.frame.vars.set(param.name, { k: "list", items: args.slice(position), exact: true });
        position = args.length;
      } else if (param.kind === "kwargs") {
        const keys = [...kwargs.keys()].filter((key) => !used.has(key));
        ctx.frame.vars.set(param.name, {
          k: "dict",
          keys: keys.map((key) => str(symText(key))),
          values: keys.map((key) => kwargs.get(key)!),
          exact: true,
        });
      } else if (position < args.length) {
        ctx.frame.vars.set(param.name, args[position++]!);
      } else if (kwargs.has(param.name)) {
        used.add(param.name);
        ctx.frame.vars.set(param.name, kwargs.get(param.name)!);
      } else if (param.default) {
        ctx.frame.vars.set(param.name, this.evaluate(param.default, ctx));
      } else {
        ctx.frame.vars.set(param.name, unknown(`argument ${param.name}`));
      }
    }
  }

  /** Functions handed to code we do not model (sorted keys, apply, map) still run: call them. */
  private runCallbacks(values: Iterable<Val>, element: Val): void {
    for (const value of values) {
      for (const option of options(value)) {
        if (option.k !== "func") continue;
        const arity = option.params.filter((param) => param.kind === "normal" && !param.default).length;
        this.invoke(
          option,
          Array.from({ length: Math.max(1, arity) }, () => element),
          new Map(),
        );
      }
    }
  }

  private callUnknown(origin: string, args: Val[], kwargs: ReadonlyMap<string, Val>): Val {
    const all = [...args, ...kwargs.values()];
    this.runCallbacks(all, unknown("callback argument"));
    // A DataFrame passed along with column names (pd.merge(a, b, on='col')) reads those columns.
    const tables = [...new Set(all.flatMap((value) => handleTables(value)))];
    if (tables.length > 0) this.readNamedColumns(tables, all, origin);
    return unknown(`result of ${origin}(...)`);
  }

  /** Strings (or lists/dicts of strings) among the arguments that name a column of `tables`. */
  private readNamedColumns(tables: readonly string[], values: Val[], how: string): void {
    for (const value of values) this.readNamedColumnsIn(tables, value, 0, how);
  }

  private readNamedColumnsIn(tables: readonly string[], value: Val, depth: number, how: string): void {
    if (depth > 3) return;
    for (const option of options(value)) {
      if (option.k === "str") {
        const text = this.knownText(option)?.toLowerCase();
        if (text && tables.some((table) => this.hasColumn(table, text))) this.readIn(tables, text, how);
      } else if (option.k === "list") {
        for (const item of option.items) this.readNamedColumnsIn(tables, item, depth + 1, how);
      } else if (option.k === "dict") {
        for (const key of option.keys) this.readNamedColumnsIn(tables, key, depth + 1, how);
        for (const item of option.values) this.readNamedColumnsIn(tables, item, depth + 1, how);
      }
    }
  }

  private argument(
    args: Val[],
    kwargs: ReadonlyMap<string, Val>,
    index: number,
    names: readonly string[],
  ): Val | undefined {
    if (args[index] !== undefined) return args[index];
    for (const name of names) {
      const value = kwargs.get(name);
      if (value !== undefined) return value;
    }
    const lowered = [...kwargs.entries()].find(([key]) => names.includes(key.toLowerCase()));
    return lowered?.[1];
  }

  private describe(value: Val): string {
    switch (value.k) {
      case "str":
        return `the string "${symRender({ value: value.s })}"`;
      case "table":
      case "row":
        return `a ${value.k} of ${value.tables.join("/")}`;
      case "unknown":
        return `a value from ${value.origin}`;
      case "oneOf":
        return value.options.map((option) => this.describe(option)).join(" or ");
      default:
        return `a ${value.k} value`;
    }
  }

  /** Tables of the DataFrame argument of a toolbox call; reports a non-DataFrame. */
  private databaseTables(value: Val | undefined, tool: string): readonly string[] {
    if (value === undefined) {
      this.unresolved.push(`${tool} is called without a database`);
      return [];
    }
    const tables = handleTables(value);
    if (tables.length === 0)
      this.unresolved.push(`${tool} is applied to ${this.describe(value)}, not a known table`);
    return tables;
  }

  private callToolbox(name: string, args: Val[], kwargs: ReadonlyMap<string, Val>): Val {
    switch (name) {
      case "LoadDB": {
        const arg = this.argument(args, kwargs, 0, LOADDB_NAME);
        if (!arg) {
          this.unresolved.push("LoadDB is called without a table name");
          return unknown("LoadDB result");
        }
        return mapOptions(arg, (option) => {
          const text = this.knownText(option);
          if (text === null) {
            this.unresolved.push(`LoadDB table name is only known at run time (${this.describe(option)})`);
            return unknown("LoadDB result");
          }
          const table = text.trim().toLowerCase();
          if (!this.schema[table]) {
            this.unresolved.push(`LoadDB("${text}") names a table that is not in the schema`);
            return unknown(`LoadDB("${text}")`);
          }
          return { k: "table", tables: [table] };
        });
      }
      case "FilterDB": {
        const db = this.argument(args, kwargs, 0, DATABASE_NAMES);
        const condition = this.argument(args, kwargs, 1, CONDITION_NAMES);
        const tables = this.databaseTables(db, "FilterDB");
        if (!condition) this.unresolved.push("FilterDB is called without conditions");
        for (const option of condition ? options(condition) : []) {
          if (option.k !== "str") {
            this.unresolved.push(`FilterDB condition is ${this.describe(option)}: its columns are unknown`);
            continue;
          }
          if (tables.length === 0) {
            const parsed = parseFilterConditions({ condition: option.s });
            if (parsed.unresolved.length > 0) this.unresolved.push(...parsed.unresolved);
            for (const column of parsed.columns) this.readAnywhere(column, "FilterDB condition");
            continue;
          }
          for (const table of tables) {
            const parsed = parseFilterConditions({ condition: option.s, tableColumns: this.schema[table] });
            if (parsed.unresolved.length > 0) this.unresolved.push(...parsed.unresolved);
            for (const column of parsed.columns) this.readIn(tables, column, "FilterDB condition");
          }
        }
        return tables.length > 0 ? { k: "table", tables } : unknown("FilterDB result");
      }
      case "GetValue": {
        const db = this.argument(args, kwargs, 0, DATABASE_NAMES);
        const argument = this.argument(args, kwargs, 1, ARGUMENT_NAMES);
        const tables = this.databaseTables(db, "GetValue");
        if (!argument) this.unresolved.push("GetValue is called without an argument");
        for (const option of argument ? options(argument) : []) {
          if (option.k !== "str") {
            this.unresolved.push(`GetValue argument is ${this.describe(option)}: its column is unknown`);
            continue;
          }
          const parsed = parseGetValueArgument({ argument: option.s });
          if (parsed.unresolved.length > 0) this.unresolved.push(...parsed.unresolved);
          for (const column of parsed.columns) {
            if (tables.length > 0) this.readIn(tables, column, "GetValue");
            else this.readAnywhere(column, "GetValue");
          }
        }
        return unknown("GetValue result");
      }
      case "SQLInterpreter": {
        const sql = this.argument(args, kwargs, 0, SQL_NAMES);
        for (const option of sql ? options(sql) : []) {
          if (option.k !== "str") {
            this.unresolved.push(`SQLInterpreter query is ${this.describe(option)}: its columns are unknown`);
            continue;
          }
          const access = extractSqlAccess({ sql: option.s, schema: this.schema });
          for (const read of access.reads) this.read(read.table, read.column, "SQL");
          for (const table of access.wholeTables) this.wholeTables.add(table);
          this.unresolved.push(...access.unresolved);
          this.errors.push(...access.errors);
        }
        if (!sql) this.unresolved.push("SQLInterpreter is called without a query");
        return unknown("SQL result");
      }
      case "Calendar":
        return unknownStr("Calendar result");
      default:
        return unknown(`${name} result`);
    }
  }

  private callBuiltin(name: string, args: Val[], kwargs: ReadonlyMap<string, Val>): Val {
    const first = args[0];
    const key = kwargs.get("key");
    switch (name) {
      case "str":
        return first ? str(this.textOf(first)) : str([]);
      case "repr":
        return first ? str(this.reprOf(first)) : str([]);
      case "print":
        for (const arg of args) this.textOf(arg);
        return NONE;
      case "len":
      case "int":
      case "float":
      case "abs":
      case "round":
      case "sum":
      case "ord":
      case "hash":
      case "id":
      case "divmod":
      case "pow":
        this.runCallbacks(args, unknown("callback argument"));
        if (name === "int" && first?.k === "num" && first.value !== null) return num(Math.trunc(first.value));
        if ((name === "int" || name === "float") && first?.k === "str" && this.knownText(first) !== null) {
          const parsed = Number(this.knownText(first));
          return num(Number.isNaN(parsed) ? null : name === "int" ? Math.trunc(parsed) : parsed);
        }
        return NUM;
      case "bool":
      case "isinstance":
      case "callable":
      case "hasattr":
      case "any":
      case "all":
        return BOOL;
      case "chr":
      case "type":
        return unknownStr(name);
      case "list":
      case "tuple":
        if (!first) return { k: "list", items: [], exact: true };
        if (first.k === "list") return { k: "list", items: [...first.items], exact: first.exact };
        return inexactList([this.elementOf(first)]);
      case "set":
      case "frozenset":
      case "reversed":
      case "iter":
        return first ? inexactList([this.elementOf(first)]) : inexactList([]);
      case "sorted": {
        if (!first) return inexactList([]);
        const element = this.elementOf(first);
        if (key) this.runCallbacks([key], element);
        return inexactList([element]);
      }
      case "max":
      case "min": {
        const element = args.length === 1 && first ? this.elementOf(first) : join(...args);
        if (key) this.runCallbacks([key], element);
        return element;
      }
      case "next":
        return join(first ? this.elementOf(first) : unknown("next"), ...(args[1] ? [args[1]] : []));
      case "dict": {
        const keys = [...kwargs.keys()].map((k) => str(symText(k)));
        const values = [...kwargs.values()];
        if (first?.k === "dict")
          return {
            k: "dict",
            keys: [...first.keys, ...keys],
            values: [...first.values, ...values],
            exact: first.exact,
          };
        if (first) {
          const pair = this.elementOf(first);
          return {
            k: "dict",
            keys: [...keys, this.subscript(pair, num(0))],
            values: [...values, this.subscript(pair, num(1))],
            exact: false,
          };
        }
        return { k: "dict", keys, values, exact: true };
      }
      case "zip":
        return inexactList([{ k: "list", items: args.map((arg) => this.elementOf(arg)), exact: true }]);
      case "enumerate":
        return inexactList([
          { k: "list", items: [NUM, first ? this.elementOf(first) : unknown("element")], exact: true },
        ]);
      case "range":
        return inexactList([NUM]);
      case "map": {
        const element = args[1] ? this.elementOf(args[1]) : unknown("element");
        const results = options(first ?? NONE)
          .filter((option): option is Extract<Val, { k: "func" }> => option.k === "func")
          .map((func) => this.invoke(func, [element], new Map()));
        return inexactList(results.length > 0 ? results : [unknown("map result")]);
      }
      case "filter": {
        const element = args[1] ? this.elementOf(args[1]) : unknown("element");
        if (first) this.runCallbacks([first], element);
        return inexactList([element]);
      }
      case "exec":
      case "eval":
      case "compile":
      case "__import__":
      case "setattr":
      case "globals":
      case "locals":
      case "vars":
        this.unresolved.push(`${name}() runs or changes code dynamically; its effects are not analysed`);
        this.callUnknown(name, args, kwargs);
        return unknown(`result of ${name}`);
      case "getattr": {
        const attr = args[1] ? this.knownText(args[1]) : null;
        if (first && attr !== null) return mapOptions(first, (option) => this.getAttr(option, attr));
        if (first && handleTables(first).length > 0) {
          this.unresolved.push("getattr on a table with an attribute name only known at run time");
        }
        return unknown("getattr");
      }
      default:
        return this.callUnknown(name, args, kwargs);
    }
  }

  private callMethod(self: Val, name: string, args: Val[], kwargs: ReadonlyMap<string, Val>): Val {
    switch (self.k) {
      case "str":
        return this.strMethod(self.s, name, args, kwargs);
      case "list":
        return this.listMethod(self, name, args, kwargs);
      case "dict":
        return this.dictMethod(self, name, args);
      case "table":
        return this.tableMethod(self.tables, name, args, kwargs);
      case "row":
        return this.rowMethod(self.tables, name, args, kwargs);
      case "column":
        this.runCallbacks([...args, ...kwargs.values()], unknown(`value of ${self.column}`));
        if (MASK_METHODS.has(name)) return BOOL;
        if (name === "tolist" || name === "to_list" || name === "unique")
          return inexactList([unknown(`value of ${self.column}`)]);
        if (
          name === "astype" ||
          name === "sort_values" ||
          name === "head" ||
          name === "tail" ||
          name === "dropna"
        )
          return self;
        return unknown(`${self.column}.${name}()`);
      default:
        return this.callUnknown(name, args, kwargs);
    }
  }

  private strMethod(s: SymString, name: string, args: Val[], kwargs: ReadonlyMap<string, Val>): Val {
    const known = symIsKnown(s) ? symRender({ value: s }) : null;
    switch (name) {
      case "format":
        return this.distribute(args, (combo) => this.strFormat(s, combo, kwargs));
      case "format_map": {
        const mapping = args[0];
        const named = new Map<string, Val>();
        if (mapping?.k === "dict") {
          mapping.keys.forEach((key, i) => {
            const text = this.knownText(key);
            if (text !== null) named.set(text, mapping.values[i]!);
          });
        }
        return this.strFormat(s, [], named);
      }
      case "join": {
        const iterable = args[0];
        if (iterable?.k === "list" && iterable.exact) {
          const pieces = iterable.items.flatMap((item, i) =>
            i === 0 ? [this.textOf(item)] : [s, this.textOf(item)],
          );
          return str(symConcat(...pieces));
        }
        if (iterable) {
          // Unknown count and order: each element stands for the text (column-wise the same union).
          const element = this.elementOf(iterable);
          if (options(element).every((option) => option.k === "str")) return element;
          this.textOf(element);
        }
        return unknownStr("joined text");
      }
      case "lower":
      case "casefold":
        return str(symMapText({ value: s, map: lowerCase }));
      case "upper":
        return str(symMapText({ value: s, map: upperCase }));
      case "strip":
      case "lstrip":
      case "rstrip": {
        if (args.length > 0 && args[0]?.k !== "none")
          return known === null ? str(s) : unknownStr("stripped text");
        if (known !== null) {
          return str(
            symText(
              name === "strip" ? known.trim() : name === "lstrip" ? known.trimStart() : known.trimEnd(),
            ),
          );
        }
        return str(name === "strip" ? symTrim(s) : s);
      }
      case "replace": {
        const from = args[0] ? this.knownText(args[0]) : null;
        const to = args[1] ? this.knownText(args[1]) : null;
        if (from === null || to === null || from === "") return unknownStr("replaced text");
        return str(symMapText({ value: s, map: (text) => text.split(from).join(to) }));
      }
      case "split":
      case "rsplit": {
        const separator = args[0] ? this.knownText(args[0]) : null;
        if (known !== null && (args.length === 0 || separator !== null) && args.length <= 1) {
          const pieces = separator === null ? known.trim().split(/\s+/) : known.split(separator);
          return { k: "list", items: pieces.map((piece) => str(symText(piece))), exact: true };
        }
        return inexactList([unknownStr("split part")]);
      }
      case "splitlines":
        return inexactList([unknownStr("line")]);
      case "encode":
      case "decode":
      case "zfill":
      case "ljust":
      case "rjust":
      case "center":
      case "title":
      case "capitalize":
      case "swapcase":
        // Padding and case changes keep the words; close enough for finding column names.
        return str(s);
      case "startswith":
      case "endswith":
      case "isdigit":
      case "isnumeric":
      case "isalpha":
      case "isalnum":
      case "isspace":
      case "islower":
      case "isupper":
        return BOOL;
      case "find":
      case "rfind":
      case "index":
      case "rindex":
      case "count":
        return NUM;
      default:
        return unknownStr(`str.${name}()`);
    }
  }

  /** Calls `fn` once per combination of the alternatives of `args` (bounded). */
  private distribute(args: Val[], fn: (combo: Val[]) => Val): Val {
    const choices = args.map((arg) => options(arg));
    const total = choices.reduce((product, list) => product * list.length, 1);
    if (total === 1) return fn(args);
    if (total > 32)
      return fn(args.map((arg, i) => (choices[i]!.length > 1 ? unknown("one of several values") : arg)));
    const results: Val[] = [];
    this.distributeFrom(choices, 0, [], fn, results);
    return join(...results);
  }

  private distributeFrom(
    choices: Val[][],
    index: number,
    combo: Val[],
    fn: (combo: Val[]) => Val,
    results: Val[],
  ): void {
    if (index === choices.length) {
      results.push(fn(combo));
      return;
    }
    for (const choice of choices[index]!)
      this.distributeFrom(choices, index + 1, [...combo, choice], fn, results);
  }

  private listMethod(
    list: Extract<Val, { k: "list" }>,
    name: string,
    args: Val[],
    kwargs: ReadonlyMap<string, Val>,
  ): Val {
    switch (name) {
      case "append":
      case "add":
        if (args[0]) appendToList(list, args[0]);
        return NONE;
      case "insert":
        if (args[1]) appendToList(list, args[1]);
        return NONE;
      case "extend":
      case "update":
        if (args[0]) for (const item of this.elements(args[0])) appendToList(list, item);
        return NONE;
      case "pop":
        return this.elementOf(list);
      case "copy":
        return { k: "list", items: [...list.items], exact: list.exact };
      case "sort": {
        const key = kwargs.get("key");
        if (key) this.runCallbacks([key], this.elementOf(list));
        list.exact = false;
        return NONE;
      }
      case "index":
      case "count":
        return NUM;
      default:
        this.runCallbacks([...args, ...kwargs.values()], this.elementOf(list));
        return NONE;
    }
  }

  private dictLookup(
    dict: Extract<Val, { k: "dict" }>,
    key: Val | undefined,
    fallback: Val | undefined,
  ): Val {
    const text = key ? this.knownText(key) : null;
    const at = text === null ? -1 : dict.keys.findIndex((k) => this.knownText(k) === text);
    if (at >= 0) return dict.values[at]!;
    return join(
      ...dict.values,
      ...(fallback ? [fallback] : []),
      ...(dict.values.length === 0 && !fallback ? [NONE] : []),
    );
  }

  private dictMethod(dict: Extract<Val, { k: "dict" }>, name: string, args: Val[]): Val {
    switch (name) {
      case "get":
      case "pop":
        return this.dictLookup(dict, args[0], args[1] ?? NONE);
      case "setdefault": {
        const value = args[1] ?? NONE;
        if (args[0]) {
          dict.keys.push(args[0]);
          dict.values.push(value);
        }
        return this.dictLookup(dict, args[0], value);
      }
      case "keys":
        return inexactList(dict.keys);
      case "values":
        return inexactList(dict.values);
      case "items":
        return inexactList(
          dict.keys.map((key, i) => ({ k: "list", items: [key, dict.values[i]!], exact: true }) as Val),
        );
      case "update":
        if (args[0]?.k === "dict") {
          dict.keys.push(...args[0].keys);
          dict.values.push(...args[0].values);
        }
        return NONE;
      case "copy":
        return { k: "dict", keys: [...dict.keys], values: [...dict.values], exact: dict.exact };
      default:
        return unknown(`dict.${name}()`);
    }
  }

  private tableMethod(
    tables: readonly string[],
    name: string,
    args: Val[],
    kwargs: ReadonlyMap<string, Val>,
  ): Val {
    const all = [...args, ...kwargs.values()];
    const row: Val = { k: "row", tables };
    switch (name) {
      case "iterrows":
        return inexactList([{ k: "list", items: [NUM, row], exact: true }]);
      case "itertuples":
        return inexactList([row]);
      case "get": {
        const column = args[0] ? this.knownText(args[0]) : null;
        if (column === null) {
          this.unresolved.push("DataFrame.get with a column name only known at run time");
          return unknown("column");
        }
        const having = this.readIn(tables, column.toLowerCase(), "DataFrame.get");
        return having.length > 0
          ? { k: "column", tables: having, column: column.toLowerCase() }
          : unknown("column");
      }
      case "apply": {
        const axis = kwargs.get("axis");
        const byRow =
          axis !== undefined && (axis.k === "num" ? axis.value === 1 : this.knownText(axis) === "columns");
        if (byRow) this.runCallbacks(all, row);
        else {
          this.readAll(tables);
          this.runCallbacks(all, unknown("column series"));
        }
        return unknown("apply result");
      }
      case "query": {
        const expression = args[0] ? this.knownText(args[0]) : null;
        if (expression === null)
          this.unresolved.push("DataFrame.query with an expression only known at run time");
        else {
          const words = expression.replace(/'[^']*'|"[^"]*"/g, " ").match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? [];
          for (const word of new Set(words.map((w) => w.toLowerCase()))) {
            if (tables.some((table) => this.hasColumn(table, word)))
              this.readIn(tables, word, "DataFrame.query");
          }
        }
        return { k: "table", tables };
      }
      default:
        this.readNamedColumns(tables, all, `DataFrame.${name}`);
        if (WHOLE_TABLE_READS.has(name)) {
          this.readAll(tables);
          this.runCallbacks(all, unknown("column series"));
          return unknown(`${name} of a table`);
        }
        this.runCallbacks(all, row);
        if (TABLE_RETURNING.has(name)) return { k: "table", tables };
        if (name === "count" || name === "__len__") return NUM;
        return unknown(`DataFrame.${name}()`);
    }
  }

  private rowMethod(
    tables: readonly string[],
    name: string,
    args: Val[],
    kwargs: ReadonlyMap<string, Val>,
  ): Val {
    if (name === "get") {
      const column = args[0] ? this.knownText(args[0]) : null;
      if (column === null) this.unresolved.push("row.get with a column name only known at run time");
      else this.readIn(tables, column.toLowerCase(), "row.get");
      return join(unknown("row value"), ...(args[1] ? [args[1]] : []));
    }
    if (WHOLE_TABLE_READS.has(name)) {
      this.readAll(tables);
      return unknown(`${name} of a row`);
    }
    this.readNamedColumns(tables, [...args, ...kwargs.values()], `row.${name}`);
    return unknown(`row.${name}()`);
  }
}

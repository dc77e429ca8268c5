/**
 * Abstract interpretation of EHRAgent code: walks the AST, tracking what each variable may hold
 * (abstract-values.ts), and records every table column the code reads through the toolbox (LoadDB,
 * FilterDB, GetValue, SQLInterpreter) or through pandas-style access on the DataFrames those tools
 * return (`db['col']`, `row['col']`, `db.col`, `.iloc`, `.loc`, iterrows, sort_values(by=...)).
 *
 * It follows CPython on every construct it models, or says it cannot: scoping (`global`, `nonlocal`,
 * closures reading the live outer variables), control flow (`break`, `continue`, `return`, `raise`,
 * `else` on loops and `try`, loops run to a fixpoint), in-place mutation of lists and dicts, string
 * formatting with format specs, duplicate dict keys. Where a variable may hold several values (a loop
 * left by a data-dependent break), it holds all of them. The world is closed (python-world.ts): a
 * builtin, module, attribute or call it does not model (open, pandas.read_csv, os, exec, a dunder
 * attribute, an unknown function) makes the result undetermined, with the construct and its line, so
 * the compiled engine fails closed instead of concluding that nothing forbidden was read.
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
  valKey,
} from "./abstract-values.js";
import type { Expr, FStringPart, Module, Param, Stmt } from "./py-ast.js";
import { formatStrSpec, percentIntConversion, percentStrConversion, pythonStrRepr } from "./py-format.js";
import {
  DYNAMIC_BUILTINS,
  EXCEPTION_NAMES,
  FRAME_METHODS,
  FRAME_WRITERS,
  isAllowedMember,
  isAllowedModule,
  isPrivateAttribute,
  MODELLED_BUILTINS,
  TOOLBOX,
  VALUE_METHODS,
} from "./python-world.js";
import { type DatabaseSchema, schemaColumnSets } from "./schema.js";
import { sortedStrings } from "./sort-strings.js";
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
  /** Every table the code reads, with or without a column named (LoadDB, `select count(*) from t`). */
  tablesRead: Set<string>;
  unresolved: string[];
  errors: string[];
}

/** A list of words written as one block of text. */
const words = (text: string): string[] => text.trim().split(/\s+/);

/**
 * One value per toolbox function and builtin, made once: a lookup of `LoadDB` or `len` is frequent and
 * the value is never changed (frozen to keep it so).
 */
const BUILTIN_VALUES: ReadonlyMap<string, Val> = new Map(
  [...TOOLBOX, ...MODELLED_BUILTINS].map((name) => [name, Object.freeze({ k: "builtin", name }) as Val]),
);

/**
 * DataFrame methods whose result is again a DataFrame over the same table, chosen by position or by
 * the columns named in their arguments (read as named): no other cell is looked at.
 */
const TABLE_RETURNING = new Set(
  words(`
  head tail sort_values sort_index reset_index set_index copy filter drop rename nlargest nsmallest
  sample query assign groupby loc
`),
);

/** DataFrame methods whose result is a DataFrame computed from every cell (read whole). */
const TABLE_COMPUTING = new Set(
  words(`
  drop_duplicates dropna fillna astype where mask replace round isin isna isnull notna notnull eq ne lt
  gt le ge duplicated abs
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

/** A str.format field: name, conversion, spec (no g or y flag: no state kept between uses). */
const FORMAT_FIELD = /^([^!:]*)(?:!([rsa]))?(?::(.*))?$/s;
const FORMAT_FIELD_NAME = /^[A-Za-z_0-9]*/;
const DIGITS = /^\d+$/;

/** \x1c-\x1f and \x85 are white space to Python's str.strip/split and not to JavaScript; \ufeff the reverse. */
const WHITESPACE_DISAGREEMENT = /[\x1c-\x1f\x85\ufeff]/;

/** Keyword arguments of DataFrame methods that name columns. */
const COLUMN_KEYWORDS = new Set(words("by subset columns keys items on left_on right_on index values level"));

/** DataFrame methods that take column names among their arguments. */
const COLUMN_TAKING = new Set(
  words(`
  sort_values groupby nlargest nsmallest set_index filter drop rename assign merge join pivot
  pivot_table agg aggregate value_counts
`),
);

/** Comparison operators that compare a DataFrame cell by cell. */
const CELLWISE = new Set(["==", "!=", "<>", "<", ">", "<=", ">="]);

/** Methods of lists, tuples and sets (the interpreter's one list value stands for all three). */
const LIST_METHODS = new Set(
  words(`
  append add insert extend update pop remove discard clear reverse sort copy index count union
  intersection difference symmetric_difference issubset issuperset isdisjoint
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
/** Passes of a loop whose iterations are not followed one by one, before its changing variables widen. */
const MAX_LOOP_PASSES = 3;
const MAX_STEPS = 200_000;
const MAX_CALL_DEPTH = 8;

class BudgetExceeded extends Error {}

/** Where `break` and `continue` leave the states they jump with. */
interface LoopFlow {
  breaks: Map<string, Val>[];
  continues: Map<string, Val>[];
}

interface Ctx {
  frame: Frame;
  returns: Val[];
  /** The innermost loop of this function body, or null. */
  loop: LoopFlow | null;
  /** Names the running function declares `global` or `nonlocal`. */
  declared: ReadonlyMap<string, "global" | "nonlocal"> | null;
  /** Inside `try` bodies: where the states an exception may leave with are collected (innermost last). */
  raises: RaisedStates[] | null;
  /** Evaluating a comprehension's element or conditions. */
  comprehension: boolean;
}

/**
 * The states an exception may leave a `try` body with (one before each statement the body runs), kept
 * as their join needs them: each name any state binds, with the values it is bound to, each object once,
 * in the order they came. Their join (joined) is what joining the states themselves gives, since join
 * keeps the first of values it cannot tell apart; a body that runs a loop many times adds a state per
 * statement per pass, which are not copied.
 */
class RaisedStates {
  private readonly bound = new Map<string, Val[]>();
  count = 0;

  add(vars: ReadonlyMap<string, Val>): void {
    this.count++;
    for (const name of vars.keys()) {
      const value = vars.get(name)!;
      const seen = this.bound.get(name);
      if (seen === undefined) this.bound.set(name, [value]);
      else if (!seen.includes(value)) seen.push(value);
    }
  }

  /**
   * Every name bound to the join of its values; one plain value is kept as it is (its join), unless
   * valKey breaks on it (breaksValKey), where the join throws as it does for the states themselves.
   */
  joined(): Map<string, Val> {
    const vars = new Map<string, Val>();
    for (const [name, values] of this.bound) {
      const first = values[0]!;
      vars.set(
        name,
        values.length === 1 && first.k !== "oneOf" && !breaksValKey(first) ? first : join(...values),
      );
    }
    return vars;
  }
}

/** `ctx` running on another frame (a branch, a handler). */
function ctxOnFrame(ctx: Ctx, frame: Frame): Ctx {
  return {
    frame,
    returns: ctx.returns,
    loop: ctx.loop,
    declared: ctx.declared,
    raises: ctx.raises,
    comprehension: ctx.comprehension,
  };
}

/** A context like `ctx` with some fields changed; one object shape for every context. */
function withCtx(ctx: Ctx, change: Partial<Ctx>): Ctx {
  return {
    frame: change.frame ?? ctx.frame,
    returns: change.returns ?? ctx.returns,
    loop: change.loop !== undefined ? change.loop : ctx.loop,
    declared: change.declared !== undefined ? change.declared : ctx.declared,
    raises: change.raises !== undefined ? change.raises : ctx.raises,
    comprehension: change.comprehension ?? ctx.comprehension,
  };
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

/** `global`/`nonlocal` declarations of a function body (not of functions or classes nested in it). */
const declarationsCache = new WeakMap<object, ReadonlyMap<string, "global" | "nonlocal"> | null>();

function declarationsOf(body: readonly Stmt[]): ReadonlyMap<string, "global" | "nonlocal"> | null {
  const cached = declarationsCache.get(body);
  if (cached !== undefined) return cached;
  let found: Map<string, "global" | "nonlocal"> | null = null;
  const visit = (stmts: readonly Stmt[]): void => {
    for (const stmt of stmts) {
      switch (stmt.type) {
        case "Global":
          found ??= new Map();
          for (const name of stmt.names) found.set(name, stmt.kind);
          break;
        case "If":
        case "For":
        case "While":
          visit(stmt.body);
          visit(stmt.orelse);
          break;
        case "With":
          visit(stmt.body);
          break;
        case "Try":
          visit(stmt.body);
          for (const handler of stmt.handlers) visit(handler.body);
          visit(stmt.orelse);
          visit(stmt.finalbody);
          break;
        default:
          break;
      }
    }
  };
  visit(body);
  declarationsCache.set(body, found);
  return found;
}

/** Whether a block contains `break`, `continue` or `return` outside nested loops and functions. */
function jumpsOut(body: readonly Stmt[], inLoop: boolean): boolean {
  for (const stmt of body) {
    switch (stmt.type) {
      case "Return":
        return true;
      case "Break":
      case "Continue":
        if (!inLoop) return true;
        break;
      case "If":
      case "With":
        if (jumpsOut(stmt.body, inLoop) || (stmt.type === "If" && jumpsOut(stmt.orelse, inLoop))) return true;
        break;
      case "For":
      case "While":
        if (jumpsOut(stmt.body, true) || jumpsOut(stmt.orelse, inLoop)) return true;
        break;
      case "Try":
        if (
          jumpsOut(stmt.body, inLoop) ||
          stmt.handlers.some((handler) => jumpsOut(handler.body, inLoop)) ||
          jumpsOut(stmt.orelse, inLoop) ||
          jumpsOut(stmt.finalbody, inLoop)
        )
          return true;
        break;
      default:
        break;
    }
  }
  return false;
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
  /** The line of the statement or call being analysed, for the reasons given. */
  private line = 0;
  /** Every function value created, and the ids of those the analysis saw called. */
  private readonly functions: Extract<Val, { k: "func" }>[] = [];
  private called: Set<number> | null = null;
  /** The module scope (its frame's `scope`), for `global` writes. */
  private readonly moduleScope = {};
  /** Scope -> the copy of its frame that is live now (a branch runs on a copy). */
  private readonly liveFrames = new Map<object, Frame>();
  /** Bumped whenever a list or dict may hold something it could not before (loops run until it stays). */
  private heapVersion = 0;
  /** Whether closures may exist (else branches need not be registered as live copies). */
  private closures = true;
  /** Whether string constants may hold characters Python and JavaScript disagree about as white space. */
  private unusualText = true;

  /** The schema's columns per table as Sets (own tables only; see hasColumn). */
  private readonly columnSets: ReadonlyMap<string, ReadonlySet<string>>;

  constructor(private readonly schema: DatabaseSchema) {
    this.columnSets = schemaColumnSets({ schema });
  }

  run(module: Module): void {
    this.closures = module.mayDefineFunctions !== false;
    this.unusualText = module.mayHaveUnusualText !== false;
    const frame: Frame = { vars: new Map(), parent: null, scope: this.moduleScope };
    this.liveFrames.set(this.moduleScope, frame);
    const ctx: Ctx = { frame, returns: [], loop: null, declared: null, raises: null, comprehension: false };
    try {
      const alive = this.execBlock(module.body, ctx);
      // The value left in `answer` (EHRAgent prints it) and a trailing bare expression (a notebook cell
      // displays it) expose every column of a DataFrame they hold.
      const answer = frame.vars.get("answer");
      if (answer) this.exposeHandles(answer);
      const last = module.body[module.body.length - 1];
      if (alive && last?.type === "ExprStmt") this.exposeHandles(this.evaluate(last.value, ctx));
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

  /** Reports a construct the interpreter does not model: the result is undetermined (fails closed). */
  private undetermined(what: string): void {
    this.unresolved.push(`${what} (line ${this.line}) is outside what the analysis models`);
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

  /** Every DataFrame and row a value holds, however deep in lists and dicts, is shown whole. */
  private exposeHandles(value: Val, seen?: Set<Val>): void {
    // Most values hold no frame at all: answered without the visited set.
    if (value.k !== "list" && value.k !== "dict" && value.k !== "oneOf" && value.k !== "method") {
      if (value.k === "table" || value.k === "row") this.readAll(value.tables);
      return;
    }
    seen ??= new Set();
    if (seen.has(value)) return;
    seen.add(value);
    for (const option of options(value)) {
      if (option.k === "table" || option.k === "row") this.readAll(option.tables);
      if (option.k === "list") for (const item of option.items) this.exposeHandles(item, seen);
      if (option.k === "dict") {
        for (const item of option.keys) this.exposeHandles(item, seen);
        for (const item of option.values) this.exposeHandles(item, seen);
      }
      if (option.k === "method") this.exposeHandles(option.self, seen);
    }
  }

  private tick(): void {
    this.steps++;
    if (this.steps > MAX_STEPS) throw new BudgetExceeded();
  }

  // ------------------------------------------------------------------ frames

  /** The copy of `frame`'s scope that is live now (frame itself unless a branch runs on a copy). */
  private live(frame: Frame): Frame {
    // Without closures the only inner frames are comprehensions', whose parent is the running frame.
    if (!this.closures) return frame;
    return this.liveFrames.get(frame.scope) ?? frame;
  }

  /** Runs `body` on a copy of the frame (a branch); answers the copy's variables, or null if it never falls through. */
  private branch(ctx: Ctx, body: readonly Stmt[], start?: Map<string, Val>): Map<string, Val> | null {
    const frame: Frame = {
      vars: new Map(start ?? ctx.frame.vars),
      parent: ctx.frame.parent,
      scope: ctx.frame.scope,
    };
    const inner = ctxOnFrame(ctx, frame);
    const alive = this.closures
      ? this.withLive(frame, () => this.execBlock(body, inner))
      : this.execBlock(body, inner);
    return alive ? frame.vars : null;
  }

  /** Runs `fn` with `frame` as the live copy of its scope, restoring the previous one after. */
  private withLive<T>(frame: Frame, fn: () => T): T {
    // No try/finally: an exception ends the whole analysis (run() reports it), state and all.
    const previous = this.liveFrames.get(frame.scope);
    this.liveFrames.set(frame.scope, frame);
    const result = fn();
    if (previous === undefined) this.liveFrames.delete(frame.scope);
    else this.liveFrames.set(frame.scope, previous);
    return result;
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
    // A frame among the states (a loop head joined with the end of its body) loses none of its names.
    if (!maps.includes(vars)) this.dropNamesNoneHas(vars, maps);
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
          // Each object once: join keeps the first of values it cannot tell apart anyway.
          const values: Val[] = [];
          for (const other of maps) {
            const value = other.get(name);
            if (value !== undefined && !values.includes(value)) values.push(value);
          }
          merged = join(...values);
        }
        if (vars.get(name) !== merged) vars.set(name, merged);
      }
    }
  }

  /** Deletes from `vars` each name that none of `maps` binds. */
  private dropNamesNoneHas(vars: Map<string, Val>, maps: Map<string, Val>[]): void {
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
  }

  /** Appends to a list in place, noting a change of what it may hold. */
  private append(list: Extract<Val, { k: "list" }>, item: Val): void {
    if (appendToList(list, item)) this.heapVersion++;
  }

  /** A list or dict whose elements are no longer known one by one (after an in-place change). */
  private inexact(value: Extract<Val, { k: "list" }> | Extract<Val, { k: "dict" }>): void {
    if (value.exact) {
      value.exact = false;
      this.heapVersion++;
    }
  }

  /** Whether two states bind the same names to values the interpreter cannot tell apart. */
  private sameState(a: Map<string, Val>, b: Map<string, Val>): boolean {
    if (a.size !== b.size) return false;
    for (const [name, value] of a) {
      const other = b.get(name);
      if (other === undefined) return false;
      if (other !== value && valKey(other) !== valKey(value)) return false;
    }
    return true;
  }

  // ------------------------------------------------------------------ statements

  /** Runs a block; false when no path falls through its end (break, continue, return, raise). */
  private execBlock(body: readonly Stmt[], ctx: Ctx): boolean {
    for (const stmt of body) if (!this.exec(stmt, ctx)) return false;
    return true;
  }

  private exec(stmt: Stmt, ctx: Ctx): boolean {
    this.tick();
    this.line = stmt.line;
    // An exception may leave a try body before any of its statements: handlers start from each such state.
    if (ctx.raises) for (const states of ctx.raises) states.add(ctx.frame.vars);
    switch (stmt.type) {
      case "Assign": {
        const value = this.evaluate(stmt.value, ctx);
        for (const target of stmt.targets) this.assign(target, value, ctx);
        return true;
      }
      case "AugAssign":
        this.augAssign(stmt, ctx);
        return true;
      case "AnnAssign":
        if (stmt.value) this.assign(stmt.target, this.evaluate(stmt.value, ctx), ctx);
        return true;
      case "ExprStmt":
        this.evaluate(stmt.value, ctx);
        return true;
      case "If": {
        this.evaluate(stmt.test, ctx);
        const body = this.branch(ctx, stmt.body);
        // No else: the state after it is the state before, which needs no copy.
        const orelse = stmt.orelse.length === 0 ? ctx.frame.vars : this.branch(ctx, stmt.orelse);
        if (body === null && orelse === null) return false;
        this.mergeInto(ctx.frame, body === null ? [orelse!] : orelse === null ? [body] : [body, orelse]);
        return true;
      }
      case "For":
        return this.execFor(stmt, ctx);
      case "While":
        return this.execWhile(stmt, ctx);
      case "FunctionDef": {
        // `@d def f` binds f to d(f), the decorator nearest the def applied first.
        const decorators = stmt.decorators.map((decorator) => this.evaluate(decorator, ctx));
        let value = this.makeFunction(stmt.name, stmt.params, stmt.body, ctx);
        for (let i = decorators.length - 1; i >= 0; i--) {
          const fn = value;
          value = mapOptions(decorators[i]!, (decorator) => this.callOne(decorator, [fn], NO_KWARGS));
        }
        this.bindName(stmt.name, value, ctx);
        return true;
      }
      case "ClassDef": {
        for (const base of stmt.bases) this.evaluate(base, ctx);
        const frame: Frame = { vars: new Map(), parent: ctx.frame, scope: {} };
        this.withLive(frame, () =>
          this.execBlock(stmt.body, {
            frame,
            returns: [],
            loop: null,
            declared: null,
            raises: ctx.raises,
            comprehension: false,
          }),
        );
        this.bindName(stmt.name, unknown(`class ${stmt.name}`), ctx);
        return true;
      }
      case "Return":
        ctx.returns.push(stmt.value ? this.evaluate(stmt.value, ctx) : NONE);
        return false;
      case "Try":
        return this.execTry(stmt, ctx);
      case "With":
        for (const item of stmt.items) {
          const value = this.evaluate(item.context, ctx);
          if (item.target) this.assign(item.target, value, ctx);
        }
        return this.execBlock(stmt.body, ctx);
      case "Raise":
        if (stmt.exc) this.evaluate(stmt.exc, ctx);
        return false;
      case "Del":
        for (const target of stmt.targets) this.deleteTarget(target, ctx);
        return true;
      case "Assert":
        this.evaluate(stmt.test, ctx);
        // A failed assertion's message is shown (EHRAgent reports the exception).
        if (stmt.msg) this.exposeHandles(this.evaluate(stmt.msg, ctx));
        return true;
      case "Import":
        this.execImport(stmt, ctx);
        return true;
      case "Break":
        ctx.loop?.breaks.push(new Map(ctx.frame.vars));
        return false;
      case "Continue":
        ctx.loop?.continues.push(new Map(ctx.frame.vars));
        return false;
      case "Pass":
      case "Global":
        return true;
    }
  }

  /** `x op= v`: a list extended in place (`+=` keeps the object), anything else rebound to `x op v`. */
  private augAssign(stmt: Extract<Stmt, { type: "AugAssign" }>, ctx: Ctx): void {
    const current = this.evaluate(stmt.target, ctx);
    const value = this.evaluate(stmt.value, ctx);
    const results: Val[] = [];
    for (const option of options(current)) {
      if (option.k === "list" && stmt.op === "+") {
        for (const item of this.elements(value)) this.append(option, item);
        results.push(option);
      } else {
        results.push(this.binary(stmt.op, option, value));
      }
    }
    this.assign(stmt.target, join(...results), ctx);
  }

  private execImport(stmt: Extract<Stmt, { type: "Import" }>, ctx: Ctx): void {
    for (const { name, asname } of stmt.names) {
      if (stmt.from === null) {
        if (!isAllowedModule(name)) {
          this.undetermined(`import of module "${name}"`);
          this.bindName(asname ?? name.split(".")[0]!, unknown(`module ${name}`), ctx);
          continue;
        }
        // `import a.b` binds a; `import a.b as c` binds c to a.b.
        const path = asname ? name : name.split(".")[0]!;
        this.bindName(asname ?? path, { k: "module", path }, ctx);
        continue;
      }
      const qualified = `${stmt.from}.${name}`;
      if (name === "*" || !isAllowedModule(stmt.from) || !isAllowedMember(qualified)) {
        this.undetermined(`import of "${name}" from module "${stmt.from}"`);
        if (name !== "*") this.bindName(asname ?? name, unknown(qualified), ctx);
        continue;
      }
      this.bindName(asname ?? name, { k: "module", path: qualified }, ctx);
    }
  }

  private deleteTarget(target: Expr, ctx: Ctx): void {
    switch (target.type) {
      case "Name":
        ctx.frame.vars.delete(target.id);
        return;
      case "Subscript": {
        const container = this.evaluate(target.value, ctx);
        if (target.index.type !== "Slice") this.evaluate(target.index, ctx);
        // The remaining elements are among those there were: an approximation keeps them all.
        for (const option of options(container)) {
          if (option.k === "list" || option.k === "dict") this.inexact(option);
        }
        return;
      }
      case "Tuple":
      case "List":
        for (const elt of target.elts) this.deleteTarget(elt, ctx);
        return;
      default:
        this.evaluate(target.type === "Attribute" ? target.value : target, ctx);
    }
  }

  /**
   * A `for` loop. A short exactly known list is followed one element at a time; anything else runs
   * the body until the state at the loop head stops changing (variables still changing after
   * MAX_LOOP_PASSES become unknown). The state after the loop joins the states it may leave with: the
   * end of the iteration (then the `else` block) and every `break`, so a variable set before a
   * data-dependent break holds every value it may have there.
   */
  private execFor(stmt: Extract<Stmt, { type: "For" }>, ctx: Ctx): boolean {
    const iterable = this.evaluate(stmt.iter, ctx);
    const flow: LoopFlow = { breaks: [], continues: [] };
    const inner: Ctx = withCtx(ctx, { loop: flow });
    let exits = true;
    if (iterable.k === "list" && iterable.exact && iterable.items.length <= MAX_EXACT_ITERATION) {
      for (const item of [...iterable.items]) {
        this.assign(stmt.target, item, inner);
        flow.continues = [];
        const alive = this.execBlock(stmt.body, inner);
        if (alive && flow.continues.length === 0) continue;
        const states = alive ? [ctx.frame.vars, ...flow.continues] : flow.continues;
        if (states.length === 0) {
          exits = false;
          break;
        }
        this.mergeInto(ctx.frame, states);
      }
    } else {
      const element = this.elementOf(iterable);
      this.loopToFixpoint(ctx, flow, () => {
        this.assign(stmt.target, element, inner);
        return this.execBlock(stmt.body, inner);
      });
    }
    return this.leaveLoop(ctx, flow, exits, stmt.orelse);
  }

  private execWhile(stmt: Extract<Stmt, { type: "While" }>, ctx: Ctx): boolean {
    const flow: LoopFlow = { breaks: [], continues: [] };
    const inner: Ctx = withCtx(ctx, { loop: flow });
    // The test runs at the head of every pass, and once more on the way out.
    this.loopToFixpoint(ctx, flow, () => {
      this.evaluate(stmt.test, ctx);
      return this.execBlock(stmt.body, inner);
    });
    this.evaluate(stmt.test, ctx);
    return this.leaveLoop(ctx, flow, true, stmt.orelse);
  }

  /**
   * Runs `pass` (one iteration from the loop head) until the head state is stable: the head is the join
   * of the state before the loop and every state that reaches the next iteration.
   */
  private loopToFixpoint(ctx: Ctx, flow: LoopFlow, pass: () => boolean): void {
    let head = new Map(ctx.frame.vars);
    for (let round = 1; ; round++) {
      flow.continues = [];
      const heap = this.heapVersion;
      const alive = pass();
      this.mergeInto(ctx.frame, [head, ...(alive ? [ctx.frame.vars] : []), ...flow.continues]);
      // Stable when no variable and no list or dict the pass reached may hold anything new.
      if (heap === this.heapVersion && this.sameState(ctx.frame.vars, head)) return;
      if (round >= MAX_LOOP_PASSES) break;
      head = new Map(ctx.frame.vars);
    }
    // Widening: what still changes after MAX_LOOP_PASSES may be anything. One more pass shows what the
    // body does with the widened values; whatever changes even then becomes unknown outright.
    this.widen(ctx.frame.vars, head, false);
    const widened = new Map(ctx.frame.vars);
    flow.continues = [];
    const alive = pass();
    this.mergeInto(ctx.frame, [widened, ...(alive ? [ctx.frame.vars] : []), ...flow.continues]);
    this.widen(ctx.frame.vars, widened, true);
  }

  /** Names whose value in `vars` differs from `before`: joined with unknown, or replaced by it (`replace`). */
  private widen(vars: Map<string, Val>, before: Map<string, Val>, replace: boolean): void {
    for (const [name, value] of vars) {
      const old = before.get(name);
      if (old !== undefined && (old === value || valKey(old) === valKey(value))) continue;
      const any = unknown(`${name}, changed by every pass of a loop`);
      vars.set(name, replace ? any : join(value, any));
    }
  }

  /** The state after a loop: its normal exit (then `else`) joined with every break. */
  private leaveLoop(ctx: Ctx, flow: LoopFlow, exits: boolean, orelse: readonly Stmt[]): boolean {
    const states: Map<string, Val>[] = [...flow.breaks];
    if (exits && this.execBlock(orelse, ctx)) states.unshift(ctx.frame.vars);
    if (states.length === 0) return false;
    this.mergeInto(ctx.frame, states);
    return true;
  }

  /**
   * `try`: handlers start from the join of every state the body may raise from (before each of its
   * statements, nested ones included); the state after joins the body's end (then `else`) and each
   * handler's end; `finally` runs on that. A break, continue or return inside a try with `finally`
   * (which would run the finally block on the way out) is not followed: undetermined.
   */
  private execTry(stmt: Extract<Stmt, { type: "Try" }>, ctx: Ctx): boolean {
    if (stmt.finalbody.length > 0 && jumpsOut([{ ...stmt, finalbody: [] }], false)) {
      this.undetermined("break, continue or return inside try ... finally");
    }
    const raised = new RaisedStates();
    const bodyCtx: Ctx = withCtx(ctx, { raises: [...(ctx.raises ?? []), raised] });
    const bodyAlive = this.execBlock(stmt.body, bodyCtx);
    const ends: Map<string, Val>[] = [];
    if (bodyAlive && this.execBlock(stmt.orelse, ctx)) ends.push(new Map(ctx.frame.vars));
    if (raised.count > 0) {
      const start: Frame = { vars: raised.joined(), parent: ctx.frame.parent, scope: ctx.frame.scope };
      for (const handler of stmt.handlers) {
        const frame: Frame = { vars: new Map(start.vars), parent: ctx.frame.parent, scope: ctx.frame.scope };
        const alive = this.withLive(frame, () => {
          const handlerCtx: Ctx = withCtx(ctx, { frame });
          if (handler.exceptionType) this.evaluate(handler.exceptionType, handlerCtx);
          if (handler.name) frame.vars.set(handler.name, unknown("exception"));
          return this.execBlock(handler.body, handlerCtx);
        });
        if (alive) ends.push(frame.vars);
      }
      // An exception no handler catches leaves through finally: it sees those states too.
      if (stmt.finalbody.length > 0) {
        const frame: Frame = { vars: new Map(start.vars), parent: ctx.frame.parent, scope: ctx.frame.scope };
        this.withLive(frame, () => this.execBlock(stmt.finalbody, withCtx(ctx, { frame })));
      }
    }
    if (ends.length === 0) {
      return false;
    }
    this.mergeInto(ctx.frame, ends);
    return this.execBlock(stmt.finalbody, ctx);
  }

  /** The values bound to a loop target: each element of a short known list, else an element twice. */
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
        case "row":
          // Iterating a row (a Series) yields every field.
          this.readAll(option.tables);
          return unknown("field of a row");
        case "str":
          return unknownStr("character");
        default:
          return unknown("element");
      }
    });
  }

  /**
   * Binds a name in the running scope, or where its `global`/`nonlocal` declaration sends it. Those
   * writes reach a frame outside the running one, which other paths share: they join with the value
   * there (a weak update), never replace it.
   */
  private bindName(name: string, value: Val, ctx: Ctx): void {
    const declared = ctx.declared?.get(name);
    if (declared === undefined) {
      ctx.frame.vars.set(name, value);
      return;
    }
    let target: Frame | null = null;
    if (declared === "global") {
      target = this.liveFrames.get(this.moduleScope) ?? null;
    } else {
      for (let f = ctx.frame.parent; f; f = f.parent) {
        const live = this.live(f);
        if (live.scope === this.moduleScope) break;
        if (live.vars.has(name)) {
          target = live;
          break;
        }
      }
    }
    if (!target) {
      this.undetermined(`nonlocal "${name}" with no enclosing binding`);
      ctx.frame.vars.set(name, value);
      return;
    }
    const existing = target.vars.get(name);
    target.vars.set(name, existing === undefined ? value : join(existing, value));
  }

  private assign(target: Expr, value: Val, ctx: Ctx): void {
    switch (target.type) {
      case "Name":
        this.bindName(target.id, value, ctx);
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
        if (isPrivateAttribute(target.attr)) this.undetermined(`assignment to attribute "${target.attr}"`);
        return;
      case "Subscript": {
        const container = this.evaluate(target.value, ctx);
        const index =
          target.index.type === "Slice" ? ({ k: "slice" } as Val) : this.evaluate(target.index, ctx);
        for (const option of options(container)) {
          if (option.k === "dict") {
            this.dictSet(option, index, value, false);
          } else if (option.k === "list") {
            if (index.k === "slice") for (const item of this.elements(value)) this.append(option, item);
            else this.append(option, value);
          }
          // Assigning a DataFrame column writes; it reads nothing.
        }
        return;
      }
      default:
        this.evaluate(target, ctx);
    }
  }

  /**
   * `dict[key] = value`. A known text key replaces the value of an equal key when `strong` (a dict
   * display, where the last of duplicate keys wins) and joins with it otherwise (the store may be on one
   * path only); any other key is added and the dict is no longer exact.
   */
  private dictSet(dict: Extract<Val, { k: "dict" }>, key: Val, value: Val, strong: boolean): void {
    const text = this.knownText(key);
    let at = text === null ? -1 : dict.keys.findIndex((k) => this.knownText(k) === text);
    // A key only known at run time that the dict has already (the same value twice round a loop).
    if (at < 0 && text === null) {
      const wanted = valKey(key);
      at = dict.keys.findIndex((k) => this.knownText(k) === null && valKey(k) === wanted);
      strong = false;
    }
    if (at >= 0) {
      const old = dict.values[at]!;
      const next = strong ? value : join(old, value);
      if (next !== old && valKey(next) !== valKey(old)) this.heapVersion++;
      dict.values[at] = next;
      return;
    }
    dict.keys.push(key);
    dict.values.push(value);
    this.heapVersion++;
    if (text === null) this.inexact(dict);
  }

  // ------------------------------------------------------------------ expressions

  private evaluate(expr: Expr, ctx: Ctx): Val {
    this.tick();
    switch (expr.type) {
      case "Name":
        return this.lookup(expr.id, ctx.frame, expr.line);
      case "Constant":
        switch (expr.kind) {
          case "str":
          case "bytes": {
            const text = String(expr.value);
            // Characters Python and JavaScript disagree about as white space (strip, split): not followed.
            return this.unusualText && WHITESPACE_DISAGREEMENT.test(text)
              ? unknownStr("text with unusual white space")
              : str(symText(text));
          }
          case "int":
            return num(
              typeof expr.value === "number" && Number.isSafeInteger(expr.value) ? expr.value : null,
            );
          case "float":
          case "complex":
            // str(1.0) is "1.0" in Python and "1" in JavaScript: a float's text is not followed.
            return NUM;
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
      case "Compare": {
        // Comparing a DataFrame or a row with ==, <... compares every cell; `in` and `is` look at its
        // labels or identity only.
        const left = this.evaluate(expr.left, ctx);
        if (CELLWISE.has(expr.ops[0]!)) this.exposeFrames(left);
        for (let i = 0; i < expr.comparators.length; i++) {
          const operand = this.evaluate(expr.comparators[i]!, ctx);
          if (CELLWISE.has(expr.ops[i]!) || (i + 1 < expr.ops.length && CELLWISE.has(expr.ops[i + 1]!)))
            this.exposeFrames(operand);
        }
        return BOOL;
      }
      case "Call":
        return this.evalCall(expr, ctx);
      case "Attribute": {
        const value = this.evaluate(expr.value, ctx);
        this.line = expr.line;
        return mapOptions(value, (option) => this.getAttr(option, expr.attr));
      }
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
        if (!exact) return inexactList(items);
        return expr.type === "Tuple"
          ? { k: "list", items, exact: true, tuple: true }
          : { k: "list", items, exact: true };
      }
      case "Dict": {
        // Python evaluates each key before its value; of duplicate keys the last value wins.
        const dict: Extract<Val, { k: "dict" }> = { k: "dict", keys: [], values: [], exact: true };
        expr.keys.forEach((key, i) => {
          if (key === null) {
            this.mergeDict(dict, this.evaluate(expr.values[i]!, ctx));
            return;
          }
          const keyValue = this.evaluate(key, ctx);
          this.dictSet(dict, keyValue, this.evaluate(expr.values[i]!, ctx), true);
        });
        return dict;
      }
      case "Comprehension":
        return this.evalComprehension(expr, ctx);
      case "Lambda":
        return this.makeFunction("lambda", expr.params, expr.body, ctx);
      case "IfExp":
        this.evaluate(expr.test, ctx);
        return join(this.evaluate(expr.body, ctx), this.evaluate(expr.orelse, ctx));
      case "Starred":
        return this.elementOf(this.evaluate(expr.value, ctx));
      case "NamedExpr": {
        const value = this.evaluate(expr.value, ctx);
        // In a comprehension `:=` binds in the enclosing function, on some iterations: not followed.
        if (ctx.comprehension) this.undetermined("an assignment expression in a comprehension");
        this.bindName(expr.target, value, ctx);
        return value;
      }
    }
  }

  /**
   * A name: the running frame, then the live copies of the enclosing scopes, then the builtins the
   * interpreter models. Anything else (open, exec, a name never bound) is outside the closed world.
   */
  private lookup(name: string, frame: Frame, line: number): Val {
    const own = frame.vars.get(name);
    if (own !== undefined) return own;
    for (let f: Frame | null = frame.parent; f; f = f.parent) {
      const value = this.live(f).vars.get(name);
      if (value !== undefined) return value;
    }
    const builtin = BUILTIN_VALUES.get(name);
    if (builtin) return builtin;
    if (EXCEPTION_NAMES.has(name)) return unknown(`exception class ${name}`);
    this.line = line;
    this.undetermined(
      DYNAMIC_BUILTINS.has(name) ? `the builtin "${name}"` : `the name "${name}", which is never bound`,
    );
    return unknown(name);
  }

  /** `{**other}` into a dict display: the other dict's entries in order, or an inexact dict. */
  private mergeDict(dict: Extract<Val, { k: "dict" }>, other: Val): void {
    if (other.k === "dict" && other.exact) {
      for (let i = 0; i < other.keys.length; i++) this.dictSet(dict, other.keys[i]!, other.values[i]!, true);
      return;
    }
    this.inexact(dict);
    // `{**row}` copies every field of the row.
    this.exposeFrames(other);
    for (const option of options(other)) {
      if (option.k === "dict") {
        dict.keys.push(...option.keys);
        dict.values.push(...option.values);
      } else {
        dict.keys.push(unknown("key"));
        dict.values.push(unknown("value"));
      }
    }
  }

  private evalFString(parts: readonly FStringPart[], ctx: Ctx): Val {
    const pieces: SymString[] = [];
    for (const part of parts) {
      if (part.kind === "text") {
        pieces.push(
          this.unusualText && WHITESPACE_DISAGREEMENT.test(part.text)
            ? [hole("unusual white space")]
            : symText(part.text),
        );
        continue;
      }
      const value = this.evaluate(part.expr, ctx);
      const spec = part.spec.length > 0 ? this.evalFString(part.spec, ctx) : null;
      pieces.push(this.formatField(value, part.conversion, spec?.k === "str" ? spec.s : null));
    }
    return str(symConcat(...pieces));
  }

  private evalComprehension(expr: Extract<Expr, { type: "Comprehension" }>, ctx: Ctx): Val {
    const frame: Frame = { vars: new Map(), parent: ctx.frame, scope: {} };
    const inner: Ctx = {
      frame,
      returns: ctx.returns,
      loop: null,
      declared: null,
      raises: ctx.raises,
      comprehension: true,
    };
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
    if (depth > 4) {
      // Not rendered, but still shown: whatever frames it holds are read whole.
      this.exposeHandles(value);
      return [hole("nested value")];
    }
    switch (value.k) {
      case "str":
        return value.s;
      case "num":
        return value.value === null || !Number.isSafeInteger(value.value)
          ? [hole("number")]
          : symText(String(value.value));
      case "none":
        return symText("None");
      case "list": {
        if (!value.exact) {
          this.exposeHandles(value);
          return [hole("list")];
        }
        const parts = value.items.map((item) => this.reprOf(item, depth + 1));
        const [open, close] = value.tuple ? ["(", parts.length === 1 ? ",)" : ")"] : ["[", "]"];
        return symConcat(
          symText(open),
          ...parts.flatMap((part, i) => (i === 0 ? [part] : [symText(", "), part])),
          symText(close),
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
        // A dict, a method of a frame...: its text shows every frame it holds.
        this.exposeHandles(value);
        return [hole(value.k)];
    }
  }

  /** repr(value) (ascii(value) when `ascii`): a string quoted and escaped as CPython does. */
  private reprOf(value: Val, depth = 0, ascii = false): SymString {
    if (value.k === "str") {
      const text = this.knownText(value);
      const repr = text === null ? null : pythonStrRepr({ text, ascii });
      return repr === null ? [hole("repr of a string")] : symText(repr);
    }
    if (value.k === "oneOf") {
      const texts = value.options.map((option) => this.reprOf(option, depth + 1, ascii));
      const first = texts[0]!;
      const same =
        symIsKnown(first) &&
        texts.every((text) => symRender({ value: text }) === symRender({ value: first }));
      return same ? first : [hole("one of several values")];
    }
    return this.textOf(value, depth);
  }

  private knownText(value: Val): string | null {
    if (value.k !== "str" || !symIsKnown(value.s)) return null;
    return symRender({ value: value.s });
  }

  /**
   * One replacement field: the conversion (`!r`, `!a`, `!s`), then the format spec. A spec is followed
   * for text (`{:.9}`, `{:>12}`) exactly; on any other value, or a spec not known exactly, the text is
   * unknown.
   */
  private formatField(value: Val, conversion: string | null, spec: SymString | null): SymString {
    const converted =
      conversion === "r" || conversion === "a"
        ? this.reprOf(value, 0, conversion === "a")
        : conversion === "s" || spec === null || spec.length === 0
          ? this.textOf(value)
          : null;
    if (spec === null || spec.length === 0) return converted!;
    const specText = symIsKnown(spec) ? symRender({ value: spec }) : null;
    if (specText === null) return [hole("formatted value")];
    let text: string | null = null;
    if (converted !== null) text = symIsKnown(converted) ? symRender({ value: converted }) : null;
    else if (options(value).every((option) => option.k === "str")) {
      // Every alternative is text: format each; one answer only if they agree.
      const texts = options(value).map((option) => this.knownText(option));
      const formatted = texts.map((t) => (t === null ? null : formatStrSpec({ text: t, spec: specText })));
      if (formatted.every((f) => f !== null && f === formatted[0])) return symText(formatted[0]!);
      return [hole("formatted value")];
    }
    const formatted = text === null ? null : formatStrSpec({ text, spec: specText });
    return formatted === null ? [hole("formatted value")] : symText(formatted);
  }

  /** str.format: `{}`, `{0}`, `{name}`, conversions and specs; `{{`/`}}` are literal braces. */
  private strFormat(template: SymString, args: Val[], kwargs: ReadonlyMap<string, Val>): Val {
    // Text only known at run time may hold replacement fields of its own, which would take arguments.
    if (!symIsKnown(template)) return unknownStr("format of a template only known at run time");
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
        // A nested field in the spec (`{:>{width}}`) is not followed.
        if (field.includes("{")) return unknownStr("format with nested fields");
        // `{}` (the usual field) names nothing: no regex to run.
        const match = field === "" ? null : FORMAT_FIELD.exec(field);
        const name = match?.[1] ?? "";
        const base = name === "" ? "" : FORMAT_FIELD_NAME.exec(name)![0];
        let value: Val | undefined;
        if (base === "") value = args[auto++];
        else if (DIGITS.test(base)) value = args[Number(base)];
        else value = kwargs.get(base);
        if (value === undefined) out.push([hole(`missing format argument "${base}"`)]);
        else if (base.length < name.length) {
          // `{0[age]}` or `{0.attr}`: an item or attribute of the argument (dunders are the way out).
          if (name.includes("__")) this.undetermined(`the format field "{${name}}"`);
          this.exposeHandles(value);
          out.push([hole(`format field ${name}`)]);
        } else out.push(this.formatField(value, match?.[2] ?? null, match?.[3] ? symText(match[3]) : null));
        i = close + 1;
      }
      out.push(symText(text));
    }
    return str(symConcat(...out));
  }

  /** printf-style `template % values`. */
  private percentFormat(template: SymString, right: Val): Val {
    // Text only known at run time may hold conversions of its own, which would take arguments.
    if (!symIsKnown(template)) return unknownStr("% format of a template only known at run time");
    // A tuple spreads into the conversions; any other value (a list too) is the one argument. A value
    // that may or may not be a tuple leaves the argument count unknown.
    // With one conversion, a tuple (of one item: any other length raises) formats as its item, which
    // the unknown value's text stands for already.
    const conversion = /%(\([^)]*\))?([-#0 +]*)(\*|\d+)?(?:\.(\*|\d*))?[hlL]?([diouxXeEfFgGcrsa%])/g;
    const exactTuple = right.k === "list" && right.tuple === true && right.exact;
    // `'%(age)s' % row` reads fields of the row by name.
    this.exposeFrames(right);
    if (!exactTuple) {
      const maybeTuple = options(right).some(
        (option) => (option.k === "list" && (option.tuple || !option.exact)) || option.k === "unknown",
      );
      const text = symRender({ value: template });
      const count = [...text.matchAll(conversion)].filter((m) => m[5] !== "%").length;
      if (maybeTuple && count !== 1) return unknownStr("% format of values only known at run time");
    }
    const args = exactTuple ? (right as Extract<Val, { k: "list" }>).items : [right];
    let next = 0;
    const out: SymString[] = [];
    for (const part of template) {
      if (isHole(part)) {
        out.push([part]);
        continue;
      }
      let last = 0;
      for (const match of part.matchAll(conversion)) {
        out.push(symText(part.slice(last, match.index)));
        last = match.index + match[0].length;
        const type = match[5]!;
        const flags = match[2] ?? "";
        const width = match[3] ?? "";
        // "%.s" is precision 0; no "." is no precision.
        const precision = match[4] === undefined ? "" : match[4] === "" ? "0" : match[4];
        if (type === "%") {
          if (match[0] !== "%%") return unknownStr("% format with an unusual %%");
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
        if (value === undefined) {
          out.push([hole("missing % argument")]);
          continue;
        }
        if (type === "s" || type === "r" || type === "a") {
          const converted = type === "s" ? this.textOf(value) : this.reprOf(value, 0, type === "a");
          if (flags === "" && width === "" && precision === "") {
            out.push(converted);
            continue;
          }
          const text = symIsKnown(converted) ? symRender({ value: converted }) : null;
          const done = text === null ? null : percentStrConversion({ text, flags, width, precision });
          out.push(done === null ? [hole(`%${type} value`)] : symText(done));
        } else if (value.k === "num" && value.value !== null && "di".includes(type)) {
          const done = percentIntConversion({ value: Math.trunc(value.value), flags, width, precision });
          out.push(done === null ? [hole(`%${type} value`)] : symText(done));
        } else out.push([hole(`%${type} value`)]);
      }
      out.push(symText(part.slice(last)));
    }
    return str(symConcat(...out));
  }

  private binary(op: string, left: Val, right: Val): Val {
    // Arithmetic on a DataFrame or a row computes with every cell.
    this.exposeFrames(left);
    this.exposeFrames(right);
    return mapOptions(left, (l) => mapOptions(right, (r) => this.binaryOne(op, l, r)));
  }

  /** Every column of the DataFrames and rows a value may be (not of lists holding them). */
  private exposeFrames(value: Val): void {
    if (value.k === "table" || value.k === "row") this.readAll(value.tables);
    else if (value.k === "oneOf") {
      for (const option of value.options) {
        if (option.k === "table" || option.k === "row") this.readAll(option.tables);
      }
    }
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
    // `__class__`, `__globals__`, `__subclasses__`...: the way out of any sandbox.
    if (isPrivateAttribute(attr)) {
      this.undetermined(`the attribute "${attr}"`);
      return unknown(`.${attr}`);
    }
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
        return this.frameMethod(value, attr);
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
        return this.frameMethod(value, attr);
      }
      case "column":
        if (attr === "values" || attr === "str" || attr === "dt" || attr === "array") return value;
        if (attr === "iloc" || attr === "loc" || attr === "at" || attr === "iat") {
          return { k: "indexer", of: "column", tables: value.tables, mode: attr };
        }
        if (TABLE_METADATA.has(attr)) return unknown(`${attr} of a column`);
        return this.frameMethod(value, attr);
      case "str":
      case "list":
      case "dict":
        return { k: "method", self: value, name: attr };
      case "module": {
        const path = `${value.path}.${attr}`;
        if (isAllowedMember(path)) return { k: "module", path };
        this.undetermined(`"${path}"`);
        return unknown(path);
      }
      case "unknown":
      case "num":
      case "bool":
      case "none":
        // `tools.FilterDB(...)`: a toolbox function reached through a module (whose import is reported).
        if (value.k === "unknown" && TOOLBOX.has(attr)) return BUILTIN_VALUES.get(attr)!;
        // A value the analysis does not follow exactly (a number, a datetime, a value read out of a
        // table): only the pure methods of python-world.ts are modelled on it.
        if (VALUE_METHODS.has(attr)) return { k: "method", self: value, name: attr };
        this.undetermined(`the attribute "${attr}" of ${this.describe(value)}`);
        return unknown(`.${attr}`);
      default:
        this.undetermined(`the attribute "${attr}" of ${this.describe(value)}`);
        return unknown(`.${attr}`);
    }
  }

  /** A method of a DataFrame, row or column: one the interpreter models, a writer, or undetermined. */
  private frameMethod(value: Val, attr: string): Val {
    if (
      FRAME_METHODS.has(attr) ||
      FRAME_WRITERS.has(attr) ||
      WHOLE_TABLE_READS.has(attr) ||
      TABLE_RETURNING.has(attr) ||
      MASK_METHODS.has(attr)
    )
      return { k: "method", self: value, name: attr };
    this.undetermined(`the DataFrame attribute "${attr}"`);
    return unknown(`.${attr}`);
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
              else this.unresolved.push("row subscript with a column name only known at run time");
            }
            return unknown("row value");
          }
          if (idx.k === "slice" || idx.k === "bool") {
            this.readAll(container.tables);
            return unknown("row values");
          }
          // A position (row[0]) or a value only known at run time: which field is read is not known.
          this.unresolved.push(`row subscript with ${this.describe(idx)}: cannot tell which column it reads`);
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
        return mapOptions(index, (idx) => this.dictLookup(container, idx, undefined));
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
      else if (value.k !== "dict") {
        // `f(**row)` takes every field of the row.
        this.exposeFrames(value);
      } else {
        value.keys.forEach((key, i) => {
          const name = this.knownText(key);
          if (name !== null) (kwargs as Map<string, Val>).set(name, value.values[i]!);
        });
      }
    }
    this.line = expr.line;
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
      case "module":
        return this.callModuleMember(callee.path, args, kwargs);
      case "unknown":
        this.undetermined(`a call of ${callee.origin}`);
        return this.callUnknown(callee.origin, args, kwargs);
      default:
        this.undetermined(`a call of ${this.describe(callee)}`);
        return this.callUnknown(callee.k, args, kwargs);
    }
  }

  /**
   * A member of an allowed module (python-world.ts): pure computation. A DataFrame handed to it is read
   * whole, except by the pandas functions that only combine frames (their result is a frame over the same
   * tables, read as it is used); a column handed to a converter stays that column.
   */
  private callModuleMember(path: string, args: Val[], kwargs: ReadonlyMap<string, Val>): Val {
    const all = [...args, ...kwargs.values()];
    this.runCallbacks(all, unknown("callback argument"));
    const tables = [...new Set(all.flatMap((value) => handleTables(value)))];
    const frames = all.filter((value) =>
      options(value).some((option) => option.k === "table" || option.k === "row"),
    );
    if (path === "pandas.merge" || path === "pandas.concat" || path === "pandas.DataFrame") {
      if (tables.length > 0) {
        this.readNamedColumns(tables, all, path);
        return { k: "table", tables };
      }
      return unknown(`result of ${path}`);
    }
    if (
      (path === "pandas.to_datetime" || path === "pandas.to_numeric" || path === "pandas.to_timedelta") &&
      args[0]?.k === "column"
    ) {
      return args[0];
    }
    for (const frame of frames) this.readAll(handleTables(frame));
    if (tables.length > 0) this.readNamedColumns(tables, all, path);
    if (path.startsWith("math.") && path !== "math.pi" && path !== "math.e") return NUM;
    return unknown(`result of ${path}`);
  }

  /** A function value; its parameters' defaults are evaluated now, as `def` and `lambda` do. */
  private makeFunction(name: string, params: readonly Param[], body: readonly Stmt[] | Expr, ctx: Ctx): Val {
    const defaults = params.map((param) => (param.default ? this.evaluate(param.default, ctx) : undefined));
    const func: Extract<Val, { k: "func" }> = {
      k: "func",
      name,
      params,
      body,
      closure: ctx.frame,
      defaults,
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
      .map(([table, columns]) => `${table}:${sortedStrings(columns).join(",")}`)
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
    const frame: Frame = { vars: new Map(), parent: func.closure, scope: {} };
    const body = Array.isArray(func.body) ? (func.body as readonly Stmt[]) : null;
    const ctx: Ctx = {
      frame,
      returns: [],
      loop: null,
      declared: body ? declarationsOf(body) : null,
      raises: null,
      comprehension: false,
    };
    this.bindParams(func, args, kwargs, ctx);
    this.depth++;
    const line = this.line;
    try {
      return this.withLive(frame, () => {
        if (!body) return this.evaluate(func.body as Expr, ctx);
        const alive = this.execBlock(body, ctx);
        // Falling off the end returns None.
        if (alive) ctx.returns.push(NONE);
        return ctx.returns.length > 0
          ? join(...ctx.returns)
          : unknown(`result of ${func.name}, which never returns`);
      });
    } finally {
      this.depth--;
      this.line = line;
    }
  }

  private bindParams(
    func: Extract<Val, { k: "func" }>,
    args: Val[],
    kwargs: ReadonlyMap<string, Val>,
    ctx: Ctx,
  ): void {
    let position = 0;
    const used = new Set<string>();
    const { params, defaults } = func;
    for (let p = 0; p < params.length; p++) {
      const param = params[p]!;
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
      } else if (defaults[p] !== undefined) {
        ctx.frame.vars.set(param.name, defaults[p]!);
      } else {
        ctx.frame.vars.set(param.name, unknown(`argument ${param.name}`));
      }
    }
  }

  /** Functions handed to code we do not model (sorted keys, apply, map) still run: call them. */
  private runCallbacks(values: Iterable<Val>, element: Val): void {
    for (const value of values) {
      for (const option of options(value)) {
        if (option.k === "builtin" || option.k === "method" || option.k === "module") {
          // A builtin or method handed over as a callback (`map(getattr, ...)`, `key=str.lower`) runs too.
          this.callOne(option, [element], NO_KWARGS);
          continue;
        }
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

  /**
   * The column names a column-taking DataFrame method is given (positional text, and the keywords of
   * COLUMN_KEYWORDS) must each be known and a column of the table: pandas reads the column named, and a
   * name the analysis cannot match exactly (only known at run time, or not a column as it reads it) is
   * reported rather than skipped. `like=`/`regex=` select columns by pattern: every column.
   */
  private checkColumnArguments(
    tables: readonly string[],
    name: string,
    args: Val[],
    kwargs: ReadonlyMap<string, Val>,
  ): void {
    if (kwargs.has("like") || kwargs.has("regex")) this.readAll(tables);
    const named: Val[] = [];
    for (let i = 0; i < args.length; i++) {
      // nlargest(n, columns): the first is a count.
      if (i === 0 && (name === "nlargest" || name === "nsmallest")) continue;
      named.push(args[i]!);
    }
    for (const [key, value] of kwargs) if (COLUMN_KEYWORDS.has(key)) named.push(value);
    for (const value of named) {
      if (this.mayNameUnknownColumn(value)) {
        this.unresolved.push(`DataFrame.${name} with a column name only known at run time`);
        continue;
      }
      for (const text of this.textsIn(value)) {
        const column = text.toLowerCase();
        if (!tables.some((table) => this.hasColumn(table, column))) {
          this.unresolved.push(
            `DataFrame.${name} names "${text}", which is not a column of ${tables.join(" or ")}`,
          );
        }
      }
    }
  }

  /** The known texts a value holds (itself, or the items of a list). */
  private textsIn(value: Val): string[] {
    const out: string[] = [];
    for (const option of options(value)) {
      const text = this.knownText(option);
      if (text !== null) out.push(text);
      else if (option.k === "list") for (const item of option.items) out.push(...this.textsIn(item));
    }
    return out;
  }

  /** Whether a method argument may be a column name whose text is not known (or a list holding one). */
  private mayNameUnknownColumn(value: Val, depth = 0): boolean {
    if (depth > 3) return true;
    for (const option of options(value)) {
      if (option.k === "unknown" || (option.k === "str" && !symIsKnown(option.s))) return true;
      if (option.k === "list" && option.items.some((item) => this.mayNameUnknownColumn(item, depth + 1)))
        return true;
      if (option.k === "dict" && option.keys.some((key) => this.mayNameUnknownColumn(key, depth + 1)))
        return true;
    }
    return false;
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
          this.tablesRead.add(table);
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
          for (const table of access.tables) this.tablesRead.add(table);
          this.unresolved.push(...access.unresolved);
          this.errors.push(...access.errors);
        }
        if (!sql) this.unresolved.push("SQLInterpreter is called without a query");
        return unknown("SQL result");
      }
      case "Calculate": {
        // EHRAgent's Calculate evaluates its text as an expression: only plain arithmetic is harmless.
        const arg = this.argument(args, kwargs, 0, ["query", "QUERY", "expression", "formula"]);
        for (const option of arg ? options(arg) : []) {
          const plain =
            option.k === "num" ||
            (option.k === "str" &&
              option.s.every((part) =>
                isHole(part) ? part.origin === "number" : /^[\d\s+\-*/().%eE]*$/.test(part),
              ));
          if (!plain)
            this.undetermined("Calculate with anything but plain arithmetic (it evaluates its text)");
        }
        return NUM;
      }
      case "Calendar": {
        // EHRAgent's Calendar runs `select datetime(current_time, '<argument>')` in SQLite: the
        // argument is pasted into SQL, so a quote in it can make the query read anything.
        const arg = this.argument(args, kwargs, 0, ["argument", "ARGUMENT", "date", "delta"]);
        for (const option of arg ? options(arg) : []) {
          const text = this.knownText(option);
          if (text === null) {
            this.undetermined("Calendar with an argument only known at run time (it is pasted into SQL)");
            continue;
          }
          if (!text.includes("'")) continue;
          const sql = `select datetime(current_time, '${text}')`;
          const access = extractSqlAccess({ sql, schema: this.schema });
          for (const read of access.reads) this.read(read.table, read.column, "Calendar's SQL");
          for (const table of access.wholeTables) this.wholeTables.add(table);
          for (const table of access.tables) this.tablesRead.add(table);
          this.unresolved.push(...access.unresolved);
          this.errors.push(...access.errors);
        }
        return unknownStr("Calendar result");
      }
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
      case "ascii":
        return first ? str(this.reprOf(first, 0, name === "ascii")) : str([]);
      case "format": {
        if (!first) return str([]);
        const spec = args[1] ? (args[1].k === "str" ? args[1].s : [hole("format spec")]) : null;
        return str(this.formatField(first, null, spec));
      }
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
        // len(df) counts rows (the table is read already, by LoadDB); sum(df), max(row)... read every cell.
        if (name !== "len" && name !== "id") for (const arg of args) this.exposeHandles(arg);
        if (name === "int" && args.length === 1 && first?.k === "num" && first.value !== null)
          return num(Math.trunc(first.value));
        if (name === "int" && args.length === 1 && first?.k === "str") {
          // Only plain decimal text: int("1e3") raises, Number("1e3") does not.
          const text = this.knownText(first);
          if (text !== null && /^\s*[+-]?\d+\s*$/.test(text)) {
            const parsed = Number(text);
            if (Number.isSafeInteger(parsed)) return num(parsed);
          }
        }
        return NUM;
      case "bool":
      case "isinstance":
      case "issubclass":
      case "callable":
      case "hasattr":
      case "any":
      case "all":
        this.runCallbacks(args, unknown("callback argument"));
        return BOOL;
      case "chr":
        return unknownStr(name);
      case "type":
        // A class (DataFrame's, with its writers): only pure methods are modelled on it.
        return unknown("a type");
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
        // dict(df) maps every column to its values; dict(row) every field.
        if (first) this.exposeFrames(first);
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
        // map(f, a, b) calls f with one element of each iterable.
        const elements = args.slice(1).map((arg) => this.elementOf(arg));
        const results = options(first ?? NONE).map((callee) => this.callOne(callee, elements, NO_KWARGS));
        return inexactList(results.length > 0 ? results : [unknown("map result")]);
      }
      case "filter": {
        const element = args[1] ? this.elementOf(args[1]) : unknown("element");
        if (first) this.runCallbacks([first], element);
        return inexactList([element]);
      }
      case "getattr": {
        const attr = args[1] ? this.knownText(args[1]) : null;
        if (first && attr !== null) {
          const got = mapOptions(first, (option) => this.getAttr(option, attr));
          return args[2] ? join(got, args[2]) : got;
        }
        this.undetermined("getattr with an attribute name only known at run time");
        return unknown("getattr");
      }
      default:
        this.undetermined(`the builtin "${name}"`);
        return this.callUnknown(name, args, kwargs);
    }
  }

  private callMethod(self: Val, name: string, args: Val[], kwargs: ReadonlyMap<string, Val>): Val {
    if ((self.k === "table" || self.k === "row" || self.k === "column") && FRAME_WRITERS.has(name)) {
      return this.frameWriter(self, name, args, kwargs);
    }
    switch (self.k) {
      case "str":
        return this.strMethod(self.s, name, args, kwargs);
      case "list":
        return this.listMethod(self, name, args, kwargs);
      case "dict":
        return this.dictMethod(self, name, args, kwargs);
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
        // A pure method of a value not followed exactly (getAttr let only those through).
        return this.callUnknown(name, args, kwargs);
    }
  }

  /** Keyword names under which pandas' writers take their destination. */
  private static readonly DESTINATIONS = words(
    "path_or_buf buf path excel_writer con name path_or_buffer fname filepath",
  );

  /**
   * `df.to_csv(...)` and the other writers: with a destination they write a file (undetermined);
   * without one they return the text of every column.
   */
  private frameWriter(self: Val, name: string, args: Val[], kwargs: ReadonlyMap<string, Val>): Val {
    const returnsText = words("to_csv to_json to_string to_html to_markdown to_latex to_xml").includes(name);
    const destination =
      args.length > 0 || Interpreter.DESTINATIONS.some((key) => kwargs.has(key)) || !returnsText;
    if (destination) this.undetermined(`DataFrame.${name}, which writes outside the program`);
    if (self.k === "table" || self.k === "row") this.readAll(self.tables);
    return unknownStr(`text of DataFrame.${name}`);
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
        if (args.length > 0 && args[0]?.k !== "none") {
          const chars = this.knownText(args[0]!);
          if (known === null || chars === null) return known === null ? str(s) : unknownStr("stripped text");
          // str.strip(chars): every character in the set, from the end(s) named.
          const set = new Set(chars);
          const cps = [...known];
          let start = 0;
          let end = cps.length;
          if (name !== "rstrip") while (start < end && set.has(cps[start]!)) start++;
          if (name !== "lstrip") while (end > start && set.has(cps[end - 1]!)) end--;
          return str(symText(cps.slice(start, end).join("")));
        }
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
        // A count (the third argument) replaces only the first occurrences: not followed.
        if (from === null || to === null || from === "" || args.length > 2 || kwargs.size > 0)
          return unknownStr("replaced text");
        return str(symMapText({ value: s, map: (text) => text.split(from).join(to) }));
      }
      case "split":
      case "rsplit": {
        const separator = args[0] ? this.knownText(args[0]) : null;
        if (known !== null && (args.length === 0 || separator !== null) && args.length <= 1) {
          if (separator === "") return unknownStr("split part");
          const trimmed = known.trim();
          const pieces =
            separator === null ? (trimmed === "" ? [] : trimmed.split(/\s+/)) : known.split(separator);
          return { k: "list", items: pieces.map((piece) => str(symText(piece))), exact: true };
        }
        return inexactList([unknownStr("split part")]);
      }
      case "splitlines":
        return inexactList([unknownStr("line")]);
      case "zfill":
      case "ljust":
      case "rjust":
      case "center":
        return this.padText(known, name, args);
      case "encode":
      case "decode":
      case "title":
      case "capitalize":
      case "swapcase":
        // Case changes keep the letters, and every table and column name is matched without case;
        // encode/decode keep the text (str(b'x') would not, but bytes are never a name here).
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

  /** `ljust`/`rjust`/`center`/`zfill` of known text with a known width (and fill), as Python pads. */
  private padText(known: string | null, name: string, args: Val[]): Val {
    const width = args[0]?.k === "num" ? args[0].value : null;
    const fill = args[1] === undefined ? " " : this.knownText(args[1]);
    if (known === null || width === null || !Number.isSafeInteger(width) || width > 10_000) {
      return unknownStr(`str.${name}()`);
    }
    if (fill === null || [...fill].length !== 1) return unknownStr(`str.${name}()`);
    const length = [...known].length;
    const missing = width - length;
    if (missing <= 0) return str(symText(known));
    if (name === "ljust") return str(symText(known + fill.repeat(missing)));
    if (name === "rjust") return str(symText(fill.repeat(missing) + known));
    if (name === "zfill") {
      const sign = known[0] === "+" || known[0] === "-" ? known[0] : "";
      return str(symText(sign + "0".repeat(missing) + known.slice(sign.length)));
    }
    // center: CPython puts the extra character on the left when the padding and the width are odd.
    const left = Math.floor(missing / 2) + (missing & width & 1);
    return str(symText(fill.repeat(left) + known + fill.repeat(missing - left)));
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
    if (!LIST_METHODS.has(name)) {
      this.undetermined(`the list method "${name}"`);
      return this.callUnknown(name, args, kwargs);
    }
    switch (name) {
      case "append":
      case "add":
        if (args[0]) this.append(list, args[0]);
        return NONE;
      case "insert":
        if (args[1]) this.append(list, args[1]);
        return NONE;
      case "extend":
      case "update":
        for (const arg of args) for (const item of this.elements(arg)) this.append(list, item);
        return NONE;
      case "pop": {
        // Which element goes (and so which stay where) is not followed: the list keeps every element
        // it may have, in any order.
        const element = list.items.length === 0 ? unknown("element of empty list") : this.elementOf(list);
        this.inexact(list);
        return element;
      }
      case "remove":
      case "discard":
      case "clear":
      case "reverse":
        this.inexact(list);
        return NONE;
      case "sort": {
        const key = kwargs.get("key");
        if (key) this.runCallbacks([key], this.elementOf(list));
        this.inexact(list);
        return NONE;
      }
      case "copy":
        return { k: "list", items: [...list.items], exact: list.exact };
      case "index":
      case "count":
        return NUM;
      case "union":
      case "symmetric_difference":
        return inexactList([...list.items, ...args.map((arg) => this.elementOf(arg))]);
      case "intersection":
      case "difference":
        return inexactList([...list.items]);
      default:
        return BOOL;
    }
  }

  /**
   * `dict.get(key, fallback)` and `dict[key]`. An exact dict answers a known text key with its value,
   * joined with the values of keys only known at run time (which may equal it); an inexact one (after
   * a pop, a comprehension) may hold any of its values under any key, or none (the fallback).
   */
  private dictLookup(
    dict: Extract<Val, { k: "dict" }>,
    key: Val | undefined,
    fallback: Val | undefined,
  ): Val {
    const values: Val[] = [];
    const text = key ? this.knownText(key) : null;
    if (!dict.exact || text === null) {
      values.push(...dict.values);
      if (fallback) values.push(fallback);
      return values.length > 0 ? join(...values) : unknown("dict value");
    }
    let found = false;
    dict.keys.forEach((k, i) => {
      const keyText = this.knownText(k);
      if (keyText === text) found = true;
      if (keyText === text || (keyText === null && k.k !== "num" && k.k !== "none"))
        values.push(dict.values[i]!);
    });
    if (!found && fallback) values.push(fallback);
    return values.length > 0 ? join(...values) : unknown("missing dict key");
  }

  private dictMethod(
    dict: Extract<Val, { k: "dict" }>,
    name: string,
    args: Val[],
    kwargs: ReadonlyMap<string, Val>,
  ): Val {
    switch (name) {
      case "get":
        return this.dictLookup(dict, args[0], args[1] ?? NONE);
      case "pop": {
        const value = this.dictLookup(dict, args[0], args[1]);
        // The key may be gone now: lookups after it may take their fallback.
        this.inexact(dict);
        return value;
      }
      case "popitem":
      case "clear":
        this.inexact(dict);
        return name === "clear" ? NONE : inexactList([this.elementOf(dict), join(...dict.values, NONE)]);
      case "setdefault": {
        const key = args[0] ?? NONE;
        const value = args[1] ?? NONE;
        const result = this.dictLookup(dict, key, value);
        this.dictSet(dict, key, value, false);
        return result;
      }
      case "keys":
        return inexactList(dict.keys);
      case "values":
        return inexactList(dict.values);
      case "items":
        if (!dict.exact) {
          const pair: Val = {
            k: "list",
            items: [join(...dict.keys), join(...dict.values)],
            exact: true,
            tuple: true,
          };
          return inexactList([pair]);
        }
        return inexactList(
          dict.keys.map(
            (key, i) => ({ k: "list", items: [key, dict.values[i]!], exact: true, tuple: true }) as Val,
          ),
        );
      case "update": {
        for (const arg of args) {
          if (arg.k === "dict" && arg.exact) {
            for (let i = 0; i < arg.keys.length; i++) this.dictSet(dict, arg.keys[i]!, arg.values[i]!, false);
          } else {
            const pair = this.elementOf(arg);
            dict.keys.push(arg.k === "dict" ? join(...arg.keys) : this.subscript(pair, num(0)));
            dict.values.push(arg.k === "dict" ? join(...arg.values) : this.subscript(pair, num(1)));
            this.inexact(dict);
          }
        }
        for (const [key, value] of kwargs) this.dictSet(dict, str(symText(key)), value, false);
        return NONE;
      }
      case "copy":
        return { k: "dict", keys: [...dict.keys], values: [...dict.values], exact: dict.exact };
      default:
        this.undetermined(`the dict method "${name}"`);
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
        if (COLUMN_TAKING.has(name)) this.checkColumnArguments(tables, name, args, kwargs);
        this.readNamedColumns(tables, all, `DataFrame.${name}`);
        if (WHOLE_TABLE_READS.has(name)) {
          this.readAll(tables);
          this.runCallbacks(all, unknown("column series"));
          return unknown(`${name} of a table`);
        }
        this.runCallbacks(all, row);
        if (TABLE_RETURNING.has(name)) return { k: "table", tables };
        // Anything else (count, any, all, isin, isna, eq...) computes over every cell.
        this.readAll(tables);
        if (TABLE_COMPUTING.has(name)) return { k: "table", tables };
        if (name === "count") return unknown("count of each column");
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

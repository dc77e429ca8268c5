/**
 * The EHRAgent extractor's fast path: one pass over the code text, with no tokens and no syntax tree, for
 * the shapes EHRAgent writes most — line-oriented assignments of LoadDB / FilterDB / GetValue with literal,
 * `'...{}...'.format(x)` or f-string arguments, `answer = ...`, arithmetic, comparisons and builtins on
 * the values they return, `if`/`elif`/`else`, `for x in values:` (and `for i, row in db.iterrows():`),
 * `try`/`except`, rows and column series (`row['col']`, `db['col'].values`), lists built with `append`,
 * imports and comments. It evaluates as it reads, with the abstract interpreter's own semantics
 * (interpreter.ts) restricted to the few kinds of value those shapes produce, and returns exactly what
 * parse + interpretation would return.
 *
 * It never has to be complete: at the first thing outside that subset — any syntax it does not model,
 * any value it does not track, anything that would leave a read unresolved — it gives up and returns
 * null, and extract.ts runs the general tokenizer, parser and interpreter. So correctness never depends
 * on how much the fast path covers; fast-path.test.ts holds the two paths to the same answers.
 *
 * Why it is exact. Reads are a set (table -> columns), so evaluation order does not matter; the only
 * effects the subset has are reads and appends to lists. A value is one of a handful of kinds, each
 * standing for exactly one interpreter value (a table, row or column handle on one table, a string —
 * known, or with holes —, a number, a bool, None, an unknown, a list the code built) or, for MULTI, for
 * "an unknown or a oneOf of scalars": every operation the fast path allows on MULTI gives the same reads
 * and kind for both, and those that would not (str.format on it, adding it to a string) give up. OPAQUE
 * is any value with no table handle in it: only operations that read nothing whatever it is are allowed
 * on it. A merge with a handle the fast path does not follow becomes BAD, and reading a BAD variable
 * gives up. New values are always new objects, so two values the fast path sees as the same object are
 * the same object to the interpreter too (the merge after a branch keeps such a value without a join).
 *
 * Why it is fast. The statement shapes of most lines are recognised by one sticky regular expression
 * (LINE_TEMPLATE; native code); the other lines are read by a small scanner that hashes names as it goes
 * and matches them against the known names and the program's variables without copying them. A string
 * with holes is one flat text in which HOLE_CHAR marks each hole (the code may not contain that
 * character), so formatting is string concatenation; the common FilterDB / GetValue argument forms are
 * read in place (toolbox-arguments.ts handles the rest); reads go to a slot array laid out once per
 * schema, in the order the result lists them. Nothing is kept from one check to the next but that
 * per-schema layout and scratch space.
 */
import type { EhrAgentAccess } from "./extract.js";
import type { DatabaseSchema } from "./schema.js";
import { hole, type SymPart, type SymString } from "./sym-string.js";
import { isRegexSpace, parseFilterConditions, parseGetValueArgument } from "./toolbox-arguments.js";

// ------------------------------------------------------------------------------------------ values

/** {k:"table", tables:[table.name]}. */
const TABLE = 0;
/** {k:"str"}: its text in `text`, with HOLE_CHAR where a hole is. */
const STR = 1;
/** {k:"num", value: num}. */
const NUM = 2;
/** {k:"bool"}. */
const BOOL = 3;
/** {k:"none"}. */
const NONE = 4;
/** {k:"unknown"}. */
const UNKNOWN = 5;
/** A single {k:"unknown"} or a oneOf of num / bool / none / unknown values: which one is not tracked. */
const MULTI = 6;
/**
 * A value with no table handle anywhere in it (and no function), otherwise unknown: a merge of a string
 * with another value, say. It may be compared, counted, handed to an unknown function or left in
 * `answer`, which read nothing whatever it is; anything that would show its text or look inside it
 * gives up.
 */
const OPAQUE = 7;
/**
 * A list the code built: `[]` ({k:"list", items:[], exact:true}), then `append`s of values with no
 * handle (the same object, now inexact). Mutated in place, as the interpreter's lists are.
 */
const LIST = 8;
/** {k:"row", tables:[table.name]}: a row of a table (iteration over it, iterrows, itertuples). */
const ROW = 9;
/** {k:"column", tables:[table.name], column: text}: a column series, `db['col']` (read when made). */
const COLUMN = 10;
/** `db.iterrows()`: a list of [index, row] pairs whose row is `item`. */
const PAIRS = 11;
/** `db.itertuples()`: a list of rows, each `item`. */
const ROWS = 12;
/** Anything else (a merge of values the fast path does not follow): using it gives up. */
const BAD = 13;

/** Whether a value of this kind holds a handle on a table (what reads columns when printed or merged). */
function hasHandle(kind: number): boolean {
  return kind === TABLE || kind === ROW || kind === COLUMN || kind === PAIRS || kind === ROWS;
}

interface FastValue {
  kind: number;
  /** STR: the text, HOLE_CHAR for each hole. */
  text: string;
  /** STR: whether the text has a hole. */
  holes: boolean;
  /** TABLE: the table. */
  table: TableIndex | null;
  /** NUM: the value, null when not known. */
  num: number | null;
  /** LIST: still the exact empty list (nothing appended). */
  exact: boolean;
  /** PAIRS, ROWS: the row value every element holds. */
  item: FastValue | null;
}

function value(kind: number): FastValue {
  return { kind, text: "", holes: false, table: null, num: null, exact: false, item: null };
}

function numberValue(num: number | null): FastValue {
  return { kind: NUM, text: "", holes: false, table: null, num, exact: false, item: null };
}

function strValue(text: string, holes: boolean): FastValue {
  return { kind: STR, text, holes, table: null, num: null, exact: false, item: null };
}

/** A TABLE or ROW handle, or a COLUMN series of `column`. */
function handleValue(kind: number, table: TableIndex, column = ""): FastValue {
  return { kind, text: column, holes: false, table, num: null, exact: false, item: null };
}

function tableValue(table: TableIndex): FastValue {
  return handleValue(TABLE, table);
}

function emptyList(): FastValue {
  return { kind: LIST, text: "", holes: false, table: null, num: null, exact: true, item: null };
}

/** PAIRS or ROWS over `table`, their elements holding one row value. */
function rowsValue(kind: number, table: TableIndex): FastValue {
  return { kind, text: "", holes: false, table, num: null, exact: false, item: handleValue(ROW, table) };
}

/**
 * Marks a hole in a string's text. NUL: generated code never holds one (code that does is left to the
 * general path), and being a one-byte character it keeps texts with holes one-byte strings, which
 * V8 searches and compares faster than two-byte ones.
 */
const HOLE_CHAR = "\u0000";
/** One hole object for every unknown stretch: hole origins show only in messages, and those give up. */
const HOLE = hole("value only known at run time");

/** The SymString the interpreter holds for a string value (symConcat: no empty text). */
function symOf(v: FastValue): SymString {
  if (!v.holes) return v.text === "" ? [] : [v.text];
  const out: SymPart[] = [];
  const pieces = v.text.split(HOLE_CHAR);
  for (let i = 0; i < pieces.length; i++) {
    if (i > 0) out.push(HOLE);
    if (pieces[i] !== "") out.push(pieces[i]!);
  }
  return out;
}

// ------------------------------------------------------------------------------------------ names

/** The hash the scanner computes over a name's characters. */
function hashName(text: string): number {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (Math.imul(h, 31) + text.charCodeAt(i)) | 0;
  return h;
}

/** What a known name is besides a possible variable (interpreter.ts, py-parser.ts). */
const KEYWORD = 1;
const TOOLBOX = 2;
const BUILTIN = 3;
/** True, False, None: constants, never variables. */
const CONSTANT = 4;

const KNOWN_NAMES: string[] = [];
const KNOWN_KINDS: number[] = [];
const KNOWN_BY_HASH = new Map<number, number[]>();

function know(kind: number, names: string): void {
  for (const name of names.trim().split(/\s+/)) {
    const index = KNOWN_NAMES.length;
    KNOWN_NAMES.push(name);
    KNOWN_KINDS.push(kind);
    const hash = hashName(name);
    const chain = KNOWN_BY_HASH.get(hash);
    if (chain) chain.push(index);
    else KNOWN_BY_HASH.set(hash, [index]);
  }
}

know(
  KEYWORD,
  `and as assert async await break class continue def del elif else except finally for from global if
  import in is lambda nonlocal not or pass raise return try while with yield`,
);
know(TOOLBOX, "LoadDB FilterDB GetValue SQLInterpreter Calculate Calendar");
know(
  BUILTIN,
  `len int float abs round sum ord hash id str repr bool isinstance callable hasattr any all list tuple
  set frozenset sorted reversed dict zip enumerate range map filter max min next iter print getattr type
  chr divmod pow exec eval compile __import__ setattr globals locals vars`,
);
know(CONSTANT, "True False None");

/** DataFrame attributes that reveal no cell values (interpreter.ts TABLE_METADATA). */
const TABLE_METADATA = new Set(["empty", "shape", "size", "ndim", "columns", "index", "dtypes", "axes"]);

/** Column series methods that give a boolean mask (interpreter.ts MASK_METHODS). */
const MASK_METHODS = new Set(
  `isin isna isnull notna notnull between contains startswith endswith eq ne lt gt le ge duplicated`.split(
    " ",
  ),
);

/** Builtins that return a number, running no callback the fast path could be handed. */
const NUMERIC_BUILTINS = new Set(["len", "int", "float", "abs", "round", "sum", "ord", "hash", "id"]);
const BOOLEAN_BUILTINS = new Set(["bool", "isinstance", "callable", "hasattr", "any", "all"]);

/** toolbox-arguments.ts AGGREGATE_SELECTOR, the same expression. */
const AGGREGATE_SELECTOR = /^\s*(?:max|min)\s*\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)\s*$/i;

const NAME_RE = "[A-Za-z_][A-Za-z0-9_]*";
const SPACES = "[ \\t]*";
/** A one-line string literal with no prefix: its body in the first group that matched. */
const LITERAL = `(?:'([^'\\n]*)'|"([^"\\n]*)")`;

/**
 * The statement shapes EHRAgent writes on most lines, read by one sticky regular expression (native
 * code, far cheaper than scanning the line in JavaScript): `name = LoadDB|FilterDB|GetValue|Calendar(
 * [name,] 'text'[.format(name[, name])])`, `name = name`, `name = 'text'`, `name = 12` (or -1.5),
 * `name = len(name)` and `name = []`, each up to the end of its line (a comment may follow). Whatever
 * matches is evaluated by the same steps the statement reader takes for it; a line that does not match
 * goes to the statement reader.
 */
const LINE_TEMPLATE = new RegExp(
  `(${NAME_RE})${SPACES}=${SPACES}(?:` +
    // 1 target; 2 toolbox function; 3 its table argument; 4/5 the string argument; 6/7 format arguments
    `(LoadDB|FilterDB|GetValue|Calendar)${SPACES}\\(${SPACES}(?:(${NAME_RE})${SPACES},${SPACES})?${LITERAL}` +
    `(?:\\.format\\(${SPACES}(${NAME_RE})${SPACES}(?:,${SPACES}(${NAME_RE})${SPACES})?\\))?${SPACES}\\)` +
    // 8 a name
    `|(${NAME_RE})` +
    // 9/10 a string
    `|${LITERAL}` +
    // 11 a number (digits, optionally a fraction; no exponent, no "_")
    `|(-?[0-9]+(?:\\.[0-9]+)?)` +
    // 12 len(name)
    `|len${SPACES}\\(${SPACES}(${NAME_RE})${SPACES}\\)` +
    // 13 []
    `|(\\[${SPACES}\\])` +
    `)${SPACES}(?:#[^\\n]*)?(?=\\n|$)`,
  "y",
);

/** Known names by text, for the names a line template captures. */
const KNOWN_BY_NAME = new Map<string, number>(KNOWN_NAMES.map((name, index) => [name, index]));
/** First and last characters and length of a name: most names are told apart from the known ones by it. */
function nameShape(name: string): number {
  return (name.charCodeAt(0) << 16) | (name.charCodeAt(name.length - 1) << 8) | (name.length & 255);
}

/** The shape of every known name (only their lookup hashes the whole name). */
const KNOWN_SHAPES = new Set<number>(KNOWN_NAMES.map(nameShape));

/** KNOWN_BY_NAME.get(name), skipping the lookup for names no known name resembles. */
function knownByName(name: string): number | undefined {
  return KNOWN_SHAPES.has(nameShape(name)) ? KNOWN_BY_NAME.get(name) : undefined;
}

/** The largest code the fast path reads; larger code could near the interpreter's step budget. */
const MAX_CODE_LENGTH = 16_000;
/** Loops nested deeper than this multiply the interpreter's steps too much to be sure of its budget. */
const MAX_LOOP_DEPTH = 3;
/** Expression nesting (parentheses, calls) the fast path follows before giving up. */
const MAX_EXPRESSION_DEPTH = 40;

/** Thrown to give up; caught once, in fastEhrAgentAccess. */
const GIVE_UP = new Error("the fast path does not follow this code");

function giveUp(): never {
  throw GIVE_UP;
}

// ------------------------------------------------------------------------------------------ schema index

/** One table of the schema, indexed for the fast path. */
interface TableIndex {
  name: string;
  /** Its columns in schema order: what parseFilterConditions is given. */
  columns: readonly string[];
  /** Column -> its slot in the reads array. */
  slots: ReadonlyMap<string, number>;
  /** `slots` for the columns that are their own lower case (every column of a normalized schema). */
  lowerSlots: ReadonlyMap<string, number>;
  /** Position among the tables in sorted order. */
  rank: number;
}

/**
 * The schema laid out once per schema object (so per policy): each column of each table gets a slot,
 * numbered in the order the result lists them (tables sorted, then columns sorted), so building the
 * result needs no sorting. The scratch arrays are the reads of the check running now, cleared before
 * each (checks are synchronous, so one at a time uses them).
 */
interface SchemaIndex {
  tables: ReadonlyMap<string, TableIndex>;
  /** The tables whose names trim() and toLowerCase() leave as they are. */
  plainTables: ReadonlyMap<string, TableIndex>;
  /** Tables in sorted order, each with its sorted columns and their first slot. */
  order: readonly { name: string; columns: readonly string[]; first: number }[];
  reads: Uint8Array;
  whole: Uint8Array;
  /** By table rank: whether any column of the table was read (result() looks at those tables only). */
  touched: Uint8Array;
}

const schemaIndexes = new WeakMap<DatabaseSchema, SchemaIndex>();

function indexSchema(schema: DatabaseSchema): SchemaIndex {
  const cached = schemaIndexes.get(schema);
  if (cached) return cached;
  const tables = new Map<string, TableIndex>();
  const order: { name: string; columns: readonly string[]; first: number }[] = [];
  const slotNames: string[] = [];
  // Default sort, as extract.ts sorts its output.
  for (const [rank, name] of Object.keys(schema).sort().entries()) {
    const columns = schema[name]!;
    const sorted = [...new Set(columns)].sort();
    const slotOf = new Map<string, number>();
    const lowerSlots = new Map<string, number>();
    order.push({ name, columns: sorted, first: slotNames.length });
    for (const column of sorted) {
      const slot = slotNames.length;
      slotNames.push(column);
      slotOf.set(column, slot);
      if (column.toLowerCase() === column) lowerSlots.set(column, slot);
    }
    tables.set(name, { name, columns, slots: slotOf, lowerSlots, rank });
  }
  const plainTables = new Map<string, TableIndex>();
  for (const [name, table] of tables) if (name.trim().toLowerCase() === name) plainTables.set(name, table);
  const index: SchemaIndex = {
    tables,
    plainTables,
    order,
    reads: new Uint8Array(slotNames.length),
    whole: new Uint8Array(order.length),
    touched: new Uint8Array(order.length),
  };
  // Only a frozen (normalized) schema can be trusted not to change behind the cache.
  if (Object.isFrozen(schema)) schemaIndexes.set(schema, index);
  return index;
}

// ------------------------------------------------------------------------------------------ tokens

const T_END: number = 0; // end of the line: "\n", a comment or the end of the code
const T_NAME: number = 1;
const T_NUMBER: number = 2;
const T_STRING: number = 3; // a plain '...' or "..." literal
const T_FSTRING: number = 4; // f'...' or f"..."
const T_OP: number = 5;

// Operators the subset uses; any other character sequence gives up where it is met.
const OP_LPAREN: number = 1;
const OP_RPAREN: number = 2;
const OP_LBRACKET: number = 3;
const OP_RBRACKET: number = 4;
const OP_COMMA: number = 5;
const OP_DOT: number = 6;
const OP_COLON: number = 7;
const OP_ASSIGN: number = 8;
// Comparisons: OP_EQ..OP_GE.
const OP_EQ: number = 9;
const OP_NE: number = 10;
const OP_LT: number = 11;
const OP_GT: number = 12;
const OP_LE: number = 13;
const OP_GE: number = 14;
// Arithmetic: OP_PLUS, OP_MINUS (sums), OP_STAR..OP_PERCENT (products), OP_POWER.
const OP_PLUS: number = 15;
const OP_MINUS: number = 16;
const OP_STAR: number = 17;
const OP_SLASH: number = 18;
const OP_DSLASH: number = 19;
const OP_PERCENT: number = 20;
const OP_POWER: number = 21;
const OP_AMP: number = 26;
// Augmented assignments: OP_PLUS_ASSIGN..OP_SLASH_ASSIGN.
const OP_PLUS_ASSIGN: number = 22;
const OP_MINUS_ASSIGN: number = 23;
const OP_STAR_ASSIGN: number = 24;
const OP_SLASH_ASSIGN: number = 25;

/** The binary operator each arithmetic token stands for, as the interpreter names it. */
const BINARY_TEXT: string[] = [];
BINARY_TEXT[OP_PLUS] = "+";
BINARY_TEXT[OP_MINUS] = "-";
BINARY_TEXT[OP_STAR] = "*";
BINARY_TEXT[OP_SLASH] = "/";
BINARY_TEXT[OP_DSLASH] = "//";
BINARY_TEXT[OP_PERCENT] = "%";
BINARY_TEXT[OP_POWER] = "**";
BINARY_TEXT[OP_AMP] = "&";
BINARY_TEXT[OP_PLUS_ASSIGN] = "+";
BINARY_TEXT[OP_MINUS_ASSIGN] = "-";
BINARY_TEXT[OP_STAR_ASSIGN] = "*";
BINARY_TEXT[OP_SLASH_ASSIGN] = "/";

// Precedence levels of the infix operators, loosest first (py-parser.ts): or, and, (not), comparisons,
// & (| ^ << >> are not read), + -, * / // %.
const LEVEL_OR = 1;
const LEVEL_AND = 2;
const LEVEL_NOT = 3;
const LEVEL_COMPARE = 4;
const LEVEL_BITAND = 5;
const LEVEL_SUM = 6;
const LEVEL_PRODUCT = 7;

const C_TAB = 9;
const C_LF = 10;
const C_SPACE = 32;
const C_DQUOTE = 34;
const C_HASH = 35;
const C_SQUOTE = 39;
const C_RPAREN = 41;
const C_0 = 48;
const C_9 = 57;
const C_LBRACE = 123;
const C_RBRACE = 125;

/** An identifier where it starts (lastIndex): see identifierEnd. */
const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_]*/y;

/**
 * The end of the identifier starting at text[start], which is a name-start character: found by a
 * sticky expression (native code scans the characters faster than a loop of charCodeAt here).
 */
function identifierEnd(text: string, start: number): number {
  IDENTIFIER.lastIndex = start;
  IDENTIFIER.test(text);
  return IDENTIFIER.lastIndex;
}

/** ASCII letters and "_" may start a name; digits may continue one. */
function isNameStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
}

function isNameChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || (c >= C_0 && c <= C_9);
}

function isDigit(c: number): boolean {
  return c >= C_0 && c <= C_9;
}

// ------------------------------------------------------------------------------------------ the reader

/** Variables by id (see FastReader.variable); undefined while unbound. */
type Vars = (FastValue | undefined)[];

/**
 * Tables and columns read, through the fast path, or null when it gave up. `code` is the generated code
 * as extractEhrAgentAccess receives it, `schema` the schema it resolves names against.
 */
export function fastEhrAgentAccess(options: { code: string; schema: DatabaseSchema }): EhrAgentAccess | null {
  const { code, schema } = options;
  // A backslash (escapes, line continuations) and HOLE_CHAR are left to the general path.
  // Two indexOf calls (a native search for one character each) cost less than a regex for the pair.
  if (code.length > MAX_CODE_LENGTH || code.indexOf("\\") >= 0 || code.indexOf(HOLE_CHAR) >= 0) return null;
  // Line endings as the tokenizer normalizes them.
  const src = code.indexOf("\r") < 0 ? code : code.replace(/\r\n?/g, "\n");
  const index = indexSchema(schema);
  index.reads.fill(0);
  index.whole.fill(0);
  index.touched.fill(0);
  const reader = new FastReader(src, index);
  try {
    reader.run();
  } catch {
    // GIVE_UP, or a bug here: either way the general path decides.
    return null;
  }
  return reader.result();
}

class FastReader {
  private readonly length: number;
  private readonly reads: Uint8Array;
  private readonly whole: Uint8Array;
  private readonly touched: Uint8Array;

  // Position, the end of the current line, and the current token.
  private pos = 0;
  private lineEnd = 0;
  private tok = T_END;
  private tokStart = 0;
  private tokEnd = 0;
  private tokOp = 0;
  private tokNumber = 0;
  /** T_NAME: hashName of the name. */
  private tokHash = 0;

  /** The line waiting to be read: its indentation, or -1 when none has been measured. */
  private pendingIndent = -1;
  private loopDepth = 0;
  private exprDepth = 0;

  /** The program's variable names by id and their hashes (see variable). */
  private readonly varNames: string[] = [];
  private readonly varHashes: number[] = [];

  constructor(
    private readonly src: string,
    private readonly index: SchemaIndex,
  ) {
    this.length = src.length;
    this.reads = index.reads;
    this.whole = index.whole;
    this.touched = index.touched;
  }

  run(): void {
    const vars: Vars = [];
    // The module. block(..., 0) stops only at the end: no line is indented less than 0.
    const last = this.block(vars, 0);
    // What the interpreter does after the module: the value left in `answer` and a trailing bare
    // expression expose every column of a table they hold.
    const answerId = this.varNames.indexOf("answer");
    const answer = answerId < 0 ? undefined : vars[answerId];
    if (answer !== undefined) this.expose(answer);
    if (last !== null) this.expose(last);
  }

  result(): EhrAgentAccess {
    const tables: Record<string, string[]> = {};
    const wholeTables: string[] = [];
    const { order } = this.index;
    for (let t = 0; t < order.length; t++) {
      // Most tables are not read at all: their columns need not be looked at.
      if (this.touched[t] === 0) continue;
      const entry = order[t]!;
      let columns: string[] | null = null;
      for (let c = 0; c < entry.columns.length; c++) {
        if (this.reads[entry.first + c] === 0) continue;
        if (columns === null) columns = [];
        columns.push(entry.columns[c]!);
      }
      if (columns !== null) tables[entry.name] = columns;
      if (this.whole[t] === 1) wholeTables.push(entry.name);
    }
    return { tables, wholeTables, confidence: "high", unresolved: [], errors: [] };
  }

  // ---------------------------------------------------------------------------- recording reads

  /** interpreter.readIn for one table: a column the table lacks would be unresolved, so give up. */
  private readIn(table: TableIndex, column: string): void {
    const slot = table.slots.get(column);
    if (slot === undefined) giveUp();
    this.reads[slot] = 1;
    this.touched[table.rank] = 1;
  }

  private readAll(table: TableIndex): void {
    this.whole[table.rank] = 1;
    this.touched[table.rank] = 1;
    // A table's slots are consecutive, from its entry's first.
    const { first, columns } = this.index.order[table.rank]!;
    this.reads.fill(1, first, first + columns.length);
  }

  /** interpreter.exposeHandles for the kinds the fast path has: a table or a row shows every column. */
  private expose(v: FastValue): void {
    const kind = v.kind;
    if (kind === BAD || kind === PAIRS || kind === ROWS) giveUp();
    if (kind === TABLE || kind === ROW) this.readAll(v.table!);
  }

  // ---------------------------------------------------------------------------- names

  /** The known name (keyword, toolbox, builtin, constant) src[start, end) is, or -1. */
  private known(start: number, end: number, hash: number): number {
    const chain = KNOWN_BY_HASH.get(hash);
    if (chain === undefined) return -1;
    for (let i = 0; i < chain.length; i++) {
      const name = KNOWN_NAMES[chain[i]!]!;
      if (name.length === end - start && this.src.startsWith(name, start)) return chain[i]!;
    }
    return -1;
  }

  /** The id of the variable named src[start, end), made on first sight. */
  private variable(start: number, end: number, hash: number): number {
    const { varHashes, varNames } = this;
    // Names the templates added are hashed only when the statement reader first needs them.
    for (let i = varHashes.length; i < varNames.length; i++) varHashes.push(hashName(varNames[i]!));
    const length = end - start;
    for (let i = 0; i < varHashes.length; i++) {
      if (varHashes[i] !== hash) continue;
      const name = varNames[i]!;
      if (name.length === length && this.src.startsWith(name, start)) return i;
    }
    return this.addVariable(this.src.slice(start, end), hash);
  }

  /**
   * The id of the variable `name` (a template's capture), made on first sight. A scan, not a Map: a
   * program has a few dozen names at most, and a Map lookup would first hash the freshly captured text.
   */
  private variableNamed(name: string): number {
    const { varNames } = this;
    // Comparing lengths first skips a string comparison (a call) for most names.
    const length = name.length;
    for (let i = 0; i < varNames.length; i++) {
      const known = varNames[i]!;
      if (known.length === length && known === name) return i;
    }
    varNames.push(name);
    return varNames.length - 1;
  }

  private addVariable(name: string, hash: number): number {
    const id = this.varNames.length;
    this.varNames.push(name);
    this.varHashes.push(hash);
    return id;
  }

  // ---------------------------------------------------------------------------- lines and blocks

  /**
   * Moves to the next line that holds code (blank and comment-only lines do not count, as in the
   * tokenizer) and measures its indentation into `pendingIndent`, leaving `pos` at its first character
   * and `lineEnd` at its end. False at the end of the code. Does nothing while a measured line waits.
   */
  private nextLine(): boolean {
    if (this.pendingIndent >= 0) return true;
    const { src, length } = this;
    let p = this.pos;
    for (;;) {
      let width = 0;
      for (; p < length; p++) {
        const c = src.charCodeAt(p);
        if (c === C_SPACE) width++;
        else if (c === C_TAB) width = (Math.floor(width / 8) + 1) * 8;
        else break;
      }
      if (p >= length) {
        this.pos = p;
        return false;
      }
      const c = src.charCodeAt(p);
      if (c === C_LF) {
        p++;
        continue;
      }
      const end = src.indexOf("\n", p);
      if (c === C_HASH) {
        if (end < 0) {
          this.pos = length;
          return false;
        }
        p = end + 1;
        continue;
      }
      this.pos = p;
      this.lineEnd = end < 0 ? length : end;
      this.pendingIndent = width;
      return true;
    }
  }

  /**
   * Runs the statements of a block whose lines are indented by exactly `indent`, up to the first line
   * indented less (left waiting) or the end. Returns the value of the block's last statement when it
   * is a bare expression (what the module's last statement exposes), else null.
   */
  private block(vars: Vars, indent: number): FastValue | null {
    let last: FastValue | null = null;
    while (this.nextLine()) {
      if (this.pendingIndent < indent) break;
      if (this.pendingIndent > indent) giveUp();
      this.pendingIndent = -1;
      if (this.template(vars)) last = null;
      else last = this.statement(vars, indent);
    }
    return last;
  }

  /**
   * A line LINE_TEMPLATE matches, evaluated as the statement reader would evaluate it: the same
   * lookups, the same toolbox call. False (nothing consumed) when the line has another shape.
   */
  private template(vars: Vars): boolean {
    LINE_TEMPLATE.lastIndex = this.pos;
    const match = LINE_TEMPLATE.exec(this.src);
    if (match === null) return false;
    const target = match[1]!;
    const targetKnown = knownByName(target);
    // `if = ...`, `None = ...`: syntax the general path reports; a toolbox function's name assigned.
    if (targetKnown !== undefined && KNOWN_KINDS[targetKnown] !== BUILTIN) giveUp();
    let v: FastValue;
    const tool = match[2];
    if (tool !== undefined) {
      // LoadDB / FilterDB / GetValue: no variable ever has their names (see above).
      const db = match[3];
      const text = match[4] ?? match[5]!;
      const first = match[6];
      let argument: FastValue;
      if (first === undefined) argument = strValue(text, false);
      else {
        const second = match[7];
        const values = [this.named(first, vars)];
        if (second !== undefined) values.push(this.named(second, vars));
        argument = this.format(text, values);
      }
      // LoadDB takes one argument, FilterDB and GetValue two; Calendar's are not looked at.
      if (tool === "Calendar") {
        if (db !== undefined) this.named(db, vars);
        v = strValue(HOLE_CHAR, true);
      } else if (tool === "LoadDB") v = db === undefined ? this.loadDB(argument) : giveUp();
      else if (db === undefined) v = giveUp();
      else {
        const table = this.named(db, vars);
        v = tool === "FilterDB" ? this.filterDB(table, argument) : this.getValue(table, argument);
      }
    } else if (match[8] !== undefined) {
      v = this.named(match[8], vars);
    } else if (match[11] !== undefined) {
      // A literal, or "-" before one: the number (negated), as the reader's factor makes it.
      v = numberValue(Number(match[11]));
    } else if (match[12] !== undefined) {
      // A variable named len would be called instead of the builtin.
      const len = this.varNames.indexOf("len");
      if (len >= 0 && vars[len] !== undefined) giveUp();
      // len() of anything is a number (it runs no callback: the fast path has no functions).
      this.named(match[12], vars);
      v = numberValue(null);
    } else if (match[13] !== undefined) {
      v = emptyList();
    } else {
      v = strValue(match[9] ?? match[10]!, false);
    }
    vars[this.variableNamed(target)] = v;
    this.pos = this.lineEnd + 1;
    return true;
  }

  /** The value of a name a template captured, as an expression reads it (not called). */
  private named(name: string, vars: Vars): FastValue {
    const bound = vars[this.variableNamed(name)];
    if (bound !== undefined) return checked(bound);
    const known = knownByName(name);
    return known === undefined ? value(UNKNOWN) : unboundName(known, KNOWN_KINDS[known]!);
  }

  /** The body of a compound statement after its header line: a block indented deeper than `indent`. */
  private body(vars: Vars, indent: number): void {
    if (!this.nextLine() || this.pendingIndent <= indent) giveUp();
    this.block(vars, this.pendingIndent);
  }

  /** Whether the waiting line is at `indent` and starts with the keyword `word` (not consumed). */
  private lineStartsWith(indent: number, word: string): boolean {
    if (!this.nextLine() || this.pendingIndent !== indent) return false;
    return this.src.startsWith(word, this.pos) && !isNameChar(this.src.charCodeAt(this.pos + word.length));
  }

  /** One statement at `pos`; returns its value when it is a bare expression, else null. */
  private statement(vars: Vars, indent: number): FastValue | null {
    const start = this.pos;
    this.advance();
    if (this.tok === T_NAME) {
      const end = this.tokEnd;
      const hash = this.tokHash;
      const known = this.known(start, end, hash);
      const kind = known < 0 ? 0 : KNOWN_KINDS[known]!;
      if (kind === KEYWORD) {
        this.keywordStatement(KNOWN_NAMES[known]!, vars, indent);
        return null;
      }
      // `name = ...` and `name += ...`: look at the token after the name.
      this.advance();
      if (this.tok === T_OP) {
        const op = this.tokOp;
        if (op === OP_ASSIGN) {
          // Keywords, constants and toolbox functions are never variables here (a builtin name may be).
          if (kind !== 0 && kind !== BUILTIN) giveUp();
          this.advance();
          const v = this.test(vars);
          // `a = b = c`, `a = b, c`: not followed.
          this.endOfLine();
          vars[this.variable(start, end, hash)] = v;
          return null;
        }
        if (op >= OP_PLUS_ASSIGN && op <= OP_SLASH_ASSIGN) {
          if (kind !== 0 && kind !== BUILTIN) giveUp();
          const id = this.variable(start, end, hash);
          const bound = vars[id];
          const current = bound !== undefined ? checked(bound) : unboundName(known, kind);
          // `xs += ...` extends a list in place.
          if (current.kind === LIST) giveUp();
          this.advance();
          const right = this.test(vars);
          this.endOfLine();
          vars[id] = this.binary(BINARY_TEXT[op]!, current, right);
          return null;
        }
      }
      // A bare expression: read it again from the start of the line.
      this.pos = start;
      this.advance();
    }
    const v = this.test(vars);
    this.endOfLine();
    return v;
  }

  private keywordStatement(word: string, vars: Vars, indent: number): void {
    switch (word) {
      case "pass":
      case "break":
      case "continue":
        // The interpreter ignores them: every statement of a loop body runs on each pass.
        this.advance();
        this.endOfLine();
        return;
      case "import":
        this.importStatement();
        return;
      case "from":
        this.fromImportStatement();
        return;
      case "if":
        this.ifStatement(vars, indent);
        return;
      case "for":
        this.forStatement(vars, indent);
        return;
      case "try":
        this.tryStatement(vars, indent);
        return;
      default:
        giveUp();
    }
  }

  /** `import a.b [as c], d`: binds nothing in the interpreter. */
  private importStatement(): void {
    do {
      this.dottedName();
      if (this.atWord("as")) {
        this.advance();
        this.expectName();
      }
    } while (this.tok === T_OP && this.tokOp === OP_COMMA);
    this.endOfLine();
  }

  /** `from a.b import c [as d], e` or `import *` (no relative or parenthesised forms). */
  private fromImportStatement(): void {
    this.dottedName();
    if (!this.atWord("import")) giveUp();
    this.advance();
    if (this.tok === T_OP && this.tokOp === OP_STAR) {
      this.advance();
      this.endOfLine();
      return;
    }
    for (;;) {
      this.expectName();
      if (this.atWord("as")) {
        this.advance();
        this.expectName();
      }
      if (!(this.tok === T_OP && this.tokOp === OP_COMMA)) break;
      this.advance();
    }
    this.endOfLine();
  }

  /** A dotted module name after `import`/`from`; leaves the token after it. */
  private dottedName(): void {
    this.advance();
    this.expectName();
    while (this.tok === T_OP && this.tokOp === OP_DOT) {
      this.advance();
      this.expectName();
    }
  }

  /** The current token is a name that is not a keyword: step past it. */
  private expectName(): void {
    if (this.tok !== T_NAME) giveUp();
    const known = this.known(this.tokStart, this.tokEnd, this.tokHash);
    if (known >= 0 && KNOWN_KINDS[known] === KEYWORD) giveUp();
    this.advance();
  }

  private atWord(word: string): boolean {
    return (
      this.tok === T_NAME &&
      this.tokEnd - this.tokStart === word.length &&
      this.src.startsWith(word, this.tokStart)
    );
  }

  /** Whether src[start, end) is `word`. */
  private isWord(start: number, end: number, word: string): boolean {
    return end - start === word.length && this.src.startsWith(word, start);
  }

  /** `:` and the end of the line, closing a compound statement's header. */
  private endOfHeader(): void {
    if (!(this.tok === T_OP && this.tokOp === OP_COLON)) giveUp();
    this.advance();
    this.endOfLine();
  }

  /** The current token must end the line; moves past the newline. */
  private endOfLine(): void {
    if (this.tok !== T_END) giveUp();
    this.pos = this.lineEnd + 1;
  }

  /**
   * `if test:` (the current token is `if` or `elif`) with its block, then `elif`/`else` at the same
   * indentation. As the interpreter runs it: the test, each branch on its own copy of the variables (no
   * else: the state before), then the merge.
   */
  private ifStatement(vars: Vars, indent: number): void {
    this.advance();
    this.test(vars);
    this.endOfHeader();
    const body = vars.slice();
    this.body(body, indent);
    let orelse: Vars = vars;
    if (this.lineStartsWith(indent, "elif")) {
      // `elif` is an `if` inside the else branch, run on its own copy.
      this.pendingIndent = -1;
      this.advance();
      orelse = vars.slice();
      this.ifStatement(orelse, indent);
    } else if (this.lineStartsWith(indent, "else")) {
      this.pendingIndent = -1;
      this.advance();
      this.advance();
      this.endOfHeader();
      orelse = vars.slice();
      this.body(orelse, indent);
    }
    merge(vars, body, orelse);
  }

  /**
   * `for name in iterable:`. The interpreter binds the loop variable to one element value and runs the
   * body twice (the iterables the fast path allows are never short exact lists), then merges the state
   * before the loop with the state after; the body is read twice here too.
   */
  private forStatement(vars: Vars, indent: number): void {
    // Targets: `name` or `name, name, ...` (no parentheses, no starred target).
    const targets: number[] = [];
    do {
      this.advance();
      if (this.tok !== T_NAME) giveUp();
      const known = this.known(this.tokStart, this.tokEnd, this.tokHash);
      if (known >= 0 && KNOWN_KINDS[known] !== BUILTIN) giveUp();
      targets.push(this.variable(this.tokStart, this.tokEnd, this.tokHash));
      this.advance();
    } while (this.tok === T_OP && this.tokOp === OP_COMMA);
    if (!this.atWord("in")) giveUp();
    this.advance();
    const iterable = this.test(vars);
    // The interpreter runs the body once per element of an exact list: here, never.
    if (iterable.kind === LIST && iterable.exact) giveUp();
    // iterrows: each element is the exact list [index, row], which only two targets take apart.
    const pairs = iterable.kind === PAIRS;
    if (pairs && targets.length !== 2) giveUp();
    const element = pairs ? iterable : this.elementOf(iterable);
    const index = numberValue(null);
    this.endOfHeader();
    if (++this.loopDepth > MAX_LOOP_DEPTH) giveUp();
    const before = vars.slice();
    if (!this.nextLine() || this.pendingIndent <= indent) giveUp();
    const bodyStart = this.pos;
    const bodyIndent = this.pendingIndent;
    const bodyLineEnd = this.lineEnd;
    for (let pass = 0; pass < 2; pass++) {
      this.pos = bodyStart;
      this.lineEnd = bodyLineEnd;
      this.pendingIndent = bodyIndent;
      if (targets.length === 1) vars[targets[0]!] = element;
      else if (pairs) {
        vars[targets[0]!] = index;
        vars[targets[1]!] = element.item!;
      } else {
        // Not an exact list: each target takes an element of the element, a new value each time.
        for (const target of targets) vars[target] = this.elementOf(element);
      }
      this.block(vars, bodyIndent);
    }
    this.loopDepth--;
    merge(vars, before, vars);
    if (this.lineStartsWith(indent, "else")) giveUp();
  }

  /**
   * `try:` with one `except [type [as name]]:` clause (no else, no finally). As the interpreter runs
   * it: the body on the variables; the handler on the merge of the state before the body and after it,
   * with the exception type evaluated and the name bound to an unknown; then the state after the body
   * merged with the handler's.
   */
  private tryStatement(vars: Vars, indent: number): void {
    this.advance();
    this.endOfHeader();
    const before = vars.slice();
    this.body(vars, indent);
    const afterBody = vars.slice();
    if (!this.lineStartsWith(indent, "except")) giveUp();
    this.pendingIndent = -1;
    this.advance();
    this.advance();
    const handler: Vars = [];
    merge(handler, before, afterBody);
    if (!(this.tok === T_OP && this.tokOp === OP_COLON)) {
      this.test(handler);
      if (this.atWord("as")) {
        this.advance();
        if (this.tok !== T_NAME || this.known(this.tokStart, this.tokEnd, this.tokHash) >= 0) giveUp();
        handler[this.variable(this.tokStart, this.tokEnd, this.tokHash)] = value(UNKNOWN);
        this.advance();
      }
    }
    this.endOfHeader();
    this.body(handler, indent);
    if (
      this.lineStartsWith(indent, "except") ||
      this.lineStartsWith(indent, "else") ||
      this.lineStartsWith(indent, "finally")
    ) {
      giveUp();
    }
    merge(vars, vars, handler);
  }

  // ---------------------------------------------------------------------------- tokens

  /** Reads the next token at `pos` into the tok* fields; `pos` moves past it. Gives up on anything odd. */
  private advance(): void {
    const { src, lineEnd } = this;
    let p = this.pos;
    let c = src.charCodeAt(p);
    while (p < lineEnd && (c === C_SPACE || c === C_TAB)) c = src.charCodeAt(++p);
    this.tokStart = p;
    if (p >= lineEnd) {
      this.tok = T_END;
      this.pos = p;
      return;
    }
    if (isNameStart(c)) {
      let end = p + 1;
      let hash = c;
      let next = src.charCodeAt(end);
      while (end < lineEnd && isNameChar(next)) {
        hash = (Math.imul(hash, 31) + next) | 0;
        next = src.charCodeAt(++end);
      }
      if (next === C_SQUOTE || next === C_DQUOTE) {
        // A string prefix: only f (one letter) is followed; `u'...'`, `rb"..."` and a name written
        // against a string are left to the general path.
        if (end - p === 1 && (c === 102 || c === 70)) {
          this.readString(end, T_FSTRING);
          return;
        }
        giveUp();
      }
      if (next > 127) giveUp();
      this.tok = T_NAME;
      this.tokHash = hash;
      this.tokEnd = end;
      this.pos = end;
      return;
    }
    if (c === C_SQUOTE || c === C_DQUOTE) {
      this.readString(p, T_STRING);
      return;
    }
    if (c === C_HASH) {
      // A comment ends the line.
      this.tok = T_END;
      this.pos = p;
      return;
    }
    if (isDigit(c)) {
      // Digits, optionally "." and digits; anything else a number may hold gives up.
      let end = p + 1;
      while (end < lineEnd && isDigit(src.charCodeAt(end))) end++;
      if (src.charCodeAt(end) === 46) {
        end++;
        const digits = end;
        while (end < lineEnd && isDigit(src.charCodeAt(end))) end++;
        if (end === digits) giveUp();
      }
      const after = src.charCodeAt(end);
      if (after === 46 || isNameChar(after) || after > 127) giveUp();
      this.tok = T_NUMBER;
      this.tokNumber = Number(src.slice(p, end));
      this.tokEnd = end;
      this.pos = end;
      return;
    }
    this.operator(p, c);
  }

  private operator(p: number, c: number): void {
    const c1 = this.src.charCodeAt(p + 1);
    let op = 0;
    let size = 1;
    switch (c) {
      case 40:
        op = OP_LPAREN;
        break;
      case 41:
        op = OP_RPAREN;
        break;
      case 91:
        op = OP_LBRACKET;
        break;
      case 93:
        op = OP_RBRACKET;
        break;
      case 44:
        op = OP_COMMA;
        break;
      case 46:
        // "..." and ".5" are not followed.
        if (c1 === 46 || isDigit(c1)) giveUp();
        op = OP_DOT;
        break;
      case 58:
        if (c1 === 61) giveUp(); // :=
        op = OP_COLON;
        break;
      case 61:
        if (c1 === 61) {
          op = OP_EQ;
          size = 2;
        } else op = OP_ASSIGN;
        break;
      case 33:
        if (c1 !== 61) giveUp();
        op = OP_NE;
        size = 2;
        break;
      case 60:
        if (c1 === 60 || c1 === 62) giveUp(); // << <>
        if (c1 === 61) {
          op = OP_LE;
          size = 2;
        } else op = OP_LT;
        break;
      case 62:
        if (c1 === 62) giveUp(); // >>
        if (c1 === 61) {
          op = OP_GE;
          size = 2;
        } else op = OP_GT;
        break;
      case 43:
        if (c1 === 61) {
          op = OP_PLUS_ASSIGN;
          size = 2;
        } else op = OP_PLUS;
        break;
      case 45:
        if (c1 === 62) giveUp(); // ->
        if (c1 === 61) {
          op = OP_MINUS_ASSIGN;
          size = 2;
        } else op = OP_MINUS;
        break;
      case 42:
        if (c1 === 42) {
          if (this.src.charCodeAt(p + 2) === 61) giveUp(); // **=
          op = OP_POWER;
          size = 2;
        } else if (c1 === 61) {
          op = OP_STAR_ASSIGN;
          size = 2;
        } else op = OP_STAR;
        break;
      case 47:
        if (c1 === 47) {
          if (this.src.charCodeAt(p + 2) === 61) giveUp(); // //=
          op = OP_DSLASH;
          size = 2;
        } else if (c1 === 61) {
          op = OP_SLASH_ASSIGN;
          size = 2;
        } else op = OP_SLASH;
        break;
      case 37:
        if (c1 === 61) giveUp(); // %=
        op = OP_PERCENT;
        break;
      case 38:
        if (c1 === 61) giveUp(); // &=
        op = OP_AMP;
        break;
      default:
        // { } ; @ | ^ ~ and every other character.
        giveUp();
    }
    this.tok = T_OP;
    this.tokOp = op;
    this.tokEnd = p + size;
    this.pos = p + size;
  }

  /**
   * A one-line string literal whose opening quote is at `quoteAt` (the code holds no backslash), its
   * body left in tokStart..tokEnd. Triple quotes and a string written against another (implicit
   * concatenation) are left to the general path.
   */
  private readString(quoteAt: number, kind: number): void {
    const { src, lineEnd } = this;
    const quote = src.charCodeAt(quoteAt);
    if (src.charCodeAt(quoteAt + 1) === quote && src.charCodeAt(quoteAt + 2) === quote) giveUp();
    const close = src.indexOf(quote === C_SQUOTE ? "'" : '"', quoteAt + 1);
    if (close < 0 || close >= lineEnd) giveUp();
    this.tok = kind;
    this.tokStart = quoteAt + 1;
    this.tokEnd = close;
    this.pos = close + 1;
    // Implicit concatenation: another literal, prefixed or not, right after.
    let q = this.pos;
    while (q < lineEnd && (src.charCodeAt(q) === C_SPACE || src.charCodeAt(q) === C_TAB)) q++;
    const next = src.charCodeAt(q);
    if (next === C_SQUOTE || next === C_DQUOTE) giveUp();
    if (isNameStart(next)) {
      let end = q + 1;
      while (end < lineEnd && isNameChar(src.charCodeAt(end))) end++;
      const after = src.charCodeAt(end);
      if (after === C_SQUOTE || after === C_DQUOTE) giveUp();
    }
  }

  // ---------------------------------------------------------------------------- expressions

  /** test: an expression with no `x if c else y` and no lambda. The current token is its first. */
  private test(vars: Vars): FastValue {
    if (++this.exprDepth > MAX_EXPRESSION_DEPTH) giveUp();
    const v = this.expression(vars, LEVEL_OR);
    if (this.tok === T_NAME && this.atWord("if")) giveUp();
    this.exprDepth--;
    return v;
  }

  /**
   * The operators from `or` down to `* / // %` by precedence climbing: the operand, then every infix
   * operator of level `min` or tighter. The tree is the parser's (same precedence, left-associative),
   * evaluated as it is built.
   */
  private expression(vars: Vars, min: number): FastValue {
    let left: FastValue;
    if (this.tok === T_NAME && this.atWord("not")) {
      if (min > LEVEL_NOT) giveUp();
      this.advance();
      this.expression(vars, LEVEL_NOT);
      left = value(BOOL);
    } else {
      left = this.factor(vars);
    }
    for (;;) {
      const level = this.infixLevel();
      if (level < min) return left;
      if (level === LEVEL_BITAND || level === LEVEL_SUM || level === LEVEL_PRODUCT) {
        const op = BINARY_TEXT[this.tokOp]!;
        this.advance();
        left = this.binary(op, left, this.expression(vars, level + 1));
      } else if (level === LEVEL_COMPARE) {
        // `a < b < c` chains: every operand is evaluated and the result is a bool.
        if (this.tok === T_OP) this.advance();
        else if (this.atWord("not")) {
          this.advance();
          if (!this.atWord("in")) giveUp();
          this.advance();
        } else if (this.atWord("is")) {
          this.advance();
          if (this.atWord("not")) this.advance();
        } else this.advance(); // in
        this.expression(vars, LEVEL_BITAND);
        left = value(BOOL);
      } else {
        // or / and: the operands' values flow together.
        this.advance();
        left = joinInExpression(left, this.expression(vars, level + 1));
      }
    }
  }

  /** The level of the current token as an infix operator; 0 when it is none. */
  private infixLevel(): number {
    if (this.tok === T_OP) {
      const op = this.tokOp;
      if (op >= OP_EQ && op <= OP_GE) return LEVEL_COMPARE;
      if (op === OP_PLUS || op === OP_MINUS) return LEVEL_SUM;
      if (op === OP_AMP) return LEVEL_BITAND;
      if (op >= OP_STAR && op <= OP_PERCENT) return LEVEL_PRODUCT;
      return 0;
    }
    if (this.tok !== T_NAME) return 0;
    const length = this.tokEnd - this.tokStart;
    if (length === 2) {
      if (this.atWord("or")) return LEVEL_OR;
      if (this.atWord("in") || this.atWord("is")) return LEVEL_COMPARE;
    } else if (length === 3) {
      if (this.atWord("and")) return LEVEL_AND;
      if (this.atWord("not")) return LEVEL_COMPARE;
    }
    return 0;
  }

  /** A factor: unary `-`/`+`, or an atom with its trailers and an optional `** factor`. */
  private factor(vars: Vars): FastValue {
    if (this.tok === T_OP && (this.tokOp === OP_MINUS || this.tokOp === OP_PLUS)) {
      const negate = this.tokOp === OP_MINUS;
      this.advance();
      const operand = this.factor(vars);
      // interpreter: a known number keeps its value (negated for "-"); anything else is a number.
      if (operand.kind === NUM && operand.num !== null)
        return numberValue(negate ? -operand.num : operand.num);
      return numberValue(null);
    }
    const base = this.atomWithTrailers(vars);
    if (this.tok === T_OP && this.tokOp === OP_POWER) {
      this.advance();
      return this.binary("**", base, this.factor(vars));
    }
    return base;
  }

  private atomWithTrailers(vars: Vars): FastValue {
    let v: FastValue;
    if (this.tok === T_NAME) {
      const start = this.tokStart;
      const end = this.tokEnd;
      const hash = this.tokHash;
      this.advance();
      const bound = vars[this.variable(start, end, hash)];
      if (bound !== undefined) v = checked(bound);
      else {
        const known = this.known(start, end, hash);
        const kind = known < 0 ? 0 : KNOWN_KINDS[known]!;
        if (this.tok === T_OP && this.tokOp === OP_LPAREN) v = this.callName(known, kind, vars);
        else v = unboundName(known, kind);
      }
    } else {
      v = this.atom(vars);
    }
    for (;;) {
      if (this.tok !== T_OP) return v;
      const op = this.tokOp;
      if (op === OP_DOT) {
        this.advance();
        if (this.tok !== T_NAME) giveUp();
        const attrStart = this.tokStart;
        const attrEnd = this.tokEnd;
        const attrHash = this.tokHash;
        this.advance();
        if (this.tok === T_OP && this.tokOp === OP_LPAREN) {
          if (
            v.kind === STR &&
            !v.holes &&
            attrEnd - attrStart === 6 &&
            this.src.startsWith("format", attrStart)
          ) {
            v = this.format(v.text, this.arguments(vars));
          } else if (
            v.kind === LIST &&
            attrEnd - attrStart === 6 &&
            this.src.startsWith("append", attrStart)
          ) {
            v = this.append(v, this.arguments(vars));
          } else if (v.kind === TABLE && this.isWord(attrStart, attrEnd, "iterrows")) {
            this.arguments(vars);
            v = rowsValue(PAIRS, v.table!);
          } else if (v.kind === TABLE && this.isWord(attrStart, attrEnd, "itertuples")) {
            this.arguments(vars);
            v = rowsValue(ROWS, v.table!);
          } else if (v.kind === COLUMN) {
            v = this.columnMethod(v, this.src.slice(attrStart, attrEnd), this.arguments(vars));
          } else {
            // Anything but an unknown or a scalar: table and string methods are the general path's.
            const callee = this.attribute(v, attrStart, attrEnd, attrHash);
            v = this.callUnknown(callee, this.arguments(vars));
          }
        } else v = this.attribute(v, attrStart, attrEnd, attrHash);
      } else if (op === OP_LBRACKET) {
        this.advance();
        const index = this.test(vars);
        if (!(this.tok === T_OP && this.tokOp === OP_RBRACKET)) giveUp();
        this.advance();
        v = this.subscript(v, index);
      } else if (op === OP_LPAREN) {
        // Calling what a call or subscript returned: an unknown function's result.
        v = this.callUnknown(v, this.arguments(vars));
      } else {
        return v;
      }
    }
  }

  private atom(vars: Vars): FastValue {
    switch (this.tok) {
      case T_NUMBER: {
        const v = numberValue(this.tokNumber);
        this.advance();
        return v;
      }
      case T_STRING: {
        const v = strValue(this.src.slice(this.tokStart, this.tokEnd), false);
        this.advance();
        return v;
      }
      case T_FSTRING:
        return this.fString(vars);
      case T_OP:
        if (this.tokOp === OP_LBRACKET) {
          // `[]` only: displays with elements and comprehensions are the general path's.
          this.advance();
          if (!(this.tok === T_OP && this.tokOp === OP_RBRACKET)) giveUp();
          this.advance();
          return emptyList();
        }
        if (this.tokOp === OP_LPAREN) {
          // A parenthesised expression (no tuple, no generator).
          this.advance();
          const v = this.test(vars);
          if (!(this.tok === T_OP && this.tokOp === OP_RPAREN)) giveUp();
          this.advance();
          return v;
        }
        return giveUp();
      default:
        return giveUp();
    }
  }

  /**
   * `(arg, ...)` after a callee: positional arguments only. The current token is "(". `builtinNames`:
   * an argument that is just a toolbox or builtin name (no variable's) is taken, as a placeholder.
   */
  private arguments(vars: Vars, builtinNames = false): FastValue[] {
    this.advance();
    const args: FastValue[] = [];
    if (this.tok === T_OP && this.tokOp === OP_RPAREN) {
      this.advance();
      return args;
    }
    for (;;) {
      if (builtinNames && this.tok === T_NAME && this.builtinNameArgument(vars)) args.push(value(UNKNOWN));
      else args.push(this.test(vars));
      if (this.tok !== T_OP) giveUp();
      if (this.tokOp === OP_RPAREN) break;
      if (this.tokOp !== OP_COMMA) giveUp();
      this.advance();
    }
    this.advance();
    return args;
  }

  /**
   * Whether the current token is a toolbox or builtin name, no variable's, that is a whole argument
   * (followed by "," or ")"); if so it is consumed.
   */
  private builtinNameArgument(vars: Vars): boolean {
    const start = this.tokStart;
    const end = this.tokEnd;
    const hash = this.tokHash;
    const known = this.known(start, end, hash);
    if (known < 0 || (KNOWN_KINDS[known] !== BUILTIN && KNOWN_KINDS[known] !== TOOLBOX)) return false;
    if (vars[this.variable(start, end, hash)] !== undefined) return false;
    this.advance();
    if (this.tok === T_OP && (this.tokOp === OP_COMMA || this.tokOp === OP_RPAREN)) return true;
    // Something follows the name (a call, an attribute): read the argument from its start.
    this.pos = start;
    this.advance();
    return false;
  }

  /** An f-string of text and `{name}` fields. The current token is the f-string. */
  private fString(vars: Vars): FastValue {
    const { src } = this;
    const start = this.tokStart;
    const end = this.tokEnd;
    this.advance();
    let text = "";
    let holes = false;
    let i = start;
    while (i < end) {
      const c = src.charCodeAt(i);
      if (c === C_LBRACE || c === C_RBRACE) {
        if (i + 1 < end && src.charCodeAt(i + 1) === c) {
          text += c === C_LBRACE ? "{" : "}";
          i += 2;
          continue;
        }
        if (c === C_RBRACE) giveUp();
        let close = i + 1;
        let hash = src.charCodeAt(close);
        if (!isNameStart(hash)) giveUp();
        close++;
        while (close < end && isNameChar(src.charCodeAt(close))) {
          hash = (Math.imul(hash, 31) + src.charCodeAt(close)) | 0;
          close++;
        }
        if (close >= end || src.charCodeAt(close) !== C_RBRACE) giveUp();
        const bound = vars[this.variable(i + 1, close, hash)];
        let field: FastValue;
        if (bound !== undefined) field = checked(bound);
        else {
          const known = this.known(i + 1, close, hash);
          // A constant in a field (a bool prints as a hole, None as "None"): the general path.
          if (known >= 0 && KNOWN_KINDS[known] === CONSTANT) giveUp();
          field = unboundName(known, known < 0 ? 0 : KNOWN_KINDS[known]!);
        }
        const piece = this.textOf(field);
        if (piece !== "") {
          text += piece;
          holes ||= hasHole(field);
        }
        i = close + 1;
        continue;
      }
      let next = i + 1;
      while (next < end && src.charCodeAt(next) !== C_LBRACE && src.charCodeAt(next) !== C_RBRACE) next++;
      text += src.slice(i, next);
      i = next;
    }
    return strValue(text, holes);
  }

  // ---------------------------------------------------------------------------- interpreter semantics

  /**
   * interpreter.textOf, as flat text (HOLE_CHAR for a hole): the text str() would give; printing a
   * table reads all of it.
   */
  private textOf(v: FastValue): string {
    switch (v.kind) {
      case STR:
        return v.text;
      case NUM:
        return v.num === null ? HOLE_CHAR : String(v.num);
      case NONE:
        return "None";
      case TABLE:
      case ROW:
        // Printing a table or a row shows every column.
        this.readAll(v.table!);
        return HOLE_CHAR;
      case BOOL:
      case UNKNOWN:
      case MULTI:
      case COLUMN:
        return HOLE_CHAR;
      case LIST:
        // An exact list prints its (no) elements; any other list is a hole.
        return v.exact ? "[]" : HOLE_CHAR;
      default:
        // OPAQUE: its text depends on what it is.
        return giveUp();
    }
  }

  /** list.append(x): the list becomes inexact, in place (appendToList). */
  private append(list: FastValue, args: FastValue[]): FastValue {
    // An element with a handle would have to be followed into the list.
    if (args.length !== 1 || hasHandle(args[0]!.kind)) giveUp();
    list.exact = false;
    return value(NONE);
  }

  /** interpreter.getAttr for the attribute src[start, end). */
  private attribute(v: FastValue, start: number, end: number, hash: number): FastValue {
    switch (v.kind) {
      case TABLE: {
        const attr = this.src.slice(start, end);
        // A column name reads that column: its series.
        const column = attr.toLowerCase();
        if (v.table!.slots.has(column)) {
          this.readIn(v.table!, column);
          return handleValue(COLUMN, v.table!, column);
        }
        if (attr === "iloc" || attr === "loc" || attr === "at" || attr === "iat") giveUp();
        if (TABLE_METADATA.has(attr)) return value(UNKNOWN);
        // values / T and methods as values.
        return giveUp();
      }
      case ROW: {
        const attr = this.src.slice(start, end);
        const column = attr.toLowerCase();
        if (v.table!.slots.has(column)) {
          this.readIn(v.table!, column);
          return value(UNKNOWN);
        }
        if (attr === "name" || attr === "index" || attr === "empty" || attr === "size" || attr === "shape") {
          return value(UNKNOWN);
        }
        // Indexers, values, methods as values.
        return giveUp();
      }
      case COLUMN: {
        const attr = this.src.slice(start, end);
        // The series itself.
        if (attr === "values" || attr === "str" || attr === "dt" || attr === "array") return v;
        if (TABLE_METADATA.has(attr)) return value(UNKNOWN);
        // Indexers, methods as values.
        return giveUp();
      }
      case UNKNOWN:
      case MULTI: {
        // `tools.FilterDB`: a toolbox function reached through a module.
        const known = this.known(start, end, hash);
        if (known >= 0 && KNOWN_KINDS[known] === TOOLBOX) giveUp();
        return value(v.kind);
      }
      case NUM:
      case BOOL:
      case NONE:
        return value(UNKNOWN);
      default:
        // A string's method.
        return giveUp();
    }
  }

  /** A column series method (interpreter callMethod for a column); its arguments run no callback. */
  private columnMethod(column: FastValue, name: string, args: FastValue[]): FastValue {
    // Called through getAttr's other answers (values, str, ..., metadata), the interpreter reads
    // columns named beside a handle among the arguments.
    for (let i = 0; i < args.length; i++) if (hasHandle(args[i]!.kind)) giveUp();
    if (MASK_METHODS.has(name)) return value(BOOL);
    if (name === "tolist" || name === "to_list" || name === "unique") {
      // inexactList([unknown]): a list with no handle in it.
      const list = emptyList();
      list.exact = false;
      return list;
    }
    if (
      name === "astype" ||
      name === "sort_values" ||
      name === "head" ||
      name === "tail" ||
      name === "dropna"
    ) {
      return column;
    }
    if (name === "iloc" || name === "loc" || name === "at" || name === "iat") giveUp();
    return value(UNKNOWN);
  }

  /** Calling a value the interpreter sees as unknown (or a scalar): nothing is read but what the arguments hold. */
  private callUnknown(callee: FastValue, args: FastValue[]): FastValue {
    const kind = callee.kind;
    if (kind !== UNKNOWN && kind !== MULTI && kind !== NUM && kind !== BOOL) giveUp();
    // A table among the arguments may have its columns named by the others (pd.merge(a, b, on='c')).
    for (let i = 0; i < args.length; i++) if (hasHandle(args[i]!.kind)) giveUp();
    return value(kind === MULTI ? MULTI : UNKNOWN);
  }

  /** interpreter.subscript for the container kinds the fast path has (the index was evaluated). */
  private subscript(container: FastValue, index: FastValue): FastValue {
    switch (container.kind) {
      case TABLE:
        // db['col']: the column's series; db[mask]: the table; anything else is the general path's.
        if (index.kind === STR && !index.holes) {
          const column = index.text.toLowerCase();
          this.readIn(container.table!, column);
          return handleValue(COLUMN, container.table!, column);
        }
        if (index.kind === BOOL) return tableValue(container.table!);
        return giveUp();
      case ROW:
        // row['col'] reads the column; a position or an unknown name reads nothing.
        if (index.kind === STR) {
          if (index.holes) giveUp();
          this.readIn(container.table!, index.text.toLowerCase());
          return value(UNKNOWN);
        }
        if (index.kind === OPAQUE || hasHandle(index.kind) || index.kind === BAD) giveUp();
        return value(UNKNOWN);
      case COLUMN:
        // A mask keeps the series; anything else (that cannot be a bool) is one of its values.
        if (index.kind === BOOL) return container;
        if (index.kind === MULTI || index.kind === OPAQUE || hasHandle(index.kind)) giveUp();
        return value(UNKNOWN);
      case UNKNOWN:
      case NUM:
      case BOOL:
      case NONE:
        return value(UNKNOWN);
      case MULTI:
        return value(MULTI);
      case STR:
        return strValue(HOLE_CHAR, true);
      default:
        // Table subscripts read columns: the general path.
        return giveUp();
    }
  }

  /** interpreter.elementOf: what iterating over the value yields. */
  private elementOf(v: FastValue): FastValue {
    switch (v.kind) {
      case STR:
        return strValue(HOLE_CHAR, true);
      case NUM:
      case BOOL:
      case NONE:
      case UNKNOWN:
      case MULTI:
        return value(UNKNOWN);
      case LIST:
        // The join of the appended elements, none with a handle.
        return v.exact ? value(UNKNOWN) : value(OPAQUE);
      case TABLE:
        return handleValue(ROW, v.table!);
      case ROW:
      case COLUMN:
        return value(UNKNOWN);
      case ROWS:
        return v.item!;
      default:
        // An opaque value's elements, iterrows' pairs outside a `for a, b in`: the general path.
        return giveUp();
    }
  }

  /** interpreter.binary / binaryOne for the kinds the fast path has. */
  private binary(op: string, left: FastValue, right: FastValue): FastValue {
    const lk = left.kind;
    const rk = right.kind;
    if (lk === OPAQUE || lk === LIST || rk === OPAQUE || rk === LIST) {
      // Whatever each is, the result holds no handle; beside a handle, `%` would print the table.
      if (hasHandle(lk) || hasHandle(rk)) giveUp();
      return value(OPAQUE);
    }
    if (lk === MULTI || rk === MULTI) {
      // Each alternative on its own: with a string beside it, some give a string and some not.
      if (lk === STR || rk === STR) giveUp();
      return value(MULTI);
    }
    if (op === "&") {
      // A list beside it makes a list of both sides' elements (rows, for iterrows' pairs): else a bool.
      if (lk === PAIRS || lk === ROWS || rk === PAIRS || rk === ROWS) giveUp();
      return value(BOOL);
    }
    if (op === "+") {
      if (lk === STR && rk === STR) return strValue(left.text + right.text, left.holes || right.holes);
      if (lk === STR && (rk === UNKNOWN || rk === COLUMN)) return strValue(left.text + HOLE_CHAR, true);
      if (rk === STR && (lk === UNKNOWN || lk === COLUMN)) return strValue(HOLE_CHAR + right.text, true);
      if (lk === NUM && rk === NUM) {
        return left.num !== null && right.num !== null
          ? numberValue(left.num + right.num)
          : numberValue(null);
      }
    }
    if (op === "%" && lk === STR) giveUp(); // printf-style formatting
    if (op === "*" && (lk === STR || rk === STR)) return strValue(HOLE_CHAR, true);
    if (lk === NUM && rk === NUM) return numberValue(null);
    // PAIRS and ROWS are lists: `+` and `*` on them make other lists.
    if (lk === PAIRS || lk === ROWS || rk === PAIRS || rk === ROWS) giveUp();
    return value(UNKNOWN);
  }

  /** str.format on a known template: `{}` and `{0}` fields, `{{`/`}}` literal braces. */
  private format(template: string, args: FastValue[]): FastValue {
    for (let a = 0; a < args.length; a++) {
      // One format per alternative of a merged value.
      if (args[a]!.kind === MULTI || args[a]!.kind === OPAQUE) giveUp();
    }
    let out = "";
    let holes = false;
    let auto = 0;
    let i = 0;
    const length = template.length;
    // The next "{" and "}" at or after i (or -1), found by indexOf rather than a loop over characters.
    let open = template.indexOf("{");
    let close = template.indexOf("}");
    while (i < length) {
      if (open >= 0 && open < i) open = template.indexOf("{", i);
      if (close >= 0 && close < i) close = template.indexOf("}", i);
      const brace = open < 0 ? close : close < 0 ? open : Math.min(open, close);
      if (brace < 0) {
        out += template.slice(i);
        break;
      }
      if (brace > i) out += template.slice(i, brace);
      i = brace;
      const ch = template.charCodeAt(i);
      if (template.charCodeAt(i + 1) === ch) {
        out += ch === C_LBRACE ? "{" : "}";
        i += 2;
        continue;
      }
      if (ch !== C_LBRACE) {
        out += "}";
        i++;
        continue;
      }
      if (close < 0) {
        out += template.slice(i);
        break;
      }
      let field: FastValue | undefined;
      if (close === i + 1) field = args[auto++];
      else {
        for (let d = i + 1; d < close; d++) {
          if (!isDigit(template.charCodeAt(d))) giveUp(); // named fields, conversions, specs
        }
        field = args[Number(template.slice(i + 1, close))];
      }
      if (field === undefined) {
        out += HOLE_CHAR;
        holes = true;
      } else {
        out += this.textOf(field);
        holes ||= hasHole(field);
      }
      i = close + 1;
    }
    return strValue(out, holes);
  }

  /** A call of a name no variable holds: the toolbox, a builtin, or an unknown function. */
  private callName(known: number, kind: number, vars: Vars): FastValue {
    // isinstance(x, str) and its kind answer a bool without looking at their arguments, which may
    // then name builtins (values the fast path has no kind for).
    const args =
      kind === BUILTIN && BOOLEAN_BUILTINS.has(KNOWN_NAMES[known]!)
        ? this.arguments(vars, true)
        : this.arguments(vars);
    if (kind === TOOLBOX) return this.callToolbox(KNOWN_NAMES[known]!, args);
    if (kind === BUILTIN) return this.callBuiltin(KNOWN_NAMES[known]!, args);
    // Keywords and constants called: the general path.
    if (kind !== 0) giveUp();
    return this.callUnknown(value(UNKNOWN), args);
  }

  private callToolbox(name: string, args: FastValue[]): FastValue {
    switch (name) {
      case "LoadDB":
        if (args.length !== 1) giveUp();
        return this.loadDB(args[0]!);
      case "FilterDB":
        if (args.length !== 2) giveUp();
        return this.filterDB(args[0]!, args[1]!);
      case "GetValue":
        if (args.length !== 2) giveUp();
        return this.getValue(args[0]!, args[1]!);
      case "Calendar":
        return strValue(HOLE_CHAR, true);
      case "Calculate":
        return value(UNKNOWN);
      default:
        // SQLInterpreter: the general path parses the SQL.
        return giveUp();
    }
  }

  /** LoadDB(name): a known table name gives its handle. */
  private loadDB(arg: FastValue): FastValue {
    if (arg.kind !== STR || arg.holes) giveUp();
    // A table name as written (the usual case) needs no trimming or lower-casing.
    const table =
      this.index.plainTables.get(arg.text) ?? this.index.tables.get(arg.text.trim().toLowerCase());
    if (table === undefined) giveUp();
    return tableValue(table);
  }

  /** FilterDB(db, conditions): reads the conditions' columns; the same table's handle. */
  private filterDB(db: FastValue, condition: FastValue): FastValue {
    if (db.kind !== TABLE || condition.kind !== STR) giveUp();
    this.readConditions(db.table!, condition);
    return tableValue(db.table!);
  }

  /** GetValue(db, argument): reads the argument's column; an unknown value. */
  private getValue(db: FastValue, argument: FastValue): FastValue {
    if (db.kind !== TABLE || argument.kind !== STR) giveUp();
    this.readGetValueArgument(db.table!, argument);
    return value(UNKNOWN);
  }

  /**
   * The columns of a FilterDB condition, as parseFilterConditions reads them. Each `||` part in its two
   * commonest forms — `column<op>...` and `max(column)` / `min(column)` — is read in place; a condition
   * with any other part goes to parseFilterConditions itself.
   */
  private readConditions(table: TableIndex, condition: FastValue): void {
    // Parts as parseFilterConditions splits them: on "||", trimmed, empty ones skipped. Reading a
    // column twice is harmless, so a part read here before another sends the condition to
    // parseFilterConditions changes nothing.
    const text = condition.text;
    for (let from = 0; ; ) {
      const at = text.indexOf("||", from);
      let start = from;
      let end = at < 0 ? text.length : at;
      from = at + 2;
      while (start < end && isRegexSpace(text.charCodeAt(start))) start++;
      while (end > start && isRegexSpace(text.charCodeAt(end - 1))) end--;
      if (start < end) {
        let hole = condition.holes ? text.indexOf(HOLE_CHAR, start) : -1;
        if (hole >= end) hole = -1;
        // A part that starts with run-time text is unresolved.
        if (hole === start) giveUp();
        if (!this.readConditionPart(table, text, start, end, hole)) {
          // Another form (a word operator, a function of a column).
          const parsed = parseFilterConditions({ condition: symOf(condition), tableColumns: table.columns });
          if (parsed.unresolved.length > 0) giveUp();
          for (const column of parsed.columns) this.readIn(table, column);
          return;
        }
      }
      if (at < 0) return;
    }
  }

  /**
   * One trimmed, non-empty condition part text[start, end) (its first hole at `hole`, or -1), read as
   * readCondition reads `max(column)` / `min(column)` (no hole) and `column<op>...` (the column before
   * any hole). False when it has neither form.
   */
  private readConditionPart(
    table: TableIndex,
    text: string,
    start: number,
    end: number,
    hole: number,
  ): boolean {
    if (hole < 0 && text.charCodeAt(end - 1) === C_RPAREN) {
      const aggregate = AGGREGATE_SELECTOR.exec(text.slice(start, end));
      if (aggregate !== null) {
        this.readIn(table, aggregate[1]!.toLowerCase());
        return true;
      }
    }
    // comparedColumn on the known text before the first hole: `IDENT\s*(?:>=|<=|!=|<>|==|=|>|<)`.
    const prefixEnd = hole < 0 ? end : hole;
    if (!isNameStart(text.charCodeAt(start))) return false;
    // The identifier cannot run past prefixEnd: a hole, "|" or white space is there.
    const identEnd = identifierEnd(text, start);
    let p = identEnd;
    while (p < prefixEnd && isRegexSpace(text.charCodeAt(p))) p++;
    if (p >= prefixEnd) return false;
    const c = text.charCodeAt(p);
    if (
      c !== 62 &&
      c !== 60 &&
      c !== 61 &&
      !(c === 33 && p + 1 < prefixEnd && text.charCodeAt(p + 1) === 61)
    ) {
      return false;
    }
    this.readColumn(table, text.slice(start, identEnd));
    return true;
  }

  /**
   * Reads the column `name` names (any case) in `table`: looked up as written first (code writes
   * columns in lower case, as the schema has them), else by its lower-cased copy.
   */
  private readColumn(table: TableIndex, name: string): void {
    const slot = table.lowerSlots.get(name);
    if (slot !== undefined) {
      this.reads[slot] = 1;
      this.touched[table.rank] = 1;
      return;
    }
    this.readIn(table, name.toLowerCase());
  }

  /** The column of a GetValue argument, as parseGetValueArgument reads it (a plain column in place). */
  private readGetValueArgument(table: TableIndex, argument: FastValue): void {
    const text = argument.text;
    // The head: the trimmed text before the first comma.
    let end = text.indexOf(",");
    if (end < 0) end = text.length;
    let start = 0;
    while (start < end && isRegexSpace(text.charCodeAt(start))) start++;
    while (end > start && isRegexSpace(text.charCodeAt(end - 1))) end--;
    // An empty head, or one with run-time text, is unresolved.
    if (start === end) giveUp();
    if (argument.holes) {
      const hole = text.indexOf(HOLE_CHAR);
      if (hole >= 0 && hole < end) giveUp();
    }
    if (isNameStart(text.charCodeAt(start)) && identifierEnd(text, start) === end) {
      this.readColumn(table, text.slice(start, end));
      return;
    }
    const parsed = parseGetValueArgument({ argument: symOf(argument) });
    if (parsed.unresolved.length > 0) giveUp();
    for (const column of parsed.columns) this.readIn(table, column);
  }

  private callBuiltin(name: string, args: FastValue[]): FastValue {
    const first = args[0];
    if (NUMERIC_BUILTINS.has(name)) {
      if ((name === "int" || name === "float") && first?.kind === OPAQUE) giveUp();
      if (name === "int" && first?.kind === NUM && first.num !== null)
        return numberValue(Math.trunc(first.num));
      if ((name === "int" || name === "float") && first?.kind === STR && !first.holes) {
        const parsed = Number(first.text);
        return numberValue(Number.isNaN(parsed) ? null : name === "int" ? Math.trunc(parsed) : parsed);
      }
      return numberValue(null);
    }
    if (BOOLEAN_BUILTINS.has(name)) return value(BOOL);
    switch (name) {
      case "str":
        return first === undefined ? strValue("", false) : strValue(this.textOf(first), hasHole(first));
      case "print":
        for (const arg of args) this.textOf(arg);
        return value(NONE);
      case "max":
      case "min":
        if (args.length === 1) return this.elementOf(first!);
        if (args.length === 0) return value(NONE);
        return args.reduce(joinInExpression);
      case "list":
      case "tuple":
      case "set":
      case "frozenset":
      case "reversed":
      case "iter": {
        // list(xs) copies a list, keeping it exact or not; anything else gives an inexact list of its
        // elements (set(), list() of nothing: an empty one).
        if (first === undefined) {
          const list = emptyList();
          list.exact = name === "list" || name === "tuple";
          return list;
        }
        const list = emptyList();
        if ((name === "list" || name === "tuple") && first.kind === LIST) list.exact = first.exact;
        else {
          if (hasHandle(this.elementOf(first).kind)) giveUp();
          list.exact = false;
        }
        return list;
      }
      default:
        return giveUp();
    }
  }
}

/** Whether textOf(v) has a hole. */
function hasHole(v: FastValue): boolean {
  switch (v.kind) {
    case STR:
      return v.holes;
    case NUM:
      return v.num === null;
    case NONE:
      return false;
    case LIST:
      return !v.exact;
    default:
      return true;
  }
}

/** A name no variable holds, not called: an unknown, or a constant. */
function unboundName(known: number, kind: number): FastValue {
  if (kind === CONSTANT) return KNOWN_NAMES[known] === "None" ? value(NONE) : value(BOOL);
  // A keyword, or a builtin or toolbox function as a value (a callback): the general path.
  if (kind !== 0) giveUp();
  return value(UNKNOWN);
}

/** A variable's value as an expression reads it: a value the fast path does not follow gives up. */
function checked(v: FastValue): FastValue {
  if (v.kind === BAD) giveUp();
  return v;
}

/** interpreter.mergeInto(frame, [a, b]) where the frame's variables are `into` (which may be `b`). */
function merge(into: Vars, a: Vars, b: Vars): void {
  const length = Math.max(a.length, b.length);
  for (let id = 0; id < length; id++) {
    const first = a[id];
    const other = b[id];
    into[id] =
      first === undefined ? other : other === undefined || other === first ? first : join(first, other);
  }
}

/** Whether a kind stands for a scalar (what MULTI may hold). */
function isScalar(kind: number): boolean {
  return kind === NUM || kind === BOOL || kind === NONE || kind === UNKNOWN || kind === MULTI;
}

/** A join inside an expression (`or`, `and`, max(a, b)): a value the fast path cannot follow gives up. */
function joinInExpression(a: FastValue, b: FastValue): FastValue {
  const joined = join(a, b);
  if (joined.kind === BAD) giveUp();
  return joined;
}

/**
 * interpreter join of two values, as far as the fast path can tell: exact for tables, known strings,
 * numbers, bools and None; a merge of other scalars is MULTI, of other values without a handle OPAQUE;
 * a table with anything else BAD.
 */
function join(a: FastValue, b: FastValue): FastValue {
  if (a === b) return a;
  const ak = a.kind;
  const bk = b.kind;
  if (ak === BAD) return a;
  if (bk === BAD) return b;
  if (hasHandle(ak) || hasHandle(bk)) {
    // Handles of one kind on one table (one column) merge into one; anything else with a handle is not
    // followed.
    return (ak === TABLE || ak === ROW || ak === COLUMN) &&
      ak === bk &&
      a.table === b.table &&
      a.text === b.text
      ? a
      : value(BAD);
  }
  if (ak === bk) {
    switch (ak) {
      case STR:
        // Strings with holes: the hole origins decide, and they are not tracked.
        if (!a.holes && !b.holes && a.text === b.text) return a;
        break;
      case NUM:
        // valKey compares `n:${value}`.
        return String(a.num) === String(b.num) ? a : value(MULTI);
      case BOOL:
      case NONE:
        return a;
      default:
        break;
    }
  }
  if (isScalar(ak) && isScalar(bk)) return value(MULTI);
  // No handle on either side: none in the merge.
  return value(OPAQUE);
}

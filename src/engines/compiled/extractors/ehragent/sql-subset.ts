/**
 * A direct reader for the SQL that EHRAgent writes (and EHRSQL's gold queries): one SELECT with DISTINCT,
 * aliases, comma joins and `[INNER|LEFT [OUTER]] JOIN ... ON/USING`, derived tables, IN/scalar
 * subqueries, WHERE/GROUP BY/HAVING/ORDER BY/LIMIT/OFFSET, comparisons, LIKE, BETWEEN, IS [NOT] NULL,
 * arithmetic, string literals and a list of known functions. node-sql-parser takes ~400 µs a query;
 * this takes a few.
 *
 * It must give exactly what extractSqlAccess's walk of node-sql-parser's AST gives, so it is strict:
 * anything it is not sure node-sql-parser reads the same way (another keyword, function or quoting
 * style, a comment, a reserved word used as a name, a window function, UNION, CASE, CAST...) makes it
 * answer null, and the caller parses the query with node-sql-parser. Column references are resolved in
 * the order that walk visits them: derived tables first, then JOIN conditions, then the select list,
 * WHERE, GROUP BY, HAVING and ORDER BY, each in source order (sql-subset.test.ts holds the two readers
 * to the same answers on the dataset's queries and on generated ones).
 */
import type { DatabaseSchema } from "./schema.js";
import { newScope, type SqlAccess, SqlReadRecorder, type SqlScope } from "./sql-scope.js";

/** Something a column-reading walk visits: a column reference, or a subquery at that point. */
type Visit = { qualifier: string | null; column: string } | { select: SubsetSelect };

interface SubsetItem {
  visits: Visit[];
  /** `AS` name, lower case. */
  alias: string | null;
  /** The item is a bare column reference: its column name, lower case ("*" for `*` and `t.*`). */
  bare: string | null;
}

interface SubsetSource {
  /** Table name (lower case) or derived select. */
  table: string | null;
  select: SubsetSelect | null;
  alias: string | null;
  on: Visit[];
  using: string[];
}

interface SubsetSelect {
  items: SubsetItem[];
  sources: SubsetSource[];
  /** WHERE, GROUP BY, HAVING and ORDER BY, in that order (the order of node-sql-parser's AST keys). */
  clauses: Visit[];
}

/**
 * Words node-sql-parser reserves or reads specially, which this reader never takes as a name (nor
 * anything that is a property of Object.prototype, which the schema lookups would find).
 */
const NOT_A_NAME = new Set(
  `add all alter and any as asc avg between binary by call case cast collate contains count create cross
  current_date current_time current_timestamp current_user delete desc distinct drop else end escape
  except exists explain extract false filter for from full generated glob global group group_concat having
  if ilike in inner insert intersect interval into is isnull join key left like limit local low_priority
  match max min natural not notnull null nulls offset on or order outer over partition persist persist_only
  primary read recursive regexp rename replace right rlike rows select session session_user set show
  some sum system_user table then to true truncate union unique update using values when where window with
  write`
    .trim()
    .split(/\s+/),
);

/** Functions read as `name(args)` with plain argument lists, checked against node-sql-parser. */
const FUNCTIONS = new Set(
  `strftime datetime date time julianday abs round lower upper length substr coalesce ifnull instr nullif
  typeof total random`
    .trim()
    .split(/\s+/),
);

const CURRENT_VALUES = new Set(["current_date", "current_time", "current_timestamp"]);
const COMPARISONS = new Set(["=", "==", "!=", "<>", "<", "<=", ">", ">="]);

type TokenKind = "word" | "number" | "string" | "op";

/** Thrown inside the reader when the query leaves the subset; never escapes readSqlSubset. */
class OutsideSubset extends Error {}
const OUTSIDE = new OutsideSubset();

class SubsetParser {
  private readonly kinds: TokenKind[] = [];
  /** Words lower case; operators as written; string and number text is not kept. */
  private readonly texts: string[] = [];
  private pos = 0;

  constructor(sql: string) {
    this.tokenize(sql);
  }

  private tokenize(sql: string): void {
    const { kinds, texts } = this;
    let i = 0;
    while (i < sql.length) {
      const c = sql.charCodeAt(i);
      if (c === 32 || c === 9 || c === 10 || c === 13) {
        i++;
      } else if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95) {
        let end = i + 1;
        while (end < sql.length && isWordCode(sql.charCodeAt(end))) end++;
        kinds.push("word");
        texts.push(sql.slice(i, end).toLowerCase());
        i = end;
      } else if (c >= 48 && c <= 57) {
        let end = i + 1;
        while (end < sql.length && isDigitCode(sql.charCodeAt(end))) end++;
        if (sql.charCodeAt(end) === 46) {
          if (!isDigitCode(sql.charCodeAt(end + 1))) throw OUTSIDE;
          end++;
          while (end < sql.length && isDigitCode(sql.charCodeAt(end))) end++;
        }
        // `1e5`, `2abc`, `1.2.3`: not plain numbers.
        if (end < sql.length && (isWordCode(sql.charCodeAt(end)) || sql.charCodeAt(end) === 46))
          throw OUTSIDE;
        kinds.push("number");
        texts.push("");
        i = end;
      } else if (c === 39) {
        let end = i + 1;
        for (;;) {
          const quote = sql.indexOf("'", end);
          if (quote < 0) throw OUTSIDE;
          // A backslash is an escape to node-sql-parser; '' is a quote in the text.
          if (sql.indexOf("\\", end) >= 0 && sql.indexOf("\\", end) < quote) throw OUTSIDE;
          if (sql.charCodeAt(quote + 1) === 39) {
            end = quote + 2;
            continue;
          }
          end = quote + 1;
          break;
        }
        kinds.push("string");
        texts.push("");
        i = end;
      } else {
        const op = operatorAt(sql, i);
        kinds.push("op");
        texts.push(op);
        i += op.length;
      }
    }
  }

  // ------------------------------------------------------------------ token helpers

  private atWord(word: string): boolean {
    return this.kinds[this.pos] === "word" && this.texts[this.pos] === word;
  }

  private atOp(op: string): boolean {
    return this.kinds[this.pos] === "op" && this.texts[this.pos] === op;
  }

  private acceptWord(word: string): boolean {
    if (!this.atWord(word)) return false;
    this.pos++;
    return true;
  }

  private acceptOp(op: string): boolean {
    if (!this.atOp(op)) return false;
    this.pos++;
    return true;
  }

  private expectWord(word: string): void {
    if (!this.acceptWord(word)) throw OUTSIDE;
  }

  private expectOp(op: string): void {
    if (!this.acceptOp(op)) throw OUTSIDE;
  }

  /** A word usable as a table, column or alias name. */
  private atName(): boolean {
    if (this.kinds[this.pos] !== "word") return false;
    const word = this.texts[this.pos]!;
    return !NOT_A_NAME.has(word) && !(word in Object.prototype);
  }

  private name(): string {
    if (!this.atName()) throw OUTSIDE;
    return this.texts[this.pos++]!;
  }

  // ------------------------------------------------------------------ grammar

  parseStatement(): SubsetSelect {
    const select = this.parseSelect(false);
    if (this.pos !== this.kinds.length) throw OUTSIDE;
    return select;
  }

  /**
   * `nested`: a subquery in an expression, taken only with one item that is not `*` (node-sql-parser
   * rejects some others: "invalid column clause with select statement").
   */
  private parseSelect(nested: boolean): SubsetSelect {
    this.expectWord("select");
    this.acceptWord("distinct");
    const items: SubsetItem[] = [];
    do items.push(this.parseItem(!nested));
    while (this.acceptOp(","));
    if (nested && items.length > 1) throw OUTSIDE;
    // node-sql-parser reads a select without FROM too (qualified columns then name schema tables).
    const sources: SubsetSource[] = [];
    if (this.acceptWord("from")) sources.push(this.parseSource());
    while (sources.length > 0) {
      if (this.acceptOp(",")) {
        sources.push(this.parseSource());
        continue;
      }
      if (this.acceptWord("inner")) this.expectWord("join");
      else if (this.acceptWord("left")) {
        this.acceptWord("outer");
        this.expectWord("join");
      } else if (!this.acceptWord("join")) break;
      const source = this.parseSource();
      if (this.acceptWord("on")) {
        source.on = [];
        this.parseExpr(source.on);
      } else if (this.acceptWord("using")) {
        this.expectOp("(");
        do source.using.push(this.name());
        while (this.acceptOp(","));
        this.expectOp(")");
      }
      sources.push(source);
    }
    const clauses: Visit[] = [];
    if (this.acceptWord("where")) this.parseExpr(clauses);
    // GROUP BY and ORDER BY items take no top-level AND/OR in node-sql-parser's grammar.
    if (this.acceptWord("group")) {
      this.expectWord("by");
      do this.parseNot(clauses);
      while (this.acceptOp(","));
    }
    if (this.acceptWord("having")) this.parseExpr(clauses);
    if (this.acceptWord("order")) {
      this.expectWord("by");
      do {
        this.parseNot(clauses);
        if (!this.acceptWord("asc")) this.acceptWord("desc");
      } while (this.acceptOp(","));
    }
    if (this.acceptWord("limit")) {
      this.number();
      if (this.acceptWord("offset")) this.number();
    }
    return { items, sources, clauses };
  }

  private number(): void {
    if (this.kinds[this.pos] !== "number") throw OUTSIDE;
    this.pos++;
  }

  private parseItem(star: boolean): SubsetItem {
    if (this.atOp("*")) {
      if (!star) throw OUTSIDE;
      this.pos++;
      return { visits: [{ qualifier: null, column: "*" }], alias: null, bare: "*" };
    }
    // `t.*` only as a whole item, which takes no alias.
    if (this.atName() && this.texts[this.pos + 1] === "." && this.texts[this.pos + 2] === "*") {
      if (!star) throw OUTSIDE;
      const qualifier = this.name();
      this.pos += 2;
      return { visits: [{ qualifier, column: "*" }], alias: null, bare: "*" };
    }
    // node-sql-parser may read `(a)` as the column itself, and rejects `(...) as x` in a subquery in an
    // expression: items starting with "(" are taken only as a top-level `(select ...)`.
    if (this.atOp("(") && (!star || this.texts[this.pos + 1] !== "select")) throw OUTSIDE;
    const start = this.pos;
    const visits: Visit[] = [];
    this.parseExpr(visits);
    // A bare column reference is `name` or `name.name`, and nothing else.
    const length = this.pos - start;
    const single =
      length === 1 ||
      (length === 3 &&
        this.kinds[start + 1] === "op" &&
        this.texts[start + 1] === "." &&
        visits.length === 1);
    const first = visits[0];
    const bare = single && first !== undefined && "column" in first ? first.column : null;
    let alias: string | null = null;
    if (this.acceptWord("as")) alias = this.name();
    else if (this.atName()) alias = this.name();
    return { visits, alias, bare };
  }

  private parseSource(): SubsetSource {
    let table: string | null = null;
    let select: SubsetSelect | null = null;
    if (this.acceptOp("(")) {
      select = this.parseSelect(false);
      this.expectOp(")");
    } else {
      table = this.name();
      if (this.atOp(".")) throw OUTSIDE;
    }
    let alias: string | null = null;
    if (this.acceptWord("as")) alias = this.name();
    else if (this.atName()) alias = this.name();
    return { table, select, alias, on: [], using: [] };
  }

  /** expr := and (OR and)* */
  private parseExpr(out: Visit[]): void {
    this.parseAnd(out);
    while (this.acceptWord("or")) this.parseAnd(out);
  }

  private parseAnd(out: Visit[]): void {
    this.parseNot(out);
    while (this.acceptWord("and")) this.parseNot(out);
  }

  private parseNot(out: Visit[]): void {
    this.acceptWord("not");
    this.parsePredicate(out);
  }

  private parsePredicate(out: Visit[]): void {
    this.parseAdditive(out);
    if (this.kinds[this.pos] === "op" && COMPARISONS.has(this.texts[this.pos]!)) {
      this.pos++;
      this.parseAdditive(out);
      return;
    }
    if (this.acceptWord("is")) {
      this.acceptWord("not");
      this.expectWord("null");
      return;
    }
    const negated = this.acceptWord("not");
    if (this.acceptWord("in")) {
      this.expectOp("(");
      if (this.atWord("select")) out.push({ select: this.parseSelect(true) });
      else {
        do this.parseAdditive(out);
        while (this.acceptOp(","));
      }
      this.expectOp(")");
    } else if (this.acceptWord("like")) {
      this.parseAdditive(out);
    } else if (this.acceptWord("between")) {
      this.parseAdditive(out);
      this.expectWord("and");
      this.parseAdditive(out);
    } else if (negated) {
      throw OUTSIDE;
    }
  }

  private parseAdditive(out: Visit[]): void {
    this.parseMultiplicative(out);
    while (this.acceptOp("+") || this.acceptOp("-") || this.acceptOp("||")) this.parseMultiplicative(out);
  }

  private parseMultiplicative(out: Visit[]): void {
    this.parseUnary(out);
    while (this.acceptOp("*") || this.acceptOp("/") || this.acceptOp("%")) this.parseUnary(out);
  }

  private parseUnary(out: Visit[]): void {
    if (this.acceptOp("-") || this.acceptOp("+")) {
      // One sign at most: `- -a` and friends are left to node-sql-parser.
      if (this.atOp("-") || this.atOp("+")) throw OUTSIDE;
    }
    this.parsePrimary(out);
  }

  private parsePrimary(out: Visit[]): void {
    const kind = this.kinds[this.pos];
    if (kind === "number" || kind === "string") {
      this.pos++;
      return;
    }
    if (this.acceptOp("(")) {
      if (this.atWord("select")) out.push({ select: this.parseSelect(true) });
      else this.parseExpr(out);
      this.expectOp(")");
      return;
    }
    if (kind !== "word") throw OUTSIDE;
    const word = this.texts[this.pos]!;
    if (CURRENT_VALUES.has(word)) {
      this.pos++;
      if (this.atOp("(") || this.atOp(".")) throw OUTSIDE;
      return;
    }
    if (this.kinds[this.pos + 1] === "op" && this.texts[this.pos + 1] === "(") {
      this.pos += 2;
      this.parseCall(word, out);
      return;
    }
    const first = this.name();
    if (this.acceptOp(".")) {
      out.push({ qualifier: first, column: this.name() });
      return;
    }
    out.push({ qualifier: null, column: first });
  }

  /** After `name(`: the arguments and `)`. */
  private parseCall(name: string, out: Visit[]): void {
    if (name === "count") {
      if (!this.acceptOp("*")) {
        this.acceptWord("distinct");
        this.parseExpr(out);
      }
    } else if (name === "sum" || name === "avg") {
      this.parseExpr(out);
    } else if (name === "max" || name === "min" || FUNCTIONS.has(name)) {
      if (!this.atOp(")")) {
        do this.parseExpr(out);
        while (this.acceptOp(","));
      }
    } else {
      throw OUTSIDE;
    }
    this.expectOp(")");
  }
}

function isWordCode(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;
}

function isDigitCode(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** The operator at `i`, longest first; anything else (quotes, comments, `;`...) leaves the subset. */
function operatorAt(sql: string, i: number): string {
  const c = sql[i]!;
  const next = sql[i + 1];
  switch (c) {
    case "(":
    case ")":
    case ",":
    case ".":
    case "*":
    case "+":
    case "%":
      return c;
    case "-":
      if (next === "-") throw OUTSIDE;
      return c;
    case "/":
      if (next === "*") throw OUTSIDE;
      return c;
    case "=":
      return next === "=" ? "==" : "=";
    case "!":
      if (next === "=") return "!=";
      throw OUTSIDE;
    case "<":
      return next === "=" ? "<=" : next === ">" ? "<>" : "<";
    case ">":
      return next === "=" ? ">=" : ">";
    case "|":
      if (next === "|") return "||";
      throw OUTSIDE;
    default:
      throw OUTSIDE;
  }
}

/** The walk of extractSqlAccess, over the subset's own tree. */
function walkSelect(
  select: SubsetSelect,
  parent: SqlScope | null,
  recorder: SqlReadRecorder,
): Set<string> | "any" {
  const scope = newScope(parent);
  const noCtes = new Map<string, Set<string> | "any">();
  for (const source of select.sources) {
    if (source.select) {
      scope.sources.push({
        kind: "derived",
        alias: source.alias,
        columns: walkSelect(source.select, parent, recorder),
      });
    } else {
      recorder.addTable(scope, source.table!, source.alias, noCtes);
    }
  }
  for (const item of select.items) if (item.alias !== null) scope.selectAliases.add(item.alias);
  for (const source of select.sources) {
    visitAll(source.on, scope, recorder);
    for (const column of source.using) recorder.addUsingColumn(scope, column);
  }
  for (const item of select.items) visitAll(item.visits, scope, recorder);
  visitAll(select.clauses, scope, recorder);
  const outputs = new Set<string>();
  for (const item of select.items) {
    if (item.alias !== null) outputs.add(item.alias);
    else if (item.bare === "*") return "any";
    else if (item.bare !== null) outputs.add(item.bare);
  }
  return outputs;
}

function visitAll(visits: readonly Visit[], scope: SqlScope, recorder: SqlReadRecorder): void {
  for (const visit of visits) {
    if ("select" in visit) walkSelect(visit.select, scope, recorder);
    else recorder.resolveColumn(visit.qualifier, visit.column, scope);
  }
}

/**
 * The reads of `sql` when it is in the subset this reader is sure of, exactly as extractSqlAccess would
 * report them through node-sql-parser; null otherwise.
 */
export function readSqlSubset(options: { sql: string; schema: DatabaseSchema }): SqlAccess | null {
  let select: SubsetSelect;
  try {
    select = new SubsetParser(options.sql).parseStatement();
  } catch (error) {
    if (error === OUTSIDE) return null;
    throw error;
  }
  const recorder = new SqlReadRecorder(options.schema);
  walkSelect(select, null, recorder);
  return recorder.result([]);
}

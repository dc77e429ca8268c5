/**
 * Recursive-descent parser from tokens (py-tokenizer.ts) to the AST in py-ast.ts. It follows CPython's
 * grammar for statements and expression precedence, including f-strings (parsed into literal text and
 * replacement fields), comprehensions, lambdas, slices, starred arguments and chained comparisons.
 * Malformed input raises a WardenError (EXTRACTION_FAILED) naming the line and column.
 */

import { decodePythonEscapes } from "../../../common/python-escapes.js";
import type {
  ExceptHandler,
  Expr,
  FStringPart,
  Generator,
  Keyword,
  Loc,
  Module,
  Param,
  Stmt,
} from "./py-ast.js";
import { PY_KEYWORDS, syntaxError, type Token, tokenizePython } from "./py-tokenizer.js";

/** A list of words written as one block of text. */
const words = (text: string): string[] => text.trim().split(/\s+/);

const AUGMENTED = new Set(["+=", "-=", "*=", "/=", "//=", "%=", "**=", ">>=", "<<=", "&=", "|=", "^=", "@="]);
const COMPARISONS = new Set(["<", ">", "==", ">=", "<=", "!=", "<>"]);

/** Operators that continue an expression after a primary: power, binary operators, comparisons. */
const CONTINUES_EXPRESSION = new Set(words(`** | ^ & << >> + - * / // % @ < > == >= <= != <>`));
/** Keywords that continue an expression after a primary: comparisons, boolean operators, `x if c else y`. */
const CONTINUES_EXPRESSION_WORDS = new Set(["in", "not", "is", "and", "or", "if"]);

/** Binary operator -> precedence level, loosest first: | ^ & shifts arithmetic terms. */
const BINARY_LEVELS = new Map<string, number>([
  ["|", 1],
  ["^", 2],
  ["&", 3],
  ["<<", 4],
  [">>", 4],
  ["+", 5],
  ["-", 5],
  ["*", 6],
  ["/", 6],
  ["//", 6],
  ["%", 6],
  ["@", 6],
]);

/**
 * Bounds on untrusted code: the parser and the interpreter recurse on nesting, so deeper code would end
 * in a RangeError. CPython itself refuses parentheses nested past 200; a syntax tree deeper than
 * MAX_TREE_DEPTH (long `a[0][0]…` or `1 + 1 + …` chains, `elif` ladders) is not analysed either. Both
 * are syntax errors here, so the extraction is undetermined and the check fails closed.
 */
const MAX_NESTING = 200;
const MAX_TREE_DEPTH = 1_000;
/**
 * At most this many levels of the syntax tree per token read (those of the f-string fields' own parses
 * included), so a parse of at most MAX_TREE_DEPTH / LEVELS_PER_TOKEN tokens — most agent code — cannot
 * be too deep and is not walked (the walk was a tenth of a check). Why: every node but an expression
 * statement and a `with` item (each wrapping a node of the same tokens, never another wrapper) reads a
 * token its children do not (a keyword, operator, bracket, comma or name), so the nodes on a path from
 * the root are at most 2 per token, with at most one array between two of them: 4 levels per token.
 * An f-string field's expression is parsed from tokens of its own (at least five: `(`, `)`, end of
 * line, end of input and the expression's), entered through at most 4 levels (parts, part, spec,
 * part). The test beside this file checks the bound on the deepest shapes each construct builds.
 */
export const LEVELS_PER_TOKEN = 8;
/**
 * Recursive descents in progress for one parse, shared with the nested parsers of its f-string fields
 * (a value made per parse and passed down, so no state outlives a call or leaks between parses), and the
 * tokens those parsers have read (see LEVELS_PER_TOKEN).
 */
export interface Nesting {
  depth: number;
  tokens: number;
  /** Whether a `def`, `class` or `lambda` was parsed (Module.mayDefineFunctions). */
  definesFunctions: boolean;
}

/**
 * Whether the tree under `root` is deeper than `limit`: an explicit stack (the walk cannot overflow) of
 * nodes and their depths side by side, so a check allocates two arrays rather than a tuple per node. The
 * parser builds a tree (no node has two parents), so nothing is visited twice.
 */
function treeDeeperThan(root: object, limit: number): boolean {
  const nodes: object[] = [root];
  const depths: number[] = [0];
  while (nodes.length > 0) {
    const node = nodes.pop()!;
    const depth = depths.pop()!;
    if (depth > limit) return true;
    if (Array.isArray(node)) {
      for (const child of node) {
        if (typeof child === "object" && child !== null) {
          nodes.push(child);
          depths.push(depth + 1);
        }
      }
      continue;
    }
    for (const key in node) {
      const child = (node as Record<string, unknown>)[key];
      if (typeof child === "object" && child !== null) {
        nodes.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/** Parses a whole Python module. */
export function parsePython(options: { source: string }): Module {
  const nesting: Nesting = { depth: 0, tokens: 0, definesFunctions: false };
  const parser = new Parser(tokenizePython({ source: options.source }), nesting);
  const module = parser.parseModule();
  // Few tokens cannot make a tree that deep (LEVELS_PER_TOKEN): only longer code is walked.
  if (nesting.tokens * LEVELS_PER_TOKEN > MAX_TREE_DEPTH && treeDeeperThan(module, MAX_TREE_DEPTH)) {
    throw syntaxError({ message: `the code nests deeper than ${MAX_TREE_DEPTH} levels`, line: 1, col: 0 });
  }
  // What the parse saw, and one scan of the text, so the interpreter can skip what cannot matter.
  module.mayDefineFunctions = nesting.definesFunctions;
  module.mayHaveUnusualText = /[\x1c-\x1f\x85\ufeff]|\\[xuU0-7N]/.test(options.source);
  return module;
}

/** Parses a single Python expression (used for f-string fields and tests). */
export function parsePythonExpression(options: { source: string; nesting?: Nesting }): Expr {
  // Parenthesised so that a field such as `x\n+ y` or leading spaces parse as they do inside `{...}`.
  const parser = new Parser(
    tokenizePython({ source: `(${options.source}\n)` }),
    options.nesting ?? { depth: 0, tokens: 0, definesFunctions: false },
  );
  const expr = parser.parseStandaloneExpression();
  return expr;
}

class Parser {
  private pos = 0;

  constructor(
    private readonly tokens: Token[],
    private readonly nesting: Nesting,
  ) {
    nesting.tokens += tokens.length;
  }

  parseModule(): Module {
    const body: Stmt[] = [];
    while (!this.atKind("eof")) {
      if (this.atKind("newline")) {
        this.pos++;
        continue;
      }
      if (this.atKind("indent")) throw this.error("unexpected indent");
      this.parseStatement(body);
    }
    return { body };
  }

  parseStandaloneExpression(): Expr {
    this.expectOp("(");
    const expr = this.parseExprList({ allowStar: true });
    this.expectOp(")");
    while (this.atKind("newline")) this.pos++;
    if (!this.atKind("eof")) throw this.error("unexpected text after expression");
    return expr;
  }

  // ---------------------------------------------------------------- token helpers

  private peek(offset = 0): Token {
    // `pos` never passes the final EOF token (next() and the accept helpers stop there).
    if (offset === 0) return this.tokens[this.pos]!;
    return this.tokens[Math.min(this.pos + offset, this.tokens.length - 1)]!;
  }

  private atKind(kind: Token["kind"]): boolean {
    return this.peek().kind === kind;
  }

  private atOp(value: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token.kind === "op" && token.value === value;
  }

  private atKeyword(value: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token.kind === "name" && token.value === value;
  }

  private next(): Token {
    const token = this.peek();
    if (this.pos < this.tokens.length - 1) this.pos++;
    return token;
  }

  private acceptOp(value: string): boolean {
    if (!this.atOp(value)) return false;
    this.pos++;
    return true;
  }

  private acceptKeyword(value: string): boolean {
    if (!this.atKeyword(value)) return false;
    this.pos++;
    return true;
  }

  private expectOp(value: string): Token {
    if (!this.atOp(value)) throw this.error(`expected "${value}"`);
    return this.next();
  }

  private expectKeyword(value: string): Token {
    if (!this.atKeyword(value)) throw this.error(`expected "${value}"`);
    return this.next();
  }

  private expectName(): string {
    const token = this.peek();
    if (token.kind !== "name" || PY_KEYWORDS.has(token.value)) throw this.error("expected a name");
    this.pos++;
    return token.value;
  }

  private expectNewline(): void {
    if (this.atKind("newline")) {
      this.pos++;
      return;
    }
    if (this.atKind("eof") || this.atKind("dedent")) return;
    throw this.error("expected end of line");
  }

  /** Where a node starts: the token itself (it has line and col), so no object is made per node. */
  private loc(token: Token = this.peek()): Loc {
    return token;
  }

  /** Enters one recursive descent (the caller leaves it with `nesting.depth--` in a finally): past MAX_NESTING it throws. */
  private enter(): void {
    this.nesting.depth++;
    if (this.nesting.depth > MAX_NESTING)
      throw this.error(`the code nests deeper than ${MAX_NESTING} levels`);
  }

  private error(message: string) {
    const token = this.peek();
    const found =
      token.kind === "eof"
        ? "end of input"
        : token.kind === "newline"
          ? "end of line"
          : token.kind === "indent"
            ? "indent"
            : token.kind === "dedent"
              ? "dedent"
              : JSON.stringify(token.value);
    return syntaxError({ message: `${message}, found ${found}`, line: token.line, col: token.col });
  }

  // ---------------------------------------------------------------- statements

  /** Parses one statement line (several when joined by ";") and appends it to `body`. */
  private parseStatement(body: Stmt[]): void {
    const token = this.peek();
    if (token.kind === "name") {
      switch (token.value) {
        case "if":
          body.push(this.parseIf());
          return;
        case "for":
          body.push(this.parseFor());
          return;
        case "while":
          body.push(this.parseWhile());
          return;
        case "def":
          body.push(this.parseDef([]));
          return;
        case "class":
          body.push(this.parseClass([]));
          return;
        case "try":
          body.push(this.parseTry());
          return;
        case "with":
          body.push(this.parseWith());
          return;
        case "async":
          this.pos++;
          this.parseStatement(body);
          return;
      }
    }
    if (this.atOp("@")) {
      body.push(this.parseDecorated());
      return;
    }
    body.push(this.parseSimpleStatement());
    while (this.acceptOp(";")) {
      if (this.atKind("newline") || this.atKind("eof")) break;
      body.push(this.parseSimpleStatement());
    }
    this.expectNewline();
  }

  private parseBlock(): Stmt[] {
    try {
      this.enter();
      return this.parseBlockUnbounded();
    } finally {
      this.nesting.depth--;
    }
  }

  private parseBlockUnbounded(): Stmt[] {
    this.expectOp(":");
    if (!this.atKind("newline")) {
      // Simple statements on the same line as the header: `if x: y = 1; z = 2`.
      const statements = [this.parseSimpleStatement()];
      while (this.acceptOp(";")) {
        if (this.atKind("newline") || this.atKind("eof")) break;
        statements.push(this.parseSimpleStatement());
      }
      this.expectNewline();
      return statements;
    }
    this.next();
    if (!this.atKind("indent")) throw this.error("expected an indented block");
    this.next();
    const body: Stmt[] = [];
    while (!this.atKind("dedent") && !this.atKind("eof")) {
      if (this.atKind("newline")) {
        this.pos++;
        continue;
      }
      this.parseStatement(body);
    }
    if (this.atKind("dedent")) this.next();
    return body;
  }

  private parseIf(): Stmt {
    const start = this.loc();
    this.next();
    const test = this.parseNamedTest();
    const body = this.parseBlock();
    let orelse: Stmt[] = [];
    if (this.atKeyword("elif")) {
      orelse = [this.parseIf()];
    } else if (this.acceptKeyword("else")) {
      orelse = this.parseBlock();
    }
    return { type: "If", test, body, orelse, line: start.line, col: start.col };
  }

  private parseFor(): Stmt {
    const start = this.loc();
    this.next();
    const target = this.parseTargetList();
    this.expectKeyword("in");
    const iter = this.parseExprList({ allowStar: true });
    const body = this.parseBlock();
    const orelse = this.acceptKeyword("else") ? this.parseBlock() : [];
    return { type: "For", target, iter, body, orelse, line: start.line, col: start.col };
  }

  private parseWhile(): Stmt {
    const start = this.loc();
    this.next();
    const test = this.parseNamedTest();
    const body = this.parseBlock();
    const orelse = this.acceptKeyword("else") ? this.parseBlock() : [];
    return { type: "While", test, body, orelse, line: start.line, col: start.col };
  }

  private parseDecorated(): Stmt {
    const decorators: Expr[] = [];
    while (this.acceptOp("@")) {
      decorators.push(this.parseNamedTest());
      this.expectNewline();
    }
    if (this.acceptKeyword("async")) return this.parseDef(decorators);
    if (this.atKeyword("def")) return this.parseDef(decorators);
    if (this.atKeyword("class")) return this.parseClass(decorators);
    throw this.error("expected def or class after decorator");
  }

  private parseDef(decorators: Expr[]): Stmt {
    const start = this.loc();
    this.expectKeyword("def");
    const name = this.expectName();
    this.expectOp("(");
    const params = this.parseParams(")");
    this.expectOp(")");
    if (this.acceptOp("->")) this.parseTest();
    const body = this.parseBlock();
    this.nesting.definesFunctions = true;
    return { type: "FunctionDef", name, params, body, decorators, line: start.line, col: start.col };
  }

  private parseParams(closer: string): Param[] {
    const params: Param[] = [];
    while (!this.atOp(closer)) {
      if (this.acceptOp("/")) {
        // positional-only marker
      } else if (this.acceptOp("**")) {
        params.push({ name: this.expectName(), kind: "kwargs" });
        if (closer === ")" && this.acceptOp(":")) this.parseTest();
      } else if (this.acceptOp("*")) {
        if (this.peek().kind === "name") {
          params.push({ name: this.expectName(), kind: "varargs" });
          if (closer === ")" && this.acceptOp(":")) this.parseTest();
        }
      } else {
        const name = this.expectName();
        if (closer === ")" && this.acceptOp(":")) this.parseTest();
        const param: Param = { name, kind: "normal" };
        if (this.acceptOp("=")) param.default = this.parseTest();
        params.push(param);
      }
      if (!this.acceptOp(",")) break;
    }
    return params;
  }

  private parseClass(_decorators: Expr[]): Stmt {
    const start = this.loc();
    this.expectKeyword("class");
    const name = this.expectName();
    let bases: Expr[] = [];
    if (this.acceptOp("(")) {
      const call = this.parseArguments();
      bases = call.args;
      this.expectOp(")");
    }
    const body = this.parseBlock();
    this.nesting.definesFunctions = true;
    return { type: "ClassDef", name, bases, body, line: start.line, col: start.col };
  }

  private parseTry(): Stmt {
    const start = this.loc();
    this.next();
    const body = this.parseBlock();
    const handlers: ExceptHandler[] = [];
    while (this.atKeyword("except")) {
      this.next();
      this.acceptOp("*");
      let exceptionType: Expr | null = null;
      let name: string | null = null;
      if (!this.atOp(":")) {
        exceptionType = this.parseTest();
        if (this.acceptOp(",")) {
          // Python 2 style `except E, e` and tuples without parentheses are tolerated.
          const more = [exceptionType];
          while (!this.atOp(":") && !this.atKeyword("as")) {
            more.push(this.parseTest());
            if (!this.acceptOp(",")) break;
          }
          exceptionType = { type: "Tuple", elts: more, line: exceptionType.line, col: exceptionType.col };
        }
        if (this.acceptKeyword("as")) name = this.expectName();
      }
      handlers.push({ exceptionType, name, body: this.parseBlock() });
    }
    const orelse = this.acceptKeyword("else") ? this.parseBlock() : [];
    const finalbody = this.acceptKeyword("finally") ? this.parseBlock() : [];
    if (handlers.length === 0 && finalbody.length === 0) throw this.error("expected except or finally");
    return { type: "Try", body, handlers, orelse, finalbody, line: start.line, col: start.col };
  }

  private parseWith(): Stmt {
    const start = this.loc();
    this.next();
    const parenthesised = this.atOp("(") && this.withItemsAreParenthesised();
    if (parenthesised) this.next();
    const items: { context: Expr; target: Expr | null }[] = [];
    do {
      if (parenthesised && this.atOp(")")) break;
      const context = this.parseTest();
      const target = this.acceptKeyword("as") ? this.parseTarget() : null;
      items.push({ context, target });
    } while (this.acceptOp(","));
    if (parenthesised) this.expectOp(")");
    const body = this.parseBlock();
    return { type: "With", items, body, line: start.line, col: start.col };
  }

  private withItemsAreParenthesised(): boolean {
    // `with (a as b, c as d):` versus `with (a).b as c:`: look for the closing paren followed by ":".
    let level = 0;
    for (let i = this.pos; i < this.tokens.length; i++) {
      const token = this.tokens[i]!;
      if (token.kind === "op" && (token.value === "(" || token.value === "[" || token.value === "{")) level++;
      if (token.kind === "op" && (token.value === ")" || token.value === "]" || token.value === "}")) {
        level--;
        if (level === 0) {
          const after = this.tokens[i + 1];
          return after?.kind === "op" && after.value === ":";
        }
      }
      if (token.kind === "newline" || token.kind === "eof") return false;
    }
    return false;
  }

  private parseSimpleStatement(): Stmt {
    const token = this.peek();
    const start = this.loc(token);
    if (token.kind === "name") {
      switch (token.value) {
        case "pass":
          this.next();
          return { type: "Pass", line: start.line, col: start.col };
        case "break":
          this.next();
          return { type: "Break", line: start.line, col: start.col };
        case "continue":
          this.next();
          return { type: "Continue", line: start.line, col: start.col };
        case "return": {
          this.next();
          const value = this.atStatementEnd() ? null : this.parseExprList({ allowStar: true });
          return { type: "Return", value, line: start.line, col: start.col };
        }
        case "raise": {
          this.next();
          const exc = this.atStatementEnd() ? null : this.parseTest();
          if (this.acceptKeyword("from")) this.parseTest();
          return { type: "Raise", exc, line: start.line, col: start.col };
        }
        case "global":
        case "nonlocal": {
          const kind = this.next().value === "global" ? "global" : "nonlocal";
          const names = [this.expectName()];
          while (this.acceptOp(",")) names.push(this.expectName());
          return { type: "Global", kind, names, line: start.line, col: start.col };
        }
        case "del": {
          this.next();
          const target = this.parseExprList({ allowStar: false });
          return {
            type: "Del",
            targets: target.type === "Tuple" ? target.elts : [target],
            line: start.line,
            col: start.col,
          };
        }
        case "assert": {
          this.next();
          const test = this.parseTest();
          const msg = this.acceptOp(",") ? this.parseTest() : null;
          return { type: "Assert", test, msg, line: start.line, col: start.col };
        }
        case "import":
          return this.parseImport();
        case "from":
          return this.parseFromImport();
      }
    }
    return this.parseExpressionStatement();
  }

  private atStatementEnd(): boolean {
    return this.atKind("newline") || this.atKind("eof") || this.atKind("dedent") || this.atOp(";");
  }

  private parseDottedName(): string {
    let name = this.expectName();
    while (this.acceptOp(".")) name += `.${this.expectName()}`;
    return name;
  }

  private parseImport(): Stmt {
    const start = this.loc();
    this.next();
    const names: { name: string; asname: string | null }[] = [];
    do {
      const name = this.parseDottedName();
      names.push({ name, asname: this.acceptKeyword("as") ? this.expectName() : null });
    } while (this.acceptOp(","));
    return { type: "Import", from: null, names, line: start.line, col: start.col };
  }

  private parseFromImport(): Stmt {
    const start = this.loc();
    this.next();
    let module = "";
    while (this.atOp(".") || this.atOp("...")) module += this.next().value;
    if (!this.atKeyword("import")) module += this.parseDottedName();
    this.expectKeyword("import");
    if (this.acceptOp("*")) {
      return {
        type: "Import",
        from: module,
        names: [{ name: "*", asname: null }],
        line: start.line,
        col: start.col,
      };
    }
    const parenthesised = this.acceptOp("(");
    const names: { name: string; asname: string | null }[] = [];
    do {
      if (parenthesised && this.atOp(")")) break;
      const name = this.expectName();
      names.push({ name, asname: this.acceptKeyword("as") ? this.expectName() : null });
    } while (this.acceptOp(","));
    if (parenthesised) this.expectOp(")");
    return { type: "Import", from: module, names, line: start.line, col: start.col };
  }

  private parseExpressionStatement(): Stmt {
    const start = this.loc();
    // `name = ...` (most statements): the target is the Name the expression-list descent would return.
    const head = this.tokens[this.pos]!;
    const next = this.tokens[this.pos + 1];
    const first =
      head.kind === "name" && next?.kind === "op" && next.value === "=" && !PY_KEYWORDS.has(head.value)
        ? this.parseAtom()
        : this.parseExprList({ allowStar: true });
    if (this.atOp("=")) {
      const targets: Expr[] = [first];
      let value: Expr = first;
      while (this.acceptOp("=")) {
        value = this.parseExprList({ allowStar: true });
        targets.push(value);
      }
      targets.pop();
      return { type: "Assign", targets, value, line: start.line, col: start.col };
    }
    const token = this.peek();
    if (token.kind === "op" && AUGMENTED.has(token.value)) {
      this.next();
      const value = this.parseExprList({ allowStar: true });
      return {
        type: "AugAssign",
        target: first,
        op: token.value.slice(0, -1),
        value,
        line: start.line,
        col: start.col,
      };
    }
    if (this.acceptOp(":")) {
      const annotation = this.parseTest();
      const value = this.acceptOp("=") ? this.parseExprList({ allowStar: true }) : null;
      return { type: "AnnAssign", target: first, annotation, value, line: start.line, col: start.col };
    }
    return { type: "ExprStmt", value: first, line: start.line, col: start.col };
  }

  // ---------------------------------------------------------------- targets

  /** `for` and comprehension targets: a comma list of targets, stopping before `in`. */
  private parseTargetList(): Expr {
    const start = this.loc();
    const first = this.parseTarget();
    if (!this.atOp(",")) return first;
    const elts = [first];
    while (this.acceptOp(",")) {
      if (this.atKeyword("in") || this.atOp("=")) break;
      elts.push(this.parseTarget());
    }
    return { type: "Tuple", elts, line: start.line, col: start.col };
  }

  private parseTarget(): Expr {
    const start = this.loc();
    if (this.acceptOp("*"))
      return { type: "Starred", value: this.parseTarget(), double: false, line: start.line, col: start.col };
    return this.parseBitOr();
  }

  // ---------------------------------------------------------------- expressions

  private canStartExpression(): boolean {
    const token = this.peek();
    if (token.kind === "name") {
      return (
        !PY_KEYWORDS.has(token.value) ||
        token.value === "not" ||
        token.value === "lambda" ||
        token.value === "await" ||
        token.value === "yield"
      );
    }
    if (token.kind === "number" || token.kind === "string") return true;
    return token.kind === "op" && ["(", "[", "{", "-", "+", "~", "*", "**", "..."].includes(token.value);
  }

  /** A comma-separated expression list; more than one element (or a trailing comma) makes a Tuple. */
  private parseExprList(options: { allowStar: boolean }): Expr {
    const start = this.loc();
    const first = this.parseStarOrTest(options.allowStar);
    if (!this.atOp(",")) return first;
    const elts = [first];
    while (this.acceptOp(",")) {
      if (!this.canStartExpression()) break;
      elts.push(this.parseStarOrTest(options.allowStar));
    }
    return { type: "Tuple", elts, line: start.line, col: start.col };
  }

  private parseStarOrTest(allowStar: boolean): Expr {
    const start = this.loc();
    if (allowStar && this.acceptOp("*")) {
      return { type: "Starred", value: this.parseBitOr(), double: false, line: start.line, col: start.col };
    }
    if (this.atKeyword("yield")) {
      this.next();
      if (this.acceptKeyword("from")) return this.parseTest();
      if (this.atStatementEnd() || this.atOp(")"))
        return { type: "Constant", value: null, kind: "none", line: start.line, col: start.col };
      return this.parseExprList({ allowStar: true });
    }
    return this.parseNamedTest();
  }

  /** test with an optional walrus: `name := value`. */
  private parseNamedTest(): Expr {
    const start = this.loc();
    if (this.peek().kind === "name" && this.atOp(":=", 1)) {
      const target = this.expectName();
      this.next();
      return { type: "NamedExpr", target, value: this.parseTest(), line: start.line, col: start.col };
    }
    return this.parseTest();
  }

  private parseTest(): Expr {
    try {
      this.enter();
      return this.parseTestUnbounded();
    } finally {
      this.nesting.depth--;
    }
  }

  private parseTestUnbounded(): Expr {
    const simple = this.simplePrimary();
    if (simple !== null) return simple;
    const start = this.loc();
    if (this.atKeyword("lambda")) return this.parseLambda();
    const body = this.parseOrTest();
    if (this.atKeyword("if")) {
      this.next();
      const test = this.parseOrTest();
      this.expectKeyword("else");
      const orelse = this.parseTest();
      return { type: "IfExp", test, body, orelse, line: start.line, col: start.col };
    }
    return body;
  }

  /**
   * A name, number or string with its trailers (calls, subscripts, attributes) that no operator or
   * keyword continues: a call argument, a list item, `FilterDB(db, '...')` on the right of `=`. It is
   * parsed directly instead of through the ten levels of the precedence descent, which would return
   * the same node. When an operator does follow, the position is put back and the descent parses it,
   * so the tree (and any syntax error) is exactly the descent's.
   */
  private simplePrimary(): Expr | null {
    const token = this.tokens[this.pos]!;
    if (token.kind === "name") {
      if (PY_KEYWORDS.has(token.value)) return null;
    } else if (token.kind !== "number" && token.kind !== "string") {
      return null;
    }
    const start = this.pos;
    const expr = this.parseAtomWithTrailers();
    const next = this.peek();
    const continues =
      next.kind === "op"
        ? CONTINUES_EXPRESSION.has(next.value)
        : next.kind === "name" && CONTINUES_EXPRESSION_WORDS.has(next.value);
    if (!continues) return expr;
    this.pos = start;
    return null;
  }

  private parseLambda(): Expr {
    const start = this.loc();
    this.expectKeyword("lambda");
    const params = this.parseParams(":");
    this.expectOp(":");
    const body = this.parseTest();
    this.nesting.definesFunctions = true;
    return { type: "Lambda", params, body, line: start.line, col: start.col };
  }

  private parseOrTest(): Expr {
    const start = this.loc();
    const first = this.parseAndTest();
    if (!this.atKeyword("or")) return first;
    const values = [first];
    while (this.acceptKeyword("or")) values.push(this.parseAndTest());
    return { type: "BoolOp", op: "or", values, line: start.line, col: start.col };
  }

  private parseAndTest(): Expr {
    const start = this.loc();
    const first = this.parseNotTest();
    if (!this.atKeyword("and")) return first;
    const values = [first];
    while (this.acceptKeyword("and")) values.push(this.parseNotTest());
    return { type: "BoolOp", op: "and", values, line: start.line, col: start.col };
  }

  private parseNotTest(): Expr {
    try {
      this.enter();
      return this.parseNotTestUnbounded();
    } finally {
      this.nesting.depth--;
    }
  }

  private parseNotTestUnbounded(): Expr {
    const start = this.loc();
    if (this.acceptKeyword("not"))
      return { type: "UnaryOp", op: "not", operand: this.parseNotTest(), line: start.line, col: start.col };
    return this.parseComparison();
  }

  private parseComparison(): Expr {
    const start = this.loc();
    const left = this.parseBitOr();
    const ops: string[] = [];
    const comparators: Expr[] = [];
    for (;;) {
      const token = this.peek();
      let op: string | null = null;
      if (token.kind === "op" && COMPARISONS.has(token.value)) {
        op = token.value === "<>" ? "!=" : token.value;
        this.next();
      } else if (this.atKeyword("in")) {
        op = "in";
        this.next();
      } else if (this.atKeyword("not") && this.atKeyword("in", 1)) {
        op = "not in";
        this.pos += 2;
      } else if (this.atKeyword("is")) {
        this.next();
        op = this.acceptKeyword("not") ? "is not" : "is";
      }
      if (op === null) break;
      ops.push(op);
      comparators.push(this.parseBitOr());
    }
    if (ops.length === 0) return left;
    return { type: "Compare", left, ops, comparators, line: start.line, col: start.col };
  }

  /**
   * The binary operators from `|` down to `*` (CPython's bitwise-or to term levels), left-associative,
   * by precedence climbing: one call per operand instead of one per level, with the same tree and node
   * positions as a level-by-level descent.
   */
  private parseBitOr(): Expr {
    return this.parseBinary(1);
  }

  private parseBinary(minLevel: number): Expr {
    const start = this.peek();
    let left = this.parseFactor();
    for (;;) {
      const token = this.peek();
      const level = token.kind === "op" ? (BINARY_LEVELS.get(token.value) ?? 0) : 0;
      if (level < minLevel) return left;
      this.next();
      const right = this.parseBinary(level + 1);
      left = { type: "BinOp", op: token.value, left, right, line: start.line, col: start.col };
    }
  }

  private parseFactor(): Expr {
    try {
      this.enter();
      return this.parseFactorUnbounded();
    } finally {
      this.nesting.depth--;
    }
  }

  private parseFactorUnbounded(): Expr {
    const start = this.loc();
    const token = this.peek();
    if (token.kind === "op" && (token.value === "-" || token.value === "+" || token.value === "~")) {
      this.next();
      return {
        type: "UnaryOp",
        op: token.value,
        operand: this.parseFactor(),
        line: start.line,
        col: start.col,
      };
    }
    return this.parsePower();
  }

  private parsePower(): Expr {
    const start = this.loc();
    this.acceptKeyword("await");
    const base = this.parseAtomWithTrailers();
    if (this.acceptOp("**")) {
      return {
        type: "BinOp",
        op: "**",
        left: base,
        right: this.parseFactor(),
        line: start.line,
        col: start.col,
      };
    }
    return base;
  }

  private parseAtomWithTrailers(): Expr {
    let expr = this.parseAtom();
    for (;;) {
      const start = this.loc();
      if (this.acceptOp("(")) {
        const { args, keywords } = this.parseArguments();
        this.expectOp(")");
        expr = { type: "Call", func: expr, args, keywords, line: expr.line, col: expr.col };
      } else if (this.acceptOp("[")) {
        const index = this.parseSubscriptList();
        this.expectOp("]");
        expr = { type: "Subscript", value: expr, index, line: expr.line, col: expr.col };
      } else if (this.atOp(".")) {
        this.next();
        const token = this.peek();
        if (token.kind !== "name") throw this.error("expected an attribute name");
        this.next();
        expr = { type: "Attribute", value: expr, attr: token.value, line: start.line, col: start.col };
      } else {
        return expr;
      }
    }
  }

  private parseArguments(): { args: Expr[]; keywords: Keyword[] } {
    const args: Expr[] = [];
    const keywords: Keyword[] = [];
    while (!this.atOp(")")) {
      const start = this.loc();
      if (this.acceptOp("**")) {
        keywords.push({ name: null, value: this.parseTest() });
      } else if (this.acceptOp("*")) {
        args.push({
          type: "Starred",
          value: this.parseTest(),
          double: false,
          line: start.line,
          col: start.col,
        });
      } else if (this.peek().kind === "name" && this.atOp("=", 1) && !PY_KEYWORDS.has(this.peek().value)) {
        const name = this.next().value;
        this.next();
        keywords.push({ name, value: this.parseTest() });
      } else {
        const value = this.parseNamedTest();
        if (this.atComprehensionFor()) {
          args.push(this.parseComprehension({ kind: "generator", elt: value, value: null, start }));
        } else {
          args.push(value);
        }
      }
      if (!this.acceptOp(",")) break;
    }
    return { args, keywords };
  }

  private parseSubscriptList(): Expr {
    const start = this.loc();
    const first = this.parseSubscript();
    if (!this.atOp(",")) return first;
    const elts = [first];
    while (this.acceptOp(",")) {
      if (this.atOp("]")) break;
      elts.push(this.parseSubscript());
    }
    return { type: "Tuple", elts, line: start.line, col: start.col };
  }

  private parseSubscript(): Expr {
    const start = this.loc();
    let lower: Expr | null = null;
    if (!this.atOp(":")) {
      lower = this.parseStarOrTest(true);
      if (!this.atOp(":")) return lower;
    }
    this.expectOp(":");
    const upper = this.atOp(":") || this.atOp("]") || this.atOp(",") ? null : this.parseTest();
    let step: Expr | null = null;
    if (this.acceptOp(":")) step = this.atOp("]") || this.atOp(",") ? null : this.parseTest();
    return { type: "Slice", lower, upper, step, line: start.line, col: start.col };
  }

  /** At a comprehension's `for` or `async for`. */
  private atComprehensionFor(): boolean {
    return this.atKeyword("for") || (this.atKeyword("async") && this.atKeyword("for", 1));
  }

  /**
   * The rest of a comprehension whose element (and, for a dict, value) was just read: its generators,
   * then the closing bracket when it has its own (a call's lone generator argument shares the call's).
   */
  private parseComprehension(options: {
    kind: "list" | "set" | "generator" | "dict";
    elt: Expr;
    value: Expr | null;
    start: Loc;
    close?: string;
  }): Expr {
    const { kind, elt, value, start, close } = options;
    const generators = this.parseGenerators();
    if (close !== undefined) this.expectOp(close);
    return { type: "Comprehension", kind, elt, value, generators, line: start.line, col: start.col };
  }

  private parseGenerators(): Generator[] {
    const generators: Generator[] = [];
    while (this.atComprehensionFor()) {
      this.acceptKeyword("async");
      this.next();
      const target = this.parseTargetList();
      this.expectKeyword("in");
      const iter = this.parseOrTest();
      const ifs: Expr[] = [];
      while (this.acceptKeyword("if")) ifs.push(this.parseOrTestNoCond());
      generators.push({ target, iter, ifs });
    }
    return generators;
  }

  private parseOrTestNoCond(): Expr {
    if (this.atKeyword("lambda")) return this.parseLambda();
    return this.parseOrTest();
  }

  private parseAtom(): Expr {
    const token = this.peek();
    const start = this.loc(token);
    if (token.kind === "name") {
      if (token.value === "None") {
        this.next();
        return { type: "Constant", value: null, kind: "none", line: start.line, col: start.col };
      }
      if (token.value === "True" || token.value === "False") {
        this.next();
        return {
          type: "Constant",
          value: token.value === "True",
          kind: "bool",
          line: start.line,
          col: start.col,
        };
      }
      if (PY_KEYWORDS.has(token.value)) throw this.error("unexpected keyword");
      this.next();
      return { type: "Name", id: token.value, line: start.line, col: start.col };
    }
    if (token.kind === "number") {
      this.next();
      return numberConstant(token.value, start);
    }
    if (token.kind === "string") return this.parseStrings();
    if (token.kind === "op") {
      switch (token.value) {
        case "(":
          return this.parseParenthesised();
        case "[":
          return this.parseListDisplay();
        case "{":
          return this.parseBraceDisplay();
        case "...":
          this.next();
          return { type: "Constant", value: null, kind: "ellipsis", line: start.line, col: start.col };
      }
    }
    throw this.error("expected an expression");
  }

  private parseStrings(): Expr {
    const start = this.loc();
    // One plain string literal (the usual case): its text, without the list of parts.
    const token = this.tokens[this.pos]!;
    if (token.kind === "string" && token.prefix === "" && this.tokens[this.pos + 1]!.kind !== "string") {
      this.pos++;
      return { type: "Constant", value: token.value, kind: "str", line: token.line, col: token.col };
    }
    const parts: FStringPart[] = [];
    let anyF = false;
    let bytes = false;
    while (this.atKind("string")) {
      const token = this.next();
      const prefix = token.prefix ?? "";
      if (prefix.includes("b")) bytes = true;
      if (prefix.includes("f")) {
        anyF = true;
        parts.push(
          ...parseFStringBody({
            body: token.body ?? token.value,
            raw: prefix.includes("r"),
            loc: token,
            nesting: this.nesting,
          }),
        );
      } else {
        parts.push({ kind: "text", text: token.value });
      }
    }
    if (!anyF) {
      const text = parts.map((part) => (part.kind === "text" ? part.text : "")).join("");
      return {
        type: "Constant",
        value: text,
        kind: bytes ? "bytes" : "str",
        line: start.line,
        col: start.col,
      };
    }
    return { type: "FString", parts: mergeTextParts(parts), line: start.line, col: start.col };
  }

  private parseParenthesised(): Expr {
    const start = this.loc();
    this.expectOp("(");
    if (this.acceptOp(")")) return { type: "Tuple", elts: [], line: start.line, col: start.col };
    const first = this.parseStarOrTest(true);
    if (this.atComprehensionFor()) {
      return this.parseComprehension({ kind: "generator", elt: first, value: null, start, close: ")" });
    }
    if (this.acceptOp(")")) return first;
    const elts = [first];
    while (this.acceptOp(",")) {
      if (this.atOp(")")) break;
      elts.push(this.parseStarOrTest(true));
    }
    this.expectOp(")");
    return { type: "Tuple", elts, line: start.line, col: start.col };
  }

  private parseListDisplay(): Expr {
    const start = this.loc();
    this.expectOp("[");
    if (this.acceptOp("]")) return { type: "List", elts: [], line: start.line, col: start.col };
    const first = this.parseStarOrTest(true);
    if (this.atComprehensionFor()) {
      return this.parseComprehension({ kind: "list", elt: first, value: null, start, close: "]" });
    }
    const elts = [first];
    while (this.acceptOp(",")) {
      if (this.atOp("]")) break;
      elts.push(this.parseStarOrTest(true));
    }
    this.expectOp("]");
    return { type: "List", elts, line: start.line, col: start.col };
  }

  private parseBraceDisplay(): Expr {
    const start = this.loc();
    this.expectOp("{");
    if (this.acceptOp("}")) return { type: "Dict", keys: [], values: [], line: start.line, col: start.col };
    if (this.acceptOp("**")) {
      return this.parseDictRest(start, null, this.parseBitOr());
    }
    const first = this.parseStarOrTest(true);
    if (this.acceptOp(":")) {
      const value = this.parseTest();
      if (this.atComprehensionFor()) {
        return this.parseComprehension({ kind: "dict", elt: first, value, start, close: "}" });
      }
      return this.parseDictRest(start, first, value);
    }
    if (this.atComprehensionFor()) {
      return this.parseComprehension({ kind: "set", elt: first, value: null, start, close: "}" });
    }
    const elts = [first];
    while (this.acceptOp(",")) {
      if (this.atOp("}")) break;
      elts.push(this.parseStarOrTest(true));
    }
    this.expectOp("}");
    return { type: "Set", elts, line: start.line, col: start.col };
  }

  private parseDictRest(start: Loc, firstKey: Expr | null, firstValue: Expr): Expr {
    const keys: (Expr | null)[] = [firstKey];
    const values: Expr[] = [firstValue];
    while (this.acceptOp(",")) {
      if (this.atOp("}")) break;
      if (this.acceptOp("**")) {
        keys.push(null);
        values.push(this.parseBitOr());
        continue;
      }
      keys.push(this.parseTest());
      this.expectOp(":");
      values.push(this.parseTest());
    }
    this.expectOp("}");
    return { type: "Dict", keys, values, line: start.line, col: start.col };
  }
}

function numberConstant(text: string, loc: Loc): Expr {
  const clean = text.replace(/_/g, "");
  if (/[jJ]$/.test(clean))
    return {
      type: "Constant",
      value: Number(clean.slice(0, -1)) || 0,
      kind: "complex",
      line: loc.line,
      col: loc.col,
    };
  if (/^0[xX]/.test(clean))
    return {
      type: "Constant",
      value: Number.parseInt(clean.slice(2), 16),
      kind: "int",
      line: loc.line,
      col: loc.col,
    };
  if (/^0[oO]/.test(clean))
    return {
      type: "Constant",
      value: Number.parseInt(clean.slice(2), 8),
      kind: "int",
      line: loc.line,
      col: loc.col,
    };
  if (/^0[bB]/.test(clean))
    return {
      type: "Constant",
      value: Number.parseInt(clean.slice(2), 2),
      kind: "int",
      line: loc.line,
      col: loc.col,
    };
  const isFloat = /[.eE]/.test(clean);
  return {
    type: "Constant",
    value: Number(clean),
    kind: isFloat ? "float" : "int",
    line: loc.line,
    col: loc.col,
  };
}

function mergeTextParts(parts: FStringPart[]): FStringPart[] {
  const merged: FStringPart[] = [];
  for (const part of parts) {
    const last = merged[merged.length - 1];
    if (part.kind === "text" && last?.kind === "text") {
      merged[merged.length - 1] = { kind: "text", text: last.text + part.text };
    } else if (part.kind !== "text" || part.text !== "") {
      merged.push(part);
    }
  }
  return merged;
}

/**
 * Splits an f-string body into literal text and `{expr!conv:spec}` fields. Doubled braces are literal;
 * the expression runs to the first `!`, `:` or `}` outside brackets and quotes; the spec may itself
 * contain nested fields.
 */
export function parseFStringBody(options: {
  body: string;
  raw: boolean;
  loc: Loc;
  /** The enclosing parse's descents (a field nests inside the code around it). */
  nesting?: Nesting;
}): FStringPart[] {
  const { body, raw, loc } = options;
  const nesting = options.nesting ?? { depth: 0, tokens: 0, definesFunctions: false };
  const parts: FStringPart[] = [];
  let text = "";
  let i = 0;
  while (i < body.length) {
    const ch = body[i]!;
    if (ch === "{" && body[i + 1] === "{") {
      text += "{";
      i += 2;
      continue;
    }
    if (ch === "}" && body[i + 1] === "}") {
      text += "}";
      i += 2;
      continue;
    }
    if (ch === "}")
      throw syntaxError({ message: "f-string: single '}' is not allowed", line: loc.line, col: loc.col });
    if (ch !== "{") {
      text += ch;
      i++;
      continue;
    }
    if (text !== "") parts.push({ kind: "text", text: raw ? text : decodePythonEscapes({ body: text }) });
    text = "";
    const field = readField(body, i + 1, loc, nesting);
    parts.push(...field.parts);
    i = field.end;
  }
  if (text !== "") parts.push({ kind: "text", text: raw ? text : decodePythonEscapes({ body: text }) });
  return parts;
}

function readField(
  body: string,
  from: number,
  loc: Loc,
  nesting: Nesting,
): { parts: FStringPart[]; end: number } {
  let i = from;
  let level = 0;
  let quote: string | null = null;
  for (; i < body.length; i++) {
    const ch = body[i]!;
    if (quote) {
      if (ch === quote) quote = null;
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      continue;
    }
    if (ch === "(" || ch === "[" || ch === "{") level++;
    else if (ch === ")" || ch === "]" || (ch === "}" && level > 0)) level--;
    else if (level === 0 && (ch === "}" || ch === ":" || (ch === "!" && body[i + 1] !== "="))) break;
  }
  if (i >= body.length)
    throw syntaxError({ message: "f-string: expecting '}'", line: loc.line, col: loc.col });
  let exprText = body.slice(from, i);
  // `{x=}` prints the expression text and "=" before the value (its repr unless converted).
  const selfDocumenting = /=\s*$/.test(exprText) && !/[=!<>]=\s*$/.test(exprText);
  const label = selfDocumenting ? exprText : "";
  if (selfDocumenting) exprText = exprText.replace(/=\s*$/, "");
  if (exprText.trim() === "")
    throw syntaxError({ message: "f-string: empty expression not allowed", line: loc.line, col: loc.col });
  const expr = parsePythonExpression({ source: exprText, nesting });
  let conversion: string | null = selfDocumenting ? "r" : null;
  if (body[i] === "!") {
    conversion = body[i + 1] ?? null;
    i += 2;
  }
  let spec: FStringPart[] = [];
  if (body[i] === ":") {
    // The spec runs to the matching "}" and may hold nested fields.
    let j = i + 1;
    let nested = 0;
    for (; j < body.length; j++) {
      if (body[j] === "{") nested++;
      else if (body[j] === "}") {
        if (nested === 0) break;
        nested--;
      }
    }
    spec = parseFStringBody({ body: body.slice(i + 1, j), raw: true, loc, nesting });
    i = j;
  }
  if (body[i] !== "}")
    throw syntaxError({ message: "f-string: expecting '}'", line: loc.line, col: loc.col });
  const field: FStringPart = { kind: "field", expr, conversion, spec };
  return { parts: label === "" ? [field] : [{ kind: "text", text: label }, field], end: i + 1 };
}

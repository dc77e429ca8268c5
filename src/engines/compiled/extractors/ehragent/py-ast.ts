/**
 * AST node types for the Python subset parsed by py-parser.ts. The shapes follow CPython's `ast` module
 * closely enough that anyone who knows it can read them, trimmed to what the abstract interpreter needs.
 */

export interface Loc {
  line: number;
  col: number;
}

export interface Keyword {
  /** null for `**mapping`. */
  name: string | null;
  value: Expr;
}

export interface Param {
  name: string;
  kind: "normal" | "varargs" | "kwargs";
  default?: Expr;
}

export interface Generator {
  target: Expr;
  iter: Expr;
  ifs: Expr[];
}

/** One piece of an f-string: literal text or a replacement field. */
export type FStringPart =
  | { kind: "text"; text: string }
  | { kind: "field"; expr: Expr; conversion: string | null; spec: FStringPart[] };

export type Expr = Loc &
  (
    | { type: "Name"; id: string }
    | { type: "Constant"; value: string | number | boolean | null; kind: ConstantKind }
    | { type: "FString"; parts: FStringPart[] }
    | { type: "BinOp"; op: string; left: Expr; right: Expr }
    | { type: "UnaryOp"; op: string; operand: Expr }
    | { type: "BoolOp"; op: "and" | "or"; values: Expr[] }
    | { type: "Compare"; left: Expr; ops: string[]; comparators: Expr[] }
    | { type: "Call"; func: Expr; args: Expr[]; keywords: Keyword[] }
    | { type: "Attribute"; value: Expr; attr: string }
    | { type: "Subscript"; value: Expr; index: Expr }
    | { type: "Slice"; lower: Expr | null; upper: Expr | null; step: Expr | null }
    | { type: "List"; elts: Expr[] }
    | { type: "Tuple"; elts: Expr[] }
    | { type: "Set"; elts: Expr[] }
    | { type: "Dict"; keys: (Expr | null)[]; values: Expr[] }
    | {
        type: "Comprehension";
        kind: "list" | "set" | "generator" | "dict";
        elt: Expr;
        /** Dict comprehensions only: the value expression (elt is the key). */
        value: Expr | null;
        generators: Generator[];
      }
    | { type: "Lambda"; params: Param[]; body: Expr }
    | { type: "IfExp"; test: Expr; body: Expr; orelse: Expr }
    | { type: "Starred"; value: Expr; double: boolean }
    | { type: "NamedExpr"; target: string; value: Expr }
  );

export type ConstantKind = "str" | "bytes" | "int" | "float" | "complex" | "bool" | "none" | "ellipsis";

export interface ExceptHandler {
  exceptionType: Expr | null;
  name: string | null;
  body: Stmt[];
}

export type Stmt = Loc &
  (
    | { type: "Assign"; targets: Expr[]; value: Expr }
    | { type: "AugAssign"; target: Expr; op: string; value: Expr }
    | { type: "AnnAssign"; target: Expr; annotation: Expr; value: Expr | null }
    | { type: "ExprStmt"; value: Expr }
    | { type: "If"; test: Expr; body: Stmt[]; orelse: Stmt[] }
    | { type: "For"; target: Expr; iter: Expr; body: Stmt[]; orelse: Stmt[] }
    | { type: "While"; test: Expr; body: Stmt[]; orelse: Stmt[] }
    | { type: "FunctionDef"; name: string; params: Param[]; body: Stmt[]; decorators: Expr[] }
    | { type: "ClassDef"; name: string; bases: Expr[]; body: Stmt[] }
    | { type: "Return"; value: Expr | null }
    | { type: "Try"; body: Stmt[]; handlers: ExceptHandler[]; orelse: Stmt[]; finalbody: Stmt[] }
    | { type: "With"; items: { context: Expr; target: Expr | null }[]; body: Stmt[] }
    /**
     * `import a.b as c` (from: null, names [{ name: "a.b", asname: "c" }]) or `from a import b as c`
     * (from: "a"); `from a import *` has the one name "*". Relative imports keep their leading dots.
     */
    | { type: "Import"; from: string | null; names: { name: string; asname: string | null }[] }
    | { type: "Pass" }
    | { type: "Break" }
    | { type: "Continue" }
    | { type: "Raise"; exc: Expr | null }
    | { type: "Global"; kind: "global" | "nonlocal"; names: string[] }
    | { type: "Del"; targets: Expr[] }
    | { type: "Assert"; test: Expr; msg: Expr | null }
  );

export interface Module {
  body: Stmt[];
  /**
   * What parsePython saw in the source, for the interpreter to skip work a program cannot need: false
   * when the code defines no function, class or lambda (f-string fields included); false when no
   * character or escape Python and JavaScript disagree about as white space appears. Absent means
   * "maybe" (always safe).
   */
  mayDefineFunctions?: boolean;
  mayHaveUnusualText?: boolean;
}

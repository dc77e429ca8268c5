import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isWardenError } from "../../../../core/errors.js";
import type { Expr, Stmt } from "./py-ast.js";
import { LEVELS_PER_TOKEN, type Nesting, parsePython, parsePythonExpression } from "./py-parser.js";
import { tokenizePython } from "./py-tokenizer.js";

/** A compact, position-free rendering of an expression, for assertions. */
function show(expr: Expr | null): string {
  if (expr === null) return "_";
  switch (expr.type) {
    case "Name":
      return expr.id;
    case "Constant":
      if (expr.value === null) return expr.kind === "none" ? "None" : "...";
      return typeof expr.value === "string" ? JSON.stringify(expr.value) : String(expr.value);
    case "FString":
      return `f[${expr.parts.map((p) => (p.kind === "text" ? JSON.stringify(p.text) : `{${show(p.expr)}${p.conversion ? `!${p.conversion}` : ""}${p.spec.length ? `:${p.spec.map((s) => (s.kind === "text" ? s.text : `{${show(s.expr)}}`)).join("")}` : ""}}`)).join(",")}]`;
    case "BinOp":
      return `(${show(expr.left)} ${expr.op} ${show(expr.right)})`;
    case "UnaryOp":
      return `(${expr.op} ${show(expr.operand)})`;
    case "BoolOp":
      return `(${expr.values.map(show).join(` ${expr.op} `)})`;
    case "Compare":
      return `(${show(expr.left)}${expr.ops.map((op, i) => ` ${op} ${show(expr.comparators[i]!)}`).join("")})`;
    case "Call":
      return `${show(expr.func)}(${[...expr.args.map(show), ...expr.keywords.map((k) => `${k.name ?? "**"}=${show(k.value)}`)].join(", ")})`;
    case "Attribute":
      return `${show(expr.value)}.${expr.attr}`;
    case "Subscript":
      return `${show(expr.value)}[${show(expr.index)}]`;
    case "Slice":
      return `${show(expr.lower)}:${show(expr.upper)}:${show(expr.step)}`;
    case "List":
      return `[${expr.elts.map(show).join(", ")}]`;
    case "Tuple":
      return `(${expr.elts.map(show).join(", ")},)`;
    case "Set":
      return `{${expr.elts.map(show).join(", ")}}`;
    case "Dict":
      return `{${expr.keys.map((k, i) => `${k ? show(k) : "**"}: ${show(expr.values[i]!)}`).join(", ")}}`;
    case "Comprehension":
      return `${expr.kind}<${show(expr.elt)}${expr.value ? `: ${show(expr.value)}` : ""}${expr.generators.map((g) => ` for ${show(g.target)} in ${show(g.iter)}${g.ifs.map((c) => ` if ${show(c)}`).join("")}`).join("")}>`;
    case "Lambda":
      return `lambda ${expr.params.map((p) => p.name).join(", ")}: ${show(expr.body)}`;
    case "IfExp":
      return `(${show(expr.body)} if ${show(expr.test)} else ${show(expr.orelse)})`;
    case "Starred":
      return `*${show(expr.value)}`;
    case "NamedExpr":
      return `(${expr.target} := ${show(expr.value)})`;
  }
}

const e = (source: string) => show(parsePythonExpression({ source }));
const body = (source: string): Stmt[] => parsePython({ source }).body;

describe("parsePython expressions", () => {
  it("follows Python precedence and associativity", () => {
    expect(e("a + b * c ** -d ** e")).toBe("(a + (b * (c ** (- (d ** e)))))");
    expect(e("not a == b and c or d")).toBe("(((not (a == b)) and c) or d)");
    expect(e("a < b <= c != d")).toBe("(a < b <= c != d)");
    expect(e("x not in y and z is not None")).toBe("((x not in y) and (z is not None))");
    expect(e("a - b - c")).toBe("((a - b) - c)");
    expect(e("a if b else c if d else e")).toBe("(a if b else (c if d else e))");
  });

  it("parses calls with positional, keyword, starred and generator arguments", () => {
    expect(e("f(a, 'b', key=lambda x: x[1], *rest, **kw)")).toBe(
      'f(a, "b", *rest, key=lambda x: x[1], **=kw)',
    );
    expect(e("sum(1 for t in ts if t.year >= 2104)")).toBe(
      "sum(generator<1 for t in ts if (t.year >= 2104)>)",
    );
  });

  it("parses attributes, method calls and subscripts with slices", () => {
    expect(e("'{}={}'.format(col, v).strip()")).toBe('"{}={}".format(col, v).strip()');
    expect(e("db['a'].values[0].split('-')[0]")).toBe('db["a"].values[0].split("-")[0]');
    expect(e("xs[1:], xs[::2], xs[:-1], m[:, 'c']")).toBe(
      '(xs[1:_:_], xs[_:_:2], xs[_:(- 1):_], m[(_:_:_, "c",)],)',
    );
  });

  it("concatenates adjacent strings and parses f-strings", () => {
    expect(e("'a' \"b\" '''c'''")).toBe('"abc"');
    expect(e("f'id={pid!r:>{width}} {{literal}}' 'tail'")).toBe('f["id=",{pid!r:>{width}}," {literal}tail"]');
    expect(e("f\"{d['k']}|{a + b}|{x=}\"")).toBe('f[{d["k"]},"|",{(a + b)},"|x=",{x!r}]');
  });

  it("parses displays and comprehensions", () => {
    expect(e("[1, 'a', (2,), {3}, {'k': v, **rest}, ()]")).toBe(
      '[1, "a", (2,), {3}, {"k": v, **: rest}, (,)]',
    );
    expect(e("{k: v for k, v in d.items() if v}")).toBe("dict<k: v for (k, v,) in d.items() if v>");
    expect(e("[x for xs in xss for x in xs]")).toBe("list<x for xs in xss for x in xs>");
    expect(e("{x for x in y}")).toBe("set<x for x in y>");
  });

  it("parses % formatting and walrus", () => {
    expect(e("'%s=%d' % (col, 3)")).toBe('("%s=%d" % (col, 3,))');
    expect(e("(n := len(xs)) > 2")).toBe("((n := len(xs)) > 2)");
  });
});

describe("parsePython statements", () => {
  it("parses assignments, tuple targets, augmented and annotated assignments", () => {
    const stmts = body("a = b = 1\nx, (y, *z) = t\ncount += 1\nn: int = 3\nd['k'] = v\n");
    expect(stmts.map((s) => s.type)).toEqual(["Assign", "Assign", "AugAssign", "AnnAssign", "Assign"]);
    const first = stmts[0] as Extract<Stmt, { type: "Assign" }>;
    expect(first.targets.map(show)).toEqual(["a", "b"]);
    const second = stmts[1] as Extract<Stmt, { type: "Assign" }>;
    expect(show(second.targets[0]!)).toBe("(x, (y, *z,),)");
  });

  it("parses compound statements and their bodies", () => {
    const source = [
      "import datetime",
      "from collections import Counter as C, defaultdict",
      "def f(a, b=2, *args, c=3, **kw):",
      "    '''doc'''",
      "    for i, row in enumerate(rows):",
      "        if row > 1:",
      "            continue",
      "        elif row:",
      "            break",
      "        else:",
      "            pass",
      "    else:",
      "        return None",
      "    while True: x = 1; y = 2",
      "    try:",
      "        g()",
      "    except (KeyError, ValueError) as err:",
      "        raise",
      "    except:",
      "        pass",
      "    finally:",
      "        del x",
      "    with open(p) as fh, ctx():",
      "        return a",
      "@decorator",
      "class K(Base):",
      "    attr = 1",
      "assert ok, 'message'",
      "global g",
    ].join("\n");
    const stmts = body(source);
    expect(stmts.map((s) => s.type)).toEqual([
      "Import",
      "Import",
      "FunctionDef",
      "ClassDef",
      "Assert",
      "Global",
    ]);
    const def = stmts[2] as Extract<Stmt, { type: "FunctionDef" }>;
    expect(def.params.map((p) => `${p.kind}:${p.name}${p.default ? "=" : ""}`)).toEqual([
      "normal:a",
      "normal:b=",
      "varargs:args",
      "normal:c=",
      "kwargs:kw",
    ]);
    expect(def.body.map((s) => s.type)).toEqual(["ExprStmt", "For", "While", "Try", "With"]);
    const loop = def.body[1] as Extract<Stmt, { type: "For" }>;
    expect(show(loop.target)).toBe("(i, row,)");
    expect(loop.orelse.map((s) => s.type)).toEqual(["Return"]);
    const branch = loop.body[0] as Extract<Stmt, { type: "If" }>;
    expect(branch.orelse[0]!.type).toBe("If");
    const tryStmt = def.body[3] as Extract<Stmt, { type: "Try" }>;
    expect(tryStmt.handlers.map((h) => h.name)).toEqual(["err", null]);
    expect(tryStmt.finalbody[0]!.type).toBe("Del");
  });

  it("accepts tabs, mixed blank lines and a trailing expression without newline", () => {
    const stmts = body(
      "for p in ps:\n\tdb = FilterDB(x, 'a={}'.format(p))\n\n\tv = GetValue(db, 'b')\nanswer",
    );
    expect(stmts.map((s) => s.type)).toEqual(["For", "ExprStmt"]);
    expect((stmts[0] as Extract<Stmt, { type: "For" }>).body).toHaveLength(2);
  });

  it("parses multi-line calls and strings with nasty content", () => {
    const stmts = body(
      "db = FilterDB(\n    patient_db,\n    'uniquepid=\"0\\'1\"||max(x)'  # comment ) (\n)\nq = \"it's a || b\" + '\\\\'\n",
    );
    const call = (stmts[0] as Extract<Stmt, { type: "Assign" }>).value;
    expect(show(call)).toBe(`FilterDB(patient_db, ${JSON.stringify('uniquepid="0\'1"||max(x)')})`);
    expect(show((stmts[1] as Extract<Stmt, { type: "Assign" }>).value)).toBe(
      `(${JSON.stringify("it's a || b")} + "\\\\")`,
    );
  });

  it("reports syntax errors with a position", () => {
    for (const source of [
      "x = (1,\n",
      "def f(:\n  pass",
      "if x\n  y = 1",
      "x = f'{}'",
      "for in x:\n  pass",
      "a = 1 +",
    ]) {
      try {
        parsePython({ source });
        expect.unreachable(`parsed ${JSON.stringify(source)}`);
      } catch (error) {
        expect(isWardenError(error) && error.code).toBe("EXTRACTION_FAILED");
        expect((error as Error).message).toMatch(/line \d+, column \d+/);
      }
    }
  });
});

// ----------------------------------------------------------------- property: precedence round trip

type Tree = { leaf: string } | { op: string; left: Tree; right: Tree };

const BINARY_PRECEDENCE: Record<string, number> = {
  or: 1,
  and: 2,
  "<": 4,
  "|": 5,
  "+": 8,
  "-": 8,
  "*": 9,
  "%": 9,
  "**": 11,
};

function render(tree: Tree): string {
  if ("leaf" in tree) return tree.leaf;
  const level = BINARY_PRECEDENCE[tree.op]!;
  const side = (child: Tree, isRight: boolean) => {
    if ("leaf" in child) return child.leaf;
    const childLevel = BINARY_PRECEDENCE[child.op]!;
    const rightAssoc = tree.op === "**";
    const needs =
      childLevel < level ||
      (childLevel === level && (rightAssoc ? !isRight : isRight)) ||
      (child.op === "<" && tree.op === "<");
    return needs ? `(${render(child)})` : render(child);
  };
  return `${side(tree.left, false)} ${tree.op} ${side(tree.right, true)}`;
}

function canonical(tree: Tree): string {
  if ("leaf" in tree) return tree.leaf;
  const l = canonical(tree.left);
  const r = canonical(tree.right);
  if (tree.op === "and" || tree.op === "or") return `(${l} ${tree.op} ${r})`;
  return `(${l} ${tree.op} ${r})`;
}

/** Parsed expressions rendered the same way (flattening BoolOp into nested pairs). */
function canonicalExpr(expr: Expr): string {
  switch (expr.type) {
    case "Name":
      return expr.id;
    case "BinOp":
      return `(${canonicalExpr(expr.left)} ${expr.op} ${canonicalExpr(expr.right)})`;
    case "Compare":
      return `(${canonicalExpr(expr.left)} ${expr.ops[0]} ${canonicalExpr(expr.comparators[0]!)})`;
    case "BoolOp":
      return expr.values.map(canonicalExpr).reduce((acc, next) => `(${acc} ${expr.op} ${next})`);
    default:
      return `?${expr.type}`;
  }
}

const treeArb: fc.Arbitrary<Tree> = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom("a", "b", "c", "d").map((leaf) => ({ leaf })),
    fc.record({
      op: fc.constantFrom(...Object.keys(BINARY_PRECEDENCE)),
      left: tie("tree"),
      right: tie("tree"),
    }),
  ),
})).tree;

describe("parsePython precedence (property)", () => {
  it("parses minimally parenthesised expressions back to the same tree", () => {
    fc.assert(
      fc.property(treeArb, (tree) => {
        const source = render(tree);
        expect(canonicalExpr(parsePythonExpression({ source }))).toBe(canonical(tree));
      }),
      { numRuns: 300 },
    );
  });
});

describe("parsePython bounds", () => {
  const rejects = (source: string) => {
    let caught: unknown;
    try {
      parsePython({ source });
    } catch (error) {
      caught = error;
    }
    expect(isWardenError(caught)).toBe(true);
    expect(String((caught as Error).message)).toMatch(/nests deeper than/);
  };

  it("refuses nesting past 200 levels with a syntax error, not a RangeError", () => {
    rejects(`x = ${"(".repeat(100_000)}1${")".repeat(100_000)}`);
    rejects(`x = ${"-".repeat(100_000)}1`);
    rejects(`x = ${"not ".repeat(50_000)}1`);
    rejects(`x = ${"[".repeat(10_000)}${"]".repeat(10_000)}`);
  });

  it("refuses syntax trees deeper than 1000 levels (long chains)", () => {
    rejects(`x = a${"[0]".repeat(30_000)}`);
    rejects(`x = 1${" + 1".repeat(30_000)}`);
  });

  it("still parses nesting real code has", () => {
    expect(() => parsePython({ source: `x = ${"(".repeat(50)}1${")".repeat(50)}` })).not.toThrow();
    expect(() => parsePython({ source: `x = 1${" + 1".repeat(200)}` })).not.toThrow();
  });
});

/** The depth of a syntax tree as parsePython bounds it: every object and array is a level. */
function treeDepth(node: unknown): number {
  if (typeof node !== "object" || node === null) return -1;
  let deepest = -1;
  for (const child of Array.isArray(node) ? node : Object.values(node))
    deepest = Math.max(deepest, treeDepth(child));
  return deepest + 1;
}

/** `wrap` applied `times` times to `seed`. */
const nest = (times: number, seed: string, wrap: (inner: string) => string): string => {
  let text = seed;
  for (let i = 0; i < times; i++) text = wrap(text);
  return text;
};

describe("LEVELS_PER_TOKEN (parsePython walks only trees of enough tokens to be too deep)", () => {
  // The deepest shape each construct builds per token: the bound must hold on every one.
  const expressions = [
    nest(60, "x", (e) => `[${e}]`),
    nest(60, "x", (e) => `[*${e}]`),
    nest(60, "x", (e) => `{${e}}`),
    nest(60, "x", (e) => `{1: ${e}}`),
    nest(60, "x", (e) => `{**${e}}`),
    nest(60, "x", (e) => `(${e},)`),
    nest(60, "x", (e) => `f(${e})`),
    nest(60, "x", (e) => `f(a=${e})`),
    nest(60, "x", (e) => `f(**${e})`),
    nest(60, "x", (e) => `f(*${e})`),
    nest(40, "x", (e) => `f(${e} for y in z)`),
    nest(30, "x", (e) => `[y for y in ${e} if ${e.length > 40 ? "c" : e}]`),
    nest(60, "x", (e) => `a[${e}]`),
    nest(60, "x", (e) => `a[${e}:]`),
    nest(60, "x", (e) => `a[::${e}]`),
    nest(60, "x", (e) => `a[${e},]`),
    nest(60, "x", (e) => `lambda: ${e}`),
    nest(60, "x", (e) => `lambda a=${e}: a`),
    nest(60, "x", (e) => `a if b else ${e}`),
    nest(60, "x", (e) => `(y := ${e})`),
    nest(60, "x", (e) => `${e} ** 2`),
    nest(60, "x", (e) => `2 ** ${e}`),
    nest(60, "x", (e) => `not ${e}`),
    nest(150, "x", (e) => `-${e}`),
    `a${"[0]".repeat(100)}`,
    `a${".b".repeat(100)}`,
    `a${"()".repeat(100)}`,
    `1${" + 1".repeat(100)}`,
    `f"""{f'''{f"{f'{x}'}"}'''}"""`,
    `f"{${nest(40, "x", (e) => `x:{${e}}`)}}"`,
    `f"{x!r:{y}>{z}}"`,
    `f"{f'{x}'}"`,
    `f"{x=}"`,
  ];
  it.each(expressions.map((source) => [source.slice(0, 40), source]))("holds on %s…", (_, source) => {
    const nesting: Nesting = { depth: 0, tokens: 0, definesFunctions: false };
    const expr = parsePythonExpression({ source, nesting });
    // As a module's one statement: three levels more (the module, its body, the statement), and two
    // tokens fewer than the parenthesised parse (its brackets).
    expect(treeDepth(expr) + 3).toBeLessThanOrEqual(LEVELS_PER_TOKEN * (nesting.tokens - 2));
  });

  const statements = [
    nest(40, "pass", (body) => `if x:\n${body.replace(/^/gm, " ")}`),
    nest(40, "pass", (body) => `for x in y:\n${body.replace(/^/gm, " ")}\nelse:\n pass`),
    nest(40, "pass", (body) => `while x:\n${body.replace(/^/gm, " ")}`),
    nest(40, "pass", (body) => `with a:\n${body.replace(/^/gm, " ")}`),
    nest(40, "pass", (body) => `with a as b, c:\n${body.replace(/^/gm, " ")}`),
    nest(30, "pass", (body) => `try:\n${body.replace(/^/gm, " ")}\nexcept E as e:\n pass\nfinally:\n pass`),
    nest(40, "pass", (body) => `def f(a=1, *b, **c):\n${body.replace(/^/gm, " ")}`),
    nest(40, "pass", (body) => `@d\nclass C(B):\n${body.replace(/^/gm, " ")}`),
    `if x:\n pass\n${"elif x:\n pass\n".repeat(100)}`,
    "x = y = z = 1\nx += 1\nx: int = 1\nreturn x\nraise x\ndel x\nassert x, y\nglobal g\nimport a.b as c\nfrom a import b\nx; y",
    "x",
    "",
  ];
  it.each(statements.map((source) => [source.slice(0, 40), source]))("holds on %s…", (_, source) => {
    expect(treeDepth(parsePython({ source }))).toBeLessThanOrEqual(
      LEVELS_PER_TOKEN * tokenizePython({ source }).length,
    );
  });
});

describe("Module.mayDefineFunctions", () => {
  it("is true exactly when the code defines a function, class or lambda, f-string fields included", () => {
    const defines = (source: string) => parsePython({ source }).mayDefineFunctions;
    expect(defines("def f():\n    return 1")).toBe(true);
    expect(defines("async def f():\n    return 1")).toBe(true);
    expect(defines("@d\nclass C:\n    pass")).toBe(true);
    expect(defines("g = sorted(x, key=lambda v: v)")).toBe(true);
    expect(defines("x = f'{(lambda: 1)()}'")).toBe(true);
    expect(defines("x = f'{y:{(lambda: 3)()}}'")).toBe(true);
    expect(defines("x = 'def class lambda'  # def f(): lambda")).toBe(false);
    expect(defines("undefined = classes = lambdas = 1")).toBe(false);
  });
});

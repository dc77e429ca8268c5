/**
 * The syntax tree of an LTLf formula (linear temporal logic over finite traces, with past operators),
 * and the one table of operator precedence and associativity that the parser and the formatter share,
 * so that what `formatLtl` prints always re-parses to the same tree.
 */

/** Atoms are lower-case identifiers, so they can never clash with the upper-case operator keywords. */
export const LTL_ATOM_PATTERN = /^[a-z_][a-z0-9_]*$/;

/** `true` and `false` look like atoms but are constants. */
export const LTL_RESERVED_WORDS: readonly string[] = ["true", "false"];

/** Negation, future (X strong next, WX weak next, G, F) and past (Y yesterday, O once, H historically). */
export const LTL_UNARY_OPS = ["!", "X", "WX", "G", "F", "Y", "O", "H"] as const;
export type LtlUnaryOp = (typeof LTL_UNARY_OPS)[number];

/** Boolean connectives, future (U until, R release) and past (S since). */
export const LTL_BINARY_OPS = ["&", "|", "->", "<->", "U", "R", "S"] as const;
export type LtlBinaryOp = (typeof LTL_BINARY_OPS)[number];

export interface LtlConstant {
  readonly op: "true" | "false";
}
export interface LtlAtom {
  readonly op: "atom";
  readonly name: string;
}
export interface LtlUnary {
  readonly op: LtlUnaryOp;
  readonly arg: LtlAst;
}
export interface LtlBinary {
  readonly op: LtlBinaryOp;
  readonly left: LtlAst;
  readonly right: LtlAst;
}
export type LtlAst = LtlConstant | LtlAtom | LtlUnary | LtlBinary;

const UNARY = new Set<string>(LTL_UNARY_OPS);
const BINARY = new Set<string>(LTL_BINARY_OPS);

export function isUnary(ast: LtlAst): ast is LtlUnary {
  return UNARY.has(ast.op);
}

export function isBinary(ast: LtlAst): ast is LtlBinary {
  return BINARY.has(ast.op);
}

export type Associativity = "left" | "right";

/**
 * Binding strength of the binary operators (higher binds tighter; every unary operator binds tighter
 * than all of them). U, R and S share one level and group to the right, as is conventional for until
 * (`a U b U c` = `a U (b U c)`); `->` groups to the right; `&`, `|` and `<->` group to the left.
 */
export const LTL_BINARY_PRECEDENCE: Readonly<Record<LtlBinaryOp, { level: number; assoc: Associativity }>> = {
  "<->": { level: 1, assoc: "left" },
  "->": { level: 2, assoc: "right" },
  "|": { level: 3, assoc: "left" },
  "&": { level: 4, assoc: "left" },
  U: { level: 5, assoc: "right" },
  R: { level: 5, assoc: "right" },
  S: { level: 5, assoc: "right" },
};

/** Level of unary operators and of atoms/constants/parenthesised formulas. */
export const LTL_UNARY_LEVEL = 6;
export const LTL_PRIMARY_LEVEL = 7;

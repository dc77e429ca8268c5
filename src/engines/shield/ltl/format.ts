/**
 * Prints an LtlAst in canonical form: binary operators spaced (`a & b`, `a U b`), `!` attached
 * (`!a`), keyword operators followed by a space or by a parenthesised argument (`G a`, `G(a -> b)`),
 * and parentheses only where precedence or associativity needs them, except that a U/R/S operand
 * of U/R/S is always parenthesised because `a U b R c` is hard to read. The output re-parses to the same
 * tree.
 */
import { isBinary, LTL_BINARY_PRECEDENCE, type LtlAst, type LtlBinaryOp } from "./ast.js";

function level(ast: LtlAst): number {
  return isBinary(ast) ? LTL_BINARY_PRECEDENCE[ast.op].level : Number.POSITIVE_INFINITY;
}

const TEMPORAL_LEVEL = LTL_BINARY_PRECEDENCE.U.level;

function operand(child: LtlAst, parent: LtlBinaryOp, side: "left" | "right"): string {
  const text = format(child);
  const { level: parentLevel, assoc } = LTL_BINARY_PRECEDENCE[parent];
  const childLevel = level(child);
  const needs =
    childLevel < parentLevel ||
    (childLevel === parentLevel && (parentLevel === TEMPORAL_LEVEL || assoc !== side));
  return needs ? `(${text})` : text;
}

function format(ast: LtlAst): string {
  switch (ast.op) {
    case "true":
    case "false":
      return ast.op;
    case "atom":
      return ast.name;
    default:
      if (isBinary(ast)) {
        return `${operand(ast.left, ast.op, "left")} ${ast.op} ${operand(ast.right, ast.op, "right")}`;
      }
      {
        const arg = format(ast.arg);
        if (isBinary(ast.arg)) return `${ast.op}(${arg})`;
        return ast.op === "!" ? `!${arg}` : `${ast.op} ${arg}`;
      }
  }
}

export function formatLtl(options: { ast: LtlAst }): string {
  return format(options.ast);
}

/**
 * Flattens an LtlAst into a table of distinct subformulas in post-order (every child before its
 * parent), sharing equal subformulas. The batch evaluator and the monitor both run over this table
 * with loops instead of recursion, so formula depth never threatens the stack and each distinct
 * subformula is computed once per position.
 */
import { WardenError } from "../../../core/errors.js";
import { LTL_BINARY_OPS, LTL_UNARY_OPS, type LtlAst, type LtlBinaryOp, type LtlUnaryOp } from "./ast.js";

export type LtlNodeOp = "true" | "false" | "atom" | LtlUnaryOp | LtlBinaryOp;

export interface CompiledLtl {
  /** Operator of each node. */
  readonly ops: readonly LtlNodeOp[];
  /** Operand of a unary node, left operand of a binary node, else -1. Always smaller than the node. */
  readonly first: Int32Array;
  /** Right operand of a binary node, else -1. */
  readonly second: Int32Array;
  /** Atom name of an atom node. */
  readonly names: readonly (string | undefined)[];
  /** The whole formula's node (the last one). */
  readonly root: number;
}

const UNARY = new Set<string>(LTL_UNARY_OPS);
const BINARY = new Set<string>(LTL_BINARY_OPS);

function invalid(ast: unknown): never {
  const shown = JSON.stringify(ast)?.slice(0, 80) ?? String(ast);
  throw new WardenError({
    code: "INVALID_INPUT",
    message: `ast: not an LTL syntax tree node: ${shown} (build trees with parseLtl)`,
    details: { fields: ["ast"] },
  });
}

/** The operands of a node, checking its shape: trees may come from JSON rather than parseLtl. */
function children(ast: LtlAst): LtlAst[] {
  const node = ast as unknown as Record<string, unknown> | null;
  if (typeof node !== "object" || node === null) invalid(ast);
  const op = node.op;
  if (op === "true" || op === "false") return [];
  if (op === "atom") return typeof node.name === "string" ? [] : invalid(ast);
  if (typeof op === "string" && UNARY.has(op) && typeof node.arg === "object") return [node.arg as LtlAst];
  if (
    typeof op === "string" &&
    BINARY.has(op) &&
    typeof node.left === "object" &&
    typeof node.right === "object"
  ) {
    return [node.left as LtlAst, node.right as LtlAst];
  }
  return invalid(ast);
}

export function compileLtl(options: { ast: LtlAst }): CompiledLtl {
  const ops: LtlNodeOp[] = [];
  const first: number[] = [];
  const second: number[] = [];
  const names: (string | undefined)[] = [];
  const byKey = new Map<string, number>();
  const ids = new Map<LtlAst, number>();
  const stack: LtlAst[] = [options.ast];
  while (stack.length > 0) {
    const ast = stack[stack.length - 1] as LtlAst;
    if (ids.has(ast)) {
      stack.pop();
      continue;
    }
    const kids = children(ast);
    const pending = kids.filter((kid) => !ids.has(kid));
    if (pending.length > 0) {
      for (let i = pending.length - 1; i >= 0; i--) stack.push(pending[i] as LtlAst);
      continue;
    }
    stack.pop();
    const a = kids[0] === undefined ? -1 : (ids.get(kids[0]) as number);
    const b = kids[1] === undefined ? -1 : (ids.get(kids[1]) as number);
    const key = ast.op === "atom" ? `atom:${ast.name}` : `${ast.op}(${a},${b})`;
    let id = byKey.get(key);
    if (id === undefined) {
      id = ops.length;
      byKey.set(key, id);
      ops.push(ast.op);
      first.push(a);
      second.push(b);
      names.push(ast.op === "atom" ? ast.name : undefined);
    }
    ids.set(ast, id);
  }
  return {
    ops,
    first: Int32Array.from(first),
    second: Int32Array.from(second),
    names,
    root: ids.get(options.ast) as number,
  };
}

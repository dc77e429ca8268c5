/** Lists the atoms (predicate names) a formula mentions, each once, in order of first appearance. */
import type { LtlAst } from "./ast.js";

export function atoms(options: { ast: LtlAst }): string[] {
  const seen = new Set<string>();
  // Explicit stack, right pushed before left, so that the walk is left to right without recursion.
  const stack: LtlAst[] = [options.ast];
  while (stack.length > 0) {
    const ast = stack.pop() as LtlAst;
    if (ast.op === "atom") seen.add(ast.name);
    else if ("arg" in ast) stack.push(ast.arg);
    else if ("left" in ast) stack.push(ast.right, ast.left);
  }
  return [...seen];
}

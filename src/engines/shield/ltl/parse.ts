/**
 * Parses the LTLf formula syntax of Warden's temporal rules into an LtlAst (see ast.ts for precedence
 * and associativity, lexer.ts for how words are read). An operator-precedence (shunting-yard) parser
 * written as one loop with explicit stacks: no recursion, so no input can exhaust the call stack, and
 * at every token it knows whether a formula or an operator is due, which gives precise error messages.
 * Syntax trees (and parenthesis nesting) deeper than LTL_MAX_DEPTH are rejected so that everything
 * walking a tree afterwards stays well within the stack.
 */
import { z } from "zod";
import { parseWith } from "../../../core/validate.js";
import { LTL_BINARY_PRECEDENCE, type LtlAst, type LtlBinaryOp, type LtlUnaryOp } from "./ast.js";
import { type LtlToken, tokenize } from "./lexer.js";
import { ltlParseError, positionAt } from "./parse-error.js";

/** Deepest syntax tree (and deepest parenthesis nesting) a formula may have. */
export const LTL_MAX_DEPTH = 1000;

interface Operand {
  ast: LtlAst;
  depth: number;
}

function describe(token: LtlToken): string {
  switch (token.kind) {
    case "eof":
      return "end of input";
    case "atom":
      return `atom '${token.text}'`;
    case "const":
      return `constant '${token.text}'`;
    case "unary":
    case "binary":
      return `operator '${token.text}'`;
    default:
      return `'${token.text}'`;
  }
}

function parse(source: string, tokens: readonly LtlToken[]): LtlAst {
  /** Pending operators: unary and binary operator tokens, and '(' tokens. */
  const operators: LtlToken[] = [];
  const operands: Operand[] = [];
  let parens = 0;
  let previous: LtlToken | undefined;

  const fail = (token: LtlToken, reason: string): never => {
    throw ltlParseError({ source, offset: token.offset, reason });
  };
  const make = (ast: LtlAst, childDepth: number, at: LtlToken): Operand => {
    if (childDepth + 1 > LTL_MAX_DEPTH) fail(at, `formula nests deeper than ${LTL_MAX_DEPTH} levels`);
    return { ast, depth: childDepth + 1 };
  };
  const reduceBinary = (): void => {
    const at = operators.pop() as LtlToken;
    const right = operands.pop() as Operand;
    const left = operands.pop() as Operand;
    const op = at.text as LtlBinaryOp;
    operands.push(make({ op, left: left.ast, right: right.ast }, Math.max(left.depth, right.depth), at));
  };
  // Prefix operators bind tighter than any binary one: apply them as soon as their operand is complete.
  const reduceUnaries = (): void => {
    for (let top = operators.at(-1); top?.kind === "unary"; top = operators.at(-1)) {
      operators.pop();
      const arg = operands.pop() as Operand;
      operands.push(make({ op: top.text as LtlUnaryOp, arg: arg.ast }, arg.depth, top));
    }
  };
  const binaryOnTop = (): LtlToken | undefined => {
    const top = operators.at(-1);
    return top?.kind === "binary" ? top : undefined;
  };

  let expectFormula = true;
  for (const token of tokens) {
    if (expectFormula) {
      if (token.kind === "unary") {
        operators.push(token);
      } else if (token.kind === "lparen") {
        if (++parens > LTL_MAX_DEPTH) fail(token, `parentheses nest deeper than ${LTL_MAX_DEPTH} levels`);
        operators.push(token);
      } else if (token.kind === "atom" || token.kind === "const") {
        const ast: LtlAst =
          token.kind === "atom"
            ? { op: "atom", name: token.text }
            : { op: token.text === "true" ? "true" : "false" };
        operands.push({ ast, depth: 1 });
        reduceUnaries();
        expectFormula = false;
      } else {
        const after =
          previous !== undefined && previous.kind !== "atom" && previous.kind !== "const"
            ? ` after '${previous.text}'`
            : "";
        fail(token, `expected a formula${after} but found ${describe(token)}`);
      }
    } else if (token.kind === "binary") {
      const { level, assoc } = LTL_BINARY_PRECEDENCE[token.text as LtlBinaryOp];
      for (let top = binaryOnTop(); top !== undefined; top = binaryOnTop()) {
        const topLevel = LTL_BINARY_PRECEDENCE[top.text as LtlBinaryOp].level;
        if (topLevel > level || (topLevel === level && assoc === "left")) reduceBinary();
        else break;
      }
      operators.push(token);
      expectFormula = true;
    } else if (token.kind === "rparen") {
      while (binaryOnTop() !== undefined) reduceBinary();
      if (operators.at(-1)?.kind !== "lparen") fail(token, "unmatched ')'");
      operators.pop();
      parens--;
      reduceUnaries();
    } else if (token.kind === "eof") {
      while (binaryOnTop() !== undefined) reduceBinary();
      const open = operators.at(-1);
      if (open !== undefined) {
        const at = positionAt({ source, offset: open.offset });
        fail(token, `expected ')' to close the '(' at ${at.line}:${at.column} but found end of input`);
      }
    } else {
      const closing = parens > 0 ? "')'" : "end of input";
      fail(token, `expected an operator or ${closing} but found ${describe(token)}`);
    }
    previous = token;
  }
  return (operands[0] as Operand).ast;
}

const ParseLtlOptionsSchema = z.object({ formula: z.string() });

/**
 * Parses an LTLf formula. Throws WardenError LTL_PARSE whose message reads like
 * "expected ')' to close the '(' at 1:2 but found end of input at 1:15" followed by the offending line
 * and a caret, and whose details carry offset (0-based), line and column (1-based), reason and excerpt.
 */
export function parseLtl(options: { formula: string }): LtlAst {
  const { formula } = parseWith({ schema: ParseLtlOptionsSchema, value: options, what: "LTL formula" });
  return parse(formula, tokenize({ source: formula }));
}

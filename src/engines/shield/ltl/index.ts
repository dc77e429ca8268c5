/**
 * LTLf over finite traces, with past operators: parse, print, evaluate a whole trace, and monitor a
 * growing trace step by step. The formal core of the shield's temporal rules.
 */
export {
  LTL_ATOM_PATTERN,
  LTL_BINARY_OPS,
  LTL_BINARY_PRECEDENCE,
  LTL_UNARY_OPS,
  type LtlAst,
  type LtlAtom,
  type LtlBinary,
  type LtlBinaryOp,
  type LtlConstant,
  type LtlUnary,
  type LtlUnaryOp,
} from "./ast.js";
export { atoms } from "./atoms.js";
export { evaluate, evaluatePositions } from "./evaluate.js";
export { formatLtl } from "./format.js";
export {
  createMonitor,
  type LtlMonitor,
  type LtlMonitorStats,
  type LtlReading,
  type LtlVerdict,
} from "./monitor.js";
export { LTL_MAX_DEPTH, parseLtl } from "./parse.js";
export type { LtlPosition } from "./parse-error.js";
export { holds, type LtlStep, type LtlTrace, LtlTraceSchema, parseLtlTrace } from "./trace.js";

/** EHRAgent fact extraction for the compiled engine: log parsing, code parsing, access extraction. */
export {
  type ColumnDisagreement,
  classifyDisagreement,
  DISAGREEMENT_CAUSES,
  type DisagreementCause,
} from "./disagreement.js";
export { configureEhrAgentCache, type EhrAgentAccess, extractEhrAgentAccess } from "./extract.js";
export {
  decodeCell,
  type EhrAgentCodeBlock,
  ehrAgentOutputCode,
  formatEhrAgentOutput,
  type ParsedEhrAgentLog,
  parseEhrAgentLog,
  splitEhrAgentOutput,
} from "./log.js";
export type { Expr, Module, Stmt } from "./py-ast.js";
export { parsePython, parsePythonExpression } from "./py-parser.js";
export { type Token, tokenizePython } from "./py-tokenizer.js";
export { type DatabaseSchema, EICU_SCHEMA, normalizeSchema } from "./schema.js";
export { extractSqlAccess, type SqlAccess } from "./sql-access.js";

/** Policy importers for the shield: ST-WebAgentBench's structured policies -> predicates + LTLf rules. */

export { stableStringify } from "../../../util/stable-json.js";
export { atLeast, atMost, exactly, LAST_STEP, sequence } from "./ltl-builders.js";
export { createPredicateSet, type PredicateSet, type PredicateSpec, slug } from "./predicate-set.js";
export {
  importStWebAgentBench,
  type StEvalTypeCounts,
  type StImportFailure,
  type StImportReport,
  type StImportResult,
  type StInvertedMode,
  type StInvertedPolicy,
  stRuleId,
} from "./st-webagentbench.js";
export {
  type CompileResult,
  compileStPolicy,
  ST_EVAL_TYPES,
  splitTerms,
} from "./st-webagentbench-compile.js";
export { invertedReading, type StInversion } from "./st-webagentbench-inverted.js";
export {
  parseStTasks,
  type StEval,
  StEvalSchema,
  type StMalformed,
  type StParseResult,
  type StPolicy,
  StPolicySchema,
  type StTask,
  type StVersion,
} from "./st-webagentbench-schema.js";

/** The built-in toolbox functions (the paper's CheckAccess and CheckRule), in the order they are rendered. */
import type { ToolFunction } from "../tool-function.js";
import { CHECK_ACCESS_FUNCTION } from "./check-access.js";
import { CHECK_RULE_FUNCTION } from "./check-rule.js";

export { type AccessCheck, CHECK_ACCESS_FUNCTION, type ColumnList, checkAccess } from "./check-access.js";
export {
  CHECK_RULE_FUNCTION,
  checkRule,
  compareRuleValues,
  type RuleCheck,
  type RuleOperator,
  type RuleRequirement,
  type RuleSpec,
} from "./check-rule.js";

export const BUILTIN_FUNCTIONS: readonly ToolFunction[] = Object.freeze([
  CHECK_ACCESS_FUNCTION,
  CHECK_RULE_FUNCTION,
]);

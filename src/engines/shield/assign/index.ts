/** Per-step predicate assignment for the shield: step facts, action vocabulary, assignment. */

export { type ParsedActionCall, parseBrowserGymAction } from "../../common/browsergym-action.js";
export {
  INPUT_ACTION_TYPES,
  NAVIGATION_KEYS,
  normaliseActionType,
  OUTPUT_ACTION_TYPES,
} from "./action-vocabulary.js";
export {
  type Assignment,
  type AssignmentHistory,
  assignPredicates,
  createAssignmentHistory,
  createPredicateAssigner,
  type PredicateAssigner,
} from "./assign-predicates.js";
export { buildStepFacts, looksLikeSelector, type StepFacts } from "./step-facts.js";
export { EMPTY_URL_PARTS, type UrlParts, urlParts } from "./url-parts.js";

/** SeeAct output -> ELEMENT / ACTION / VALUE facts for the compiled engine. */
export { extractSeeActAction, normalizeSeeActAction, SEEACT_ACTIONS } from "./extract-action.js";
export { formatSeeActAction } from "./format-action.js";
export {
  optionName,
  parseSeeActChoiceBlocks,
  parseSeeActChoices,
  type SeeActChoiceBlock,
  visibleText,
} from "./parse-choices.js";
export type { Confidence, SeeActAction, SeeActChoice } from "./types.js";

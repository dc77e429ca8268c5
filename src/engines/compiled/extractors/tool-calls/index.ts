/** Tool calls -> name and arguments, and the effect of a policy's tool rules on a call. */
export { type EmbeddedJson, type EmbeddedJsonScan, scanEmbeddedJson } from "./embedded-json.js";
export { extractToolCalls } from "./extract-tool-calls.js";
export { matchToolRule, type ToolRuleMatch } from "./match-tool-rule.js";
export { matchesToolGlob, toolGlobSpecificity } from "./tool-glob.js";
export {
  type Confidence,
  TOOL_CALL_FORMATS,
  type ToolCall,
  type ToolCallFormat,
  type ToolCallsResult,
} from "./types.js";

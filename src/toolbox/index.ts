/** The toolbox: functions guardrail programs may call, rendered for the model and run in the sandbox. */
export * from "./builtins/index.js";
export {
  loadToolFunctions,
  parseToolFunctionsData,
  parseToolFunctionsJs,
} from "./load-tool-functions.js";
export { definesName, IDENTIFIER, type ToolFunction, ToolFunctionSchema } from "./tool-function.js";
export { createToolbox, NO_TOOLBOX_TEXT, renderToolFunction, type Toolbox } from "./toolbox.js";

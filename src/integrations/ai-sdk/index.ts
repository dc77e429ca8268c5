/**
 * warden/ai-sdk: Warden for the Vercel AI SDK (ai@6). `guardTools` checks every tool call before it runs
 * (feedback the model can act on, a tripwire, or the SDK's tool approval for `ask`); `wardenMiddleware`
 * checks the final answer. `ai` is an optional peer: this module imports only its types.
 */
export { WardenToolDeniedError } from "./denied-error.js";
export {
  type GuardedCall,
  type GuardMode,
  type GuardToolsOptions,
  guardTools,
  type ToolCallGuard,
} from "./guard-tools.js";
export {
  type AnswerGuard,
  answerRefusalText,
  type WardenMiddlewareOptions,
  wardenMiddleware,
} from "./middleware.js";
export type { WardenRefusal } from "./refusal-output.js";

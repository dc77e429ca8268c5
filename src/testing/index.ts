/**
 * warden/testing: what tests of code that uses Warden need without a real model — loopback servers that
 * speak the OpenAI, Anthropic and Ollama protocols with scripted replies (text, and on the OpenAI and
 * Anthropic servers tool calls, so an agent loop can be driven end to end), and an in-process scripted model.
 */
export { startAnthropicServer } from "./anthropic-server.js";
export type {
  ScriptedServerReply,
  ScriptedToolCall,
  ServerMessage,
  ServerToolCall,
  ServerToolResult,
} from "./model-server-common.js";
export { startOllamaServer } from "./ollama-server.js";
export { type ModelServer, type Respond, type RespondArgs, startOpenAIServer } from "./openai-server.js";
export { createScriptedModel } from "./scripted-model.js";

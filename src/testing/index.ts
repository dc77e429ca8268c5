/**
 * warden/testing: what tests of code that uses Warden need without a real model — loopback servers that
 * speak the OpenAI, Anthropic and Ollama protocols with scripted replies, and an in-process scripted model.
 */
export { startAnthropicServer } from "./anthropic-server.js";
export { startOllamaServer } from "./ollama-server.js";
export { type ModelServer, type Respond, type RespondArgs, startOpenAIServer } from "./openai-server.js";
export { createScriptedModel } from "./scripted-model.js";

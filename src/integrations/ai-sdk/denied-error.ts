/**
 * warden/ai-sdk's `mode: "throw"` error is the one every integration throws (src/integrations/
 * denied-error.ts), so an application that uses several catches one class.
 */
export { WardenToolDeniedError } from "../denied-error.js";

/** Role and user attributes of the guarded agent's user, from structured context or the agent input. */
export {
  type AttributeValue,
  type Confidence,
  coerceAttributeValue,
  extractIdentity,
  type IdentityFacts,
  normalizeAttributeKey,
  normalizeRole,
} from "./extract-identity.js";

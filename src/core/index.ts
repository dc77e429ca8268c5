/** Core domain types and schemas shared by every engine and adapter. */
export * from "./condition.js";
export * from "./decision.js";
export * from "./errors.js";
export * from "./policy.js";
export * from "./subject.js";
export * from "./trajectory-record.js";
export * from "./validate.js";

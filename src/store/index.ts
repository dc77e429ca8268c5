/** Persistence: the Store contract and its SQLite (embedded) and PostgreSQL (shared) backends. */
export * from "./content-hash.js";
export * from "./key-directory.js";
export * from "./migrations.js";
export * from "./postgres-store.js";
export * from "./sqlite-store.js";
export * from "./store.js";
export {
  ApiKeyNameSchema,
  ApiKeyPoliciesSchema,
  ApiKeyScopesSchema,
  NewDemonstrationSchema,
  NewWorkflowSchema,
  StorableTextSchema,
} from "./store-input.js";

/** Policy files: loading bundled and user policies, verification, and the bundled policy names. */
export * from "./load-policy.js";
export * from "./package-root.js";
export * from "./summarize-policy.js";
export * from "./verify-policy.js";

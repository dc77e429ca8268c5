/**
 * A toolbox function: what the code-generation instruction shows the model (name, typed signature,
 * one-line description) and the JavaScript source that defines it inside the sandbox.
 */
import { z } from "zod";

export interface ToolFunction {
  /** Global name the program calls, e.g. "CheckAccess". */
  name: string;
  /** Typed signature, e.g. "CheckAccess(allowed: {...}, needed: {...}) -> {...}" (or "(a, b) -> c"). */
  signature: string;
  /** What it does, in one line. */
  description: string;
  /** JavaScript evaluated in the sandbox before the program; defines `name` as a global. */
  source: string;
}

export const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** Whether a source defines `name` at top level (function declaration or const/let/var/class binding). */
export function definesName(options: { source: string; name: string }): boolean {
  const name = options.name.replace(/\$/g, "\\$");
  return (
    new RegExp(`^\\s*(?:async\\s+)?function\\s*\\*?\\s*${name}\\s*\\(`, "m").test(options.source) ||
    new RegExp(`^(?:const|let|var|class)\\s+${name}(?![\\w$])`, "m").test(options.source)
  );
}

export const ToolFunctionSchema = z
  .object({
    name: z.string().regex(IDENTIFIER, "must be a JavaScript identifier (letters, digits, _ or $)"),
    signature: z.string().trim().min(1, "must not be empty"),
    description: z.string().trim().min(1, "must not be empty"),
    source: z.string().trim().min(1, "must not be empty"),
  })
  .strict()
  .superRefine((fn, ctx) => {
    if (!definesName({ source: fn.source, name: fn.name })) {
      ctx.addIssue({
        code: "custom",
        path: ["source"],
        message: `must define ${fn.name} at top level (function ${fn.name}(...) { ... })`,
      });
    }
  });

/**
 * The toolbox: the registry of functions a guardrail program may call. It renders them for the
 * code-generation instruction (one line each: typed signature and description) and hands their sources to
 * the sandbox as the prelude. `enabled: false` is the paper's "no toolbox" ablation: nothing is exposed and
 * the instruction says so, while the registry itself is kept.
 */
import { WardenError } from "../core/errors.js";
import { parseWith } from "../core/validate.js";
import { BUILTIN_FUNCTIONS } from "./builtins/index.js";
import { type ToolFunction, ToolFunctionSchema } from "./tool-function.js";

export const NO_TOOLBOX_TEXT =
  "No toolbox functions are available: define any helper function you need in the program itself.";

/** Names a toolbox function may not take: the sandbox's own globals and the language's. */
const RESERVED = new Set([
  "print",
  "finish",
  "data",
  "globalThis",
  "eval",
  "Function",
  "Object",
  "Array",
  "String",
  "Number",
  "Boolean",
  "Symbol",
  "BigInt",
  "Math",
  "JSON",
  "Date",
  "RegExp",
  "Map",
  "Set",
  "WeakMap",
  "WeakSet",
  "Promise",
  "Proxy",
  "Reflect",
  "Error",
  "TypeError",
  "RangeError",
  "SyntaxError",
  "ReferenceError",
  "undefined",
  "NaN",
  "Infinity",
  "parseInt",
  "parseFloat",
  "isNaN",
  "isFinite",
]);

export interface Toolbox {
  /** Whether functions are exposed to programs (false = the "no toolbox" ablation). */
  readonly enabled: boolean;
  /** Registers a function; throws INVALID_INPUT on a bad definition or a name already taken. */
  add(options: { fn: ToolFunction }): void;
  /** Unregisters a function; returns whether it was there. */
  remove(options: { name: string }): boolean;
  get(options: { name: string }): ToolFunction | undefined;
  /** Every registered function, in registration order (also when disabled). */
  list(): ToolFunction[];
  /** The lines for the code-generation instruction; NO_TOOLBOX_TEXT when disabled, "" when empty. */
  render(): string;
  /** The sources the sandbox evaluates before the program ([] when disabled). The same array until a change. */
  prelude(): readonly string[];
}

/** "CheckAccess(a, b) -> x — what it does", on one line. */
export function renderToolFunction(options: { fn: ToolFunction }): string {
  const { fn } = options;
  const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();
  const signature = oneLine(fn.signature);
  const shown = signature.startsWith("(") ? `${fn.name}${signature}` : signature;
  return `- ${shown} — ${oneLine(fn.description)}`;
}

export function createToolbox(
  options: {
    /** Functions to register (after the built-ins). */
    functions?: readonly ToolFunction[];
    /** Register CheckAccess and CheckRule (default true). */
    builtins?: boolean;
    /** Expose the functions to programs (default true; false = ablation). */
    enabled?: boolean;
  } = {},
): Toolbox {
  const enabled = options.enabled ?? true;
  const registry = new Map<string, ToolFunction>();
  let cachedPrelude: readonly string[] | undefined;
  const empty: readonly string[] = Object.freeze([]);

  function add(addOptions: { fn: ToolFunction }): void {
    const fn = parseWith({
      schema: ToolFunctionSchema,
      value: addOptions.fn,
      what: `toolbox function${typeof addOptions.fn?.name === "string" ? ` ${addOptions.fn.name}` : ""}`,
      path: "fn",
    });
    if (RESERVED.has(fn.name)) {
      throw new WardenError({
        code: "INVALID_INPUT",
        message: `Invalid toolbox function: fn.name: ${fn.name} is reserved (a sandbox or language global)`,
        details: { fields: ["fn.name"] },
      });
    }
    if (registry.has(fn.name)) {
      throw new WardenError({
        code: "INVALID_INPUT",
        message: `Invalid toolbox function: fn.name: the toolbox already has a function named ${fn.name} (remove it first)`,
        details: { fields: ["fn.name"] },
      });
    }
    registry.set(fn.name, Object.freeze({ ...fn }));
    cachedPrelude = undefined;
  }

  if (options.builtins ?? true) for (const fn of BUILTIN_FUNCTIONS) add({ fn });
  for (const fn of options.functions ?? []) add({ fn });

  return {
    enabled,
    add,
    remove: ({ name }) => {
      const removed = registry.delete(name);
      if (removed) cachedPrelude = undefined;
      return removed;
    },
    get: ({ name }) => registry.get(name),
    list: () => [...registry.values()],
    render: () => {
      if (!enabled) return NO_TOOLBOX_TEXT;
      return [...registry.values()].map((fn) => renderToolFunction({ fn })).join("\n");
    },
    prelude: () => {
      if (!enabled) return empty;
      cachedPrelude ??= Object.freeze([...registry.values()].map((fn) => fn.source));
      return cachedPrelude;
    },
  };
}

/**
 * What a guardrail program sees of the host — `data`, `print(...)` and `finish(...)` — built natively
 * through the QuickJS API rather than from JavaScript source, so a run pays no parse for it. The host
 * keeps its own handles on the built-ins it uses (JSON.stringify, String, Error.prototype...) taken before
 * the program runs: a program that overwrites them only breaks its own code, never the way its result and
 * errors are read back.
 */
import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten";
import type { ThrownValue } from "./quickjs-errors.js";

/** Built-ins captured before any untrusted code ran. */
export interface Pristine {
  json: QuickJSHandle;
  stringify: QuickJSHandle;
  toText: QuickJSHandle;
  errorPrototype: QuickJSHandle;
  hasInPrototypeChain: QuickJSHandle;
  dispose(): void;
}

export function capturePristine(vm: QuickJSContext): Pristine {
  const json = vm.getProp(vm.global, "JSON");
  const stringify = vm.getProp(json, "stringify");
  const toText = vm.getProp(vm.global, "String");
  const errorCtor = vm.getProp(vm.global, "Error");
  const errorPrototype = vm.getProp(errorCtor, "prototype");
  errorCtor.dispose();
  const objectCtor = vm.getProp(vm.global, "Object");
  const objectPrototype = vm.getProp(objectCtor, "prototype");
  const hasInPrototypeChain = vm.getProp(objectPrototype, "isPrototypeOf");
  objectCtor.dispose();
  objectPrototype.dispose();
  const handles = [json, stringify, toText, errorPrototype, hasInPrototypeChain];
  return {
    json,
    stringify,
    toText,
    errorPrototype,
    hasInPrototypeChain,
    dispose: () => {
      for (const h of handles) if (h.alive) h.dispose();
    },
  };
}

function isError(vm: QuickJSContext, pristine: Pristine, handle: QuickJSHandle): boolean {
  const r = vm.callFunction(pristine.hasInPrototypeChain, pristine.errorPrototype, handle);
  if (r.error) {
    r.error.dispose();
    return false;
  }
  const yes = vm.getNumber(r.value) === 1;
  r.value.dispose();
  return yes;
}

function textProp(vm: QuickJSContext, pristine: Pristine, handle: QuickJSHandle, key: string): string {
  try {
    const value = vm.getProp(handle, key);
    try {
      return vm.typeof(value) === "string" ? vm.getString(value) : formatValue(vm, pristine, value);
    } finally {
      value.dispose();
    }
  } catch {
    return "";
  }
}

/** How print shows a value: strings as they are, Errors as "Name: message", other objects as JSON. */
export function formatValue(vm: QuickJSContext, pristine: Pristine, handle: QuickJSHandle): string {
  const kind = vm.typeof(handle);
  switch (kind) {
    case "string":
      return vm.getString(handle);
    case "number":
      return String(vm.getNumber(handle));
    case "boolean":
      return vm.getNumber(handle) === 1 ? "true" : "false";
    case "undefined":
      return "undefined";
    case "bigint":
      return String(vm.getBigInt(handle));
    case "symbol":
      return String(vm.getSymbol(handle));
    case "function":
      return "[Function]";
  }
  if (vm.sameValue(handle, vm.null)) return "null";
  if (isError(vm, pristine, handle)) {
    return `${textProp(vm, pristine, handle, "name")}: ${textProp(vm, pristine, handle, "message")}`;
  }
  for (const fn of [pristine.stringify, pristine.toText]) {
    const r = vm.callFunction(fn, vm.undefined, handle);
    if (r.error) {
      r.error.dispose();
      continue;
    }
    const text = vm.typeof(r.value) === "string" ? vm.getString(r.value) : undefined;
    r.value.dispose();
    if (text !== undefined) return text;
  }
  return "[object]";
}

/** Reads a thrown value: name, message and stack of an Error, else the value as print would show it. */
export function readThrown(vm: QuickJSContext, pristine: Pristine, handle: QuickJSHandle): ThrownValue {
  try {
    if (vm.typeof(handle) === "object" && !vm.sameValue(handle, vm.null) && isError(vm, pristine, handle)) {
      return {
        isError: true,
        name: textProp(vm, pristine, handle, "name") || "Error",
        message: textProp(vm, pristine, handle, "message"),
        stack: textProp(vm, pristine, handle, "stack"),
      };
    }
    return { isError: false, name: "", message: formatValue(vm, pristine, handle), stack: "" };
  } catch {
    return { isError: false, name: "", message: "(a value that could not be read)", stack: "" };
  }
}

export interface GlobalsHooks {
  /** A line printed by the program. */
  onLine(line: string): void;
  /** The JSON text of the program's finish(...) result. */
  onFinish(text: string): void;
  /** A wrong use of finish(...): reported even if the program catches the error. */
  onMisuse(message: string): void;
}

/**
 * Defines `data` (parsed from JSON inside QuickJS, so it is the program's own copy), `print` and
 * `finish`. Returns the error handle when the data could not be loaded (too big, too deep).
 */
export function installGlobals(options: {
  vm: QuickJSContext;
  pristine: Pristine;
  dataJson: string;
  hooks: GlobalsHooks;
}): { error?: QuickJSHandle } {
  const { vm, pristine, hooks } = options;

  const parse = vm.getProp(pristine.json, "parse");
  const text = vm.newString(options.dataJson);
  const parsed = vm.callFunction(parse, pristine.json, text);
  parse.dispose();
  text.dispose();
  if (parsed.error) return { error: parsed.error };
  vm.setProp(vm.global, "data", parsed.value);
  parsed.value.dispose();

  const print = vm.newFunction("print", (...args) => {
    let line = "";
    for (const [i, arg] of args.entries()) line += (i === 0 ? "" : " ") + formatValue(vm, pristine, arg);
    hooks.onLine(line);
  });
  vm.defineProp(vm.global, "print", { value: print, configurable: false, enumerable: false });
  print.dispose();

  let finished = false;
  const misuse = (message: string): never => {
    hooks.onMisuse(message);
    throw new TypeError(message);
  };
  const finish = vm.newFunction("finish", (result) => {
    if (finished)
      misuse("finish(...) was called more than once: call it exactly once, with the final result");
    if (!result || vm.typeof(result) !== "object" || vm.sameValue(result, vm.null)) {
      const got = !result ? "nothing" : vm.sameValue(result, vm.null) ? "null" : vm.typeof(result);
      misuse(`finish(...) expects an object { label, reasons, output }, got ${got}`);
    }
    const target = result as QuickJSHandle;
    const labelHandle = vm.getProp(target, "label");
    const label = vm.typeof(labelHandle) === "number" ? vm.getNumber(labelHandle) : undefined;
    if (label !== 0 && label !== 1) {
      const got =
        vm.typeof(labelHandle) === "string"
          ? JSON.stringify(vm.getString(labelHandle))
          : formatValue(vm, pristine, labelHandle);
      labelHandle.dispose();
      misuse(
        `finish(...): label must be the number 0 (guard requests satisfied) or 1 (violated), got ${got}`,
      );
    }
    labelHandle.dispose();
    let payload = `{"label":${label}`;
    for (const key of ["reasons", "output"]) {
      const value = vm.getProp(target, key);
      if (vm.typeof(value) === "undefined") {
        value.dispose();
        continue;
      }
      const json = vm.callFunction(pristine.stringify, vm.undefined, value);
      value.dispose();
      if (json.error) return { error: json.error };
      const part = vm.typeof(json.value) === "string" ? vm.getString(json.value) : undefined;
      json.value.dispose();
      if (part !== undefined) payload += `,"${key}":${part}`;
    }
    finished = true;
    hooks.onFinish(`${payload}}`);
  });
  vm.defineProp(vm.global, "finish", { value: finish, configurable: false, enumerable: false });
  finish.dispose();
  return {};
}

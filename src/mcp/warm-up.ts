/**
 * Warming the guard proxy's check path before the agent's calls need it. V8 optimises a function only
 * after it has run a while, and a check runs many small functions once each, so a fresh proxy's checks
 * cost several times what they cost once warm, over the first thousands of calls: the calls a session
 * is made of. (The CLI also lowers V8's thresholds: src/cli/long-running.ts. Measured on the bench's
 * proxy, in front of server-filesystem, the check still took about 150 µs over calls 300 to 1,500,
 * against about 35 µs warm.)
 *
 * Once the upstream's tools are known, the proxy runs the very check it runs on the agent's calls, the
 * engine's inline check (src/engines/inline-check.ts: no model, no worker thread, nothing waited for),
 * on calls made up from those tools' input schemas. It runs in slices of at most `sliceMs`, and the event
 * loop serves real messages between them; it stops after `maxChecks` checks or `maxMs`, on `stop()`, or
 * as soon as a check cannot run inline (an engine that would wait for a model is never asked). The
 * decisions are dropped: nothing is forwarded, counted, logged or remembered.
 */
import { kindFromName, kindsFromSchema } from "../core/arg-kinds.js";

/** How many of a schema's properties a made-up call fills in. */
const MAX_SAMPLE_PROPERTIES = 16;

/** One made-up call of a listed tool. */
export interface WarmUpCall {
  tool: string;
  args: Record<string, unknown>;
  inputSchema: unknown;
}

export interface WarmUp {
  stop(): void;
  /** Settles with the number of checks run, once the warm-up has ended. */
  readonly done: Promise<number>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The JSON type a property schema declares (the first besides null), "string" when it declares none. */
function declaredType(schema: unknown): string {
  if (!isRecord(schema)) return "string";
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  return typeof type === "string" ? type : "string";
}

/**
 * Arguments for a tool as its input schema describes them: an enum's or const's value where there is
 * one, a path argument (by its name or schema) set to `pathValue`, other text "warm-up", numbers 1,
 * truth values false, lists and objects empty.
 */
export function sampleArgs(options: { inputSchema: unknown; pathValue: string }): Record<string, unknown> {
  const { inputSchema, pathValue } = options;
  const properties = isRecord(inputSchema) && isRecord(inputSchema.properties) ? inputSchema.properties : {};
  const args: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(properties).slice(0, MAX_SAMPLE_PROPERTIES)) {
    const given = isRecord(schema)
      ? (schema.const ?? (Array.isArray(schema.enum) ? schema.enum[0] : undefined))
      : undefined;
    if (given !== undefined) {
      args[name] = given;
      continue;
    }
    switch (declaredType(schema)) {
      case "number":
      case "integer":
        args[name] = 1;
        break;
      case "boolean":
        args[name] = false;
        break;
      case "array":
        args[name] = [];
        break;
      case "object":
        args[name] = {};
        break;
      default: {
        const isPath =
          kindFromName({ name }) === "path" ||
          kindsFromSchema({ schema: inputSchema, segments: [name] }).includes("path");
        args[name] = isPath ? pathValue : "warm-up";
      }
    }
  }
  return args;
}

/**
 * Runs `check` over `calls` in turn, in slices, until one of the bounds (see the header). `check`
 * answers false when the check could not run inline; the warm-up then ends.
 */
export function startWarmUp(options: {
  calls: readonly WarmUpCall[];
  check: (call: WarmUpCall) => boolean;
  maxChecks: number;
  maxMs: number;
  sliceMs?: number;
}): WarmUp {
  const { calls, check, maxChecks, maxMs } = options;
  const sliceMs = options.sliceMs ?? 1;
  const started = performance.now();
  let checks = 0;
  let stopped = calls.length === 0 || maxChecks <= 0;
  let immediate: NodeJS.Immediate | undefined;
  let finish: (checks: number) => void = () => undefined;
  const done = new Promise<number>((resolve) => {
    finish = resolve;
  });
  const end = () => {
    stopped = true;
    if (immediate) clearImmediate(immediate);
    immediate = undefined;
    finish(checks);
  };
  const slice = () => {
    immediate = undefined;
    const until = performance.now() + sliceMs;
    try {
      while (!stopped && checks < maxChecks) {
        const ran = check(calls[checks % calls.length] as WarmUpCall);
        if (!ran) return end();
        checks++;
        if (performance.now() >= until) break;
      }
    } catch {
      // A made-up call the check cannot take: the warm-up is only ever an optimisation.
      return end();
    }
    if (stopped || checks >= maxChecks || performance.now() - started >= maxMs) return end();
    immediate = setImmediate(slice);
  };
  if (stopped) end();
  else immediate = setImmediate(slice);
  return { stop: end, done };
}

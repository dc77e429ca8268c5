import { describe, expect, it } from "vitest";
import { sampleArgs, startWarmUp, type WarmUpCall } from "./warm-up.js";

describe("sampleArgs", () => {
  it("fills each property by its schema: paths by name or description, enums, consts and JSON types", () => {
    const inputSchema = {
      type: "object",
      properties: {
        path: { type: "string" },
        target: { type: "string", description: "Path of the file to write" },
        content: { type: "string" },
        mode: { type: "string", enum: ["overwrite", "append"] },
        kind: { const: "text" },
        head: { type: "integer" },
        ratio: { type: ["null", "number"] },
        dryRun: { type: "boolean" },
        paths: { type: "array", items: { type: "string" } },
        options: { type: "object" },
        untyped: {},
      },
    };
    expect(sampleArgs({ inputSchema, pathValue: "/srv/work" })).toEqual({
      path: "/srv/work",
      target: "/srv/work",
      content: "warm-up",
      mode: "overwrite",
      kind: "text",
      head: 1,
      ratio: 1,
      dryRun: false,
      paths: [],
      options: {},
      untyped: "warm-up",
    });
  });

  it("answers no arguments for a schema without properties, or no schema", () => {
    expect(sampleArgs({ inputSchema: undefined, pathValue: "/" })).toEqual({});
    expect(sampleArgs({ inputSchema: { type: "object" }, pathValue: "/" })).toEqual({});
    expect(sampleArgs({ inputSchema: "nonsense", pathValue: "/" })).toEqual({});
  });

  it("fills at most 16 properties", () => {
    const properties = Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [`p${i}`, { type: "string" }]),
    );
    expect(Object.keys(sampleArgs({ inputSchema: { properties }, pathValue: "/" }))).toHaveLength(16);
  });
});

describe("startWarmUp", () => {
  const calls: WarmUpCall[] = [
    { tool: "a", args: {}, inputSchema: undefined },
    { tool: "b", args: {}, inputSchema: undefined },
  ];

  it("checks the calls in turn until maxChecks, letting the event loop run between slices", async () => {
    const seen: string[] = [];
    let servedBetween = false;
    const warm = startWarmUp({
      calls,
      maxChecks: 200,
      maxMs: 10_000,
      sliceMs: 0,
      check: (call) => {
        seen.push(call.tool);
        return true;
      },
    });
    setImmediate(() => {
      servedBetween = seen.length > 0 && seen.length < 200;
    });
    expect(await warm.done).toBe(200);
    expect(seen.slice(0, 4)).toEqual(["a", "b", "a", "b"]);
    expect(servedBetween).toBe(true);
  });

  it("ends at the first call that cannot be checked inline, or that throws", async () => {
    let asked = 0;
    const refused = startWarmUp({
      calls,
      maxChecks: 100,
      maxMs: 10_000,
      check: () => {
        asked++;
        return false;
      },
    });
    expect(await refused.done).toBe(0);
    expect(asked).toBe(1);
    const throwing = startWarmUp({
      calls,
      maxChecks: 100,
      maxMs: 10_000,
      check: () => {
        throw new Error("not a call this policy can take");
      },
    });
    expect(await throwing.done).toBe(0);
  });

  it("ends on stop(), and at once with nothing to check", async () => {
    let asked = 0;
    const warm = startWarmUp({
      calls,
      maxChecks: 1_000_000,
      maxMs: 60_000,
      check: () => {
        asked++;
        return true;
      },
    });
    warm.stop();
    expect(await warm.done).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(asked).toBe(0);
    const none = startWarmUp({ calls: [], maxChecks: 10, maxMs: 100, check: () => true });
    expect(await none.done).toBe(0);
  });

  it("ends once maxMs has passed, whatever is left", async () => {
    const warm = startWarmUp({
      calls,
      maxChecks: Number.MAX_SAFE_INTEGER,
      maxMs: 30,
      sliceMs: 1,
      check: () => true,
    });
    const checks = await warm.done;
    expect(checks).toBeGreaterThan(0);
    expect(checks).toBeLessThan(Number.MAX_SAFE_INTEGER);
  });
});

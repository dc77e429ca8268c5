import { describe, expect, it } from "vitest";
import { WardenError } from "../core/errors.js";
import { createQuickJsSandbox } from "../sandbox/quickjs-sandbox.js";
import type { ToolFunction } from "./tool-function.js";
import { createToolbox, NO_TOOLBOX_TEXT } from "./toolbox.js";

const IS_ADULT: ToolFunction = {
  name: "IsAdult",
  signature: "IsAdult(user: { age: number }) -> boolean",
  description: "True when the user is at least 18.",
  source: "function IsAdult(user) {\n  return Number(user.age) >= 18;\n}",
};

describe("toolbox", () => {
  it("starts with the built-ins and renders one line per function", () => {
    const toolbox = createToolbox();
    expect(toolbox.list().map((f) => f.name)).toEqual(["CheckAccess", "CheckRule"]);
    const lines = toolbox.render().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^- CheckAccess\(allowed: .+\) -> \{ denied: boolean, inaccessible: .+ — Access control/,
    );
    expect(lines[1]).toMatch(/^- CheckRule\(rules: .+ — Rule check/);
    expect(toolbox.prelude()).toHaveLength(2);
  });

  it("adds, finds and removes user functions", () => {
    const toolbox = createToolbox({ builtins: false, functions: [IS_ADULT] });
    expect(toolbox.get({ name: "IsAdult" })?.signature).toBe(IS_ADULT.signature);
    expect(toolbox.render()).toBe(
      "- IsAdult(user: { age: number }) -> boolean — True when the user is at least 18.",
    );
    expect(toolbox.prelude()).toEqual([IS_ADULT.source]);
    expect(toolbox.remove({ name: "IsAdult" })).toBe(true);
    expect(toolbox.remove({ name: "IsAdult" })).toBe(false);
    expect(toolbox.render()).toBe("");
    expect(toolbox.prelude()).toEqual([]);
  });

  it("hands out the same frozen prelude until it changes", () => {
    const toolbox = createToolbox();
    const first = toolbox.prelude();
    expect(Object.isFrozen(first)).toBe(true);
    expect(toolbox.prelude()).toBe(first);
    toolbox.add({ fn: IS_ADULT });
    expect(toolbox.prelude()).not.toBe(first);
    expect(toolbox.prelude()).toHaveLength(3);
  });

  it("renders a signature given without the name and folds multi-line text", () => {
    const toolbox = createToolbox({ builtins: false });
    toolbox.add({
      fn: { ...IS_ADULT, signature: "(user)\n  -> boolean", description: "True when\n  adult." },
    });
    expect(toolbox.render()).toBe("- IsAdult(user) -> boolean — True when adult.");
  });

  it("exposes nothing when disabled, and the instruction says so", () => {
    const toolbox = createToolbox({ enabled: false, functions: [IS_ADULT] });
    expect(toolbox.enabled).toBe(false);
    expect(toolbox.render()).toBe(NO_TOOLBOX_TEXT);
    expect(toolbox.prelude()).toEqual([]);
    expect(toolbox.list().map((f) => f.name)).toEqual(["CheckAccess", "CheckRule", "IsAdult"]);
  });

  it.each([
    [{ ...IS_ADULT, name: "is adult" }, "fn.name"],
    [{ ...IS_ADULT, signature: " " }, "fn.signature"],
    [{ ...IS_ADULT, description: "" }, "fn.description"],
    [{ ...IS_ADULT, source: "" }, "fn.source"],
    [{ ...IS_ADULT, source: "function Other() {}" }, "must define IsAdult"],
    [{ ...IS_ADULT, name: "print", source: "function print() {}" }, "reserved"],
    [{ ...IS_ADULT, name: "CheckAccess", source: "function CheckAccess() {}" }, "already has"],
  ])("rejects a bad function (%#) naming the problem", (fn, fragment) => {
    const toolbox = createToolbox();
    let error: unknown;
    try {
      toolbox.add({ fn: fn as ToolFunction });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(WardenError);
    expect((error as WardenError).code).toBe("INVALID_INPUT");
    expect((error as WardenError).message).toContain(fragment);
  });

  it("accepts a function bound with const at top level", () => {
    const toolbox = createToolbox({ builtins: false });
    toolbox.add({ fn: { ...IS_ADULT, source: "const IsAdult = (user) => Number(user.age) >= 18;" } });
    expect(toolbox.list()).toHaveLength(1);
  });
});

describe("toolbox and sandbox together", () => {
  it("runs programs against the built-ins and user functions, and not at all in the ablation", async () => {
    const sandbox = createQuickJsSandbox({ workers: 1 });
    try {
      const toolbox = createToolbox({ functions: [IS_ADULT] });
      const code = `const access = CheckAccess({ lab: ["labname"] }, { lab: ["labname", "labresult"] });
const rule = CheckRule({ hotel: { attribute: "age", operator: ">=", value: 18, message: "adults only" } }, data.user);
finish({ label: access.denied || rule.denied ? 1 : 0, reasons: { access: access.inaccessible, rule: rule.violations },
  output: IsAdult(data.user) });`;
      const result = await sandbox.run({ code, data: { user: { age: "17" } }, prelude: toolbox.prelude() });
      expect(result).toMatchObject({
        ok: true,
        result: {
          label: 1,
          reasons: { access: { lab: ["labresult"] }, rule: { hotel: "adults only" } },
          output: false,
        },
      });
      const ablation = createToolbox({ enabled: false });
      const without = await sandbox.run({ code, data: { user: { age: 30 } }, prelude: ablation.prelude() });
      expect(without.ok === false && without.error.code).toBe("SANDBOX_RUNTIME");
      expect(without.ok === false && without.error.message).toContain("CheckAccess");
    } finally {
      await sandbox.close();
    }
  });
});

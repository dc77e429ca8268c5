import { describe, expect, it } from "vitest";
import {
  classifyThrown,
  describeThrown,
  parseStack,
  sourceExcerpt,
  type ThrownValue,
} from "./quickjs-errors.js";

const limits = { memoryBytes: 32 * 1024 * 1024, stackBytes: 512 * 1024 };

function thrown(partial: Partial<ThrownValue>): ThrownValue {
  return { isError: true, name: "Error", message: "", stack: "", ...partial };
}

describe("QuickJS error descriptions", () => {
  it("reads named and bare stack frames", () => {
    expect(
      parseStack({ stack: "    at f (guard.js:3:7)\n    at <eval> (guard.js:9:1)\n    at guard.js:2\n" }),
    ).toEqual([
      { fn: "f", file: "guard.js", line: 3, column: 7 },
      { fn: "<eval>", file: "guard.js", line: 9, column: 1 },
      { file: "guard.js", line: 2 },
    ]);
  });

  it("shows the program line with a caret under the column", () => {
    expect(sourceExcerpt({ code: "a\nconst b = ;", line: 2, column: 11 })).toBe(
      "  2 | const b = ;\n    |           ^",
    );
    expect(sourceExcerpt({ code: "a", line: 5 })).toBe("");
  });

  it("classifies by what happened, not by the error's name alone", () => {
    const code = "x\ny";
    expect(
      classifyThrown({ thrown: thrown({ name: "InternalError", message: "out of memory" }), code, limits })
        .code,
    ).toBe("SANDBOX_MEMORY");
    expect(
      classifyThrown({ thrown: thrown({ name: "InternalError", message: "stack overflow" }), code, limits })
        .code,
    ).toBe("SANDBOX_LIMIT");
    const parse = thrown({
      name: "SyntaxError",
      message: "unexpected token",
      stack: "    at guard.js:2:1\n",
    });
    expect(classifyThrown({ thrown: parse, code, limits }).code).toBe("SANDBOX_SYNTAX");
    const runtime = thrown({
      name: "SyntaxError",
      message: "bad JSON",
      stack: "    at parse (native)\n    at <eval> (guard.js:1:1)\n",
    });
    expect(classifyThrown({ thrown: runtime, code, limits }).code).toBe("SANDBOX_RUNTIME");
    expect(
      classifyThrown({ thrown: { isError: false, name: "", message: "42", stack: "" }, code, limits }).code,
    ).toBe("SANDBOX_RUNTIME");
  });

  it("folds repeated frames of a deep recursion", () => {
    const stack = `${"    at f (guard.js:1:10)\n".repeat(500)}    at <eval> (guard.js:2:1)\n`;
    const text = describeThrown({
      thrown: thrown({ name: "InternalError", message: "stack overflow", stack }),
      code: "x",
    });
    expect(text).toContain("at f (guard.js:1:10) (repeated 500 times)");
    expect(text.split("\n").length).toBeLessThan(10);
  });

  it("suggests the closest known name only when it is close", () => {
    const ref = (name: string) =>
      describeThrown({
        thrown: thrown({
          name: "ReferenceError",
          message: `'${name}' is not defined`,
          stack: "    at <eval> (guard.js:1:1)\n",
        }),
        code: "x",
        names: ["CheckAccess", "CheckRule", "print"],
      });
    expect(ref("CheckAcess")).toContain("did you mean CheckAccess?");
    expect(ref("ChekRule")).toContain("did you mean CheckRule?");
    expect(ref("completelyDifferent")).not.toContain("did you mean");
  });

  it("truncates enormous messages", () => {
    const text = describeThrown({ thrown: thrown({ message: "m".repeat(50_000) }), code: "" });
    expect(text.length).toBeLessThan(3_000);
  });
});

import { describe, expect, it } from "vitest";
import { WardenError } from "../../../core/errors.js";
import { holds, parseLtlTrace } from "./trace.js";

function failure(value: unknown): WardenError {
  try {
    parseLtlTrace({ value });
  } catch (error) {
    expect(error).toBeInstanceOf(WardenError);
    return error as WardenError;
  }
  throw new Error("expected the trace to be rejected");
}

describe("parseLtlTrace", () => {
  it("accepts steps as atom -> boolean objects and as arrays of true atoms, mixed", () => {
    const trace = parseLtlTrace({ value: [{ a: true, b: false }, ["a", "c"], [], {}] });
    expect(trace.map((step) => ({ ...step }))).toEqual([{ a: true, b: false }, { a: true, c: true }, {}, {}]);
    expect(holds(trace[0] as (typeof trace)[number], "a")).toBe(true);
    expect(holds(trace[0] as (typeof trace)[number], "b")).toBe(false);
    expect(holds(trace[1] as (typeof trace)[number], "b")).toBe(false);
  });

  it("keeps __proto__ and constructor as ordinary atoms", () => {
    const trace = parseLtlTrace({ value: JSON.parse('[{"__proto__": true}, ["constructor"], {}]') });
    expect(holds(trace[0] as (typeof trace)[number], "__proto__")).toBe(true);
    expect(holds(trace[1] as (typeof trace)[number], "constructor")).toBe(true);
    expect(holds(trace[2] as (typeof trace)[number], "constructor")).toBe(false);
    expect(holds(trace[2] as (typeof trace)[number], "__proto__")).toBe(false);
  });

  it("names each offending step and atom", () => {
    const error = failure([{ a: true }, { isOpen: true }, ["ok", 3], { b: "yes" }, 7]);
    expect(error.code).toBe("INVALID_INPUT");
    expect(error.message).toContain("Invalid trace");
    expect(error.message).toContain("1.isOpen: not an atom name");
    expect(error.message).toContain("2.1: expected an atom name");
    expect(error.message).toContain("3.b: expected true or false");
    expect(error.message).toContain(
      "4: a step is an object atom -> boolean or an array of the atoms that are true",
    );
    expect(error.details?.fields).toEqual(["1.isOpen", "2.1", "3.b", "4"]);
  });

  it("rejects a trace that is not an array", () => {
    expect(failure({ a: true }).message).toMatch(/Invalid trace: \(root\)/);
    expect(failure("[]").code).toBe("INVALID_INPUT");
  });

  it("uses the caller's wording and code", () => {
    let caught: unknown;
    try {
      parseLtlTrace({ value: 1, what: "--trace", code: "DATASET_INVALID" });
    } catch (error) {
      caught = error;
    }
    expect((caught as WardenError).code).toBe("DATASET_INVALID");
    expect((caught as WardenError).message).toMatch(/^Invalid --trace/);
  });
});

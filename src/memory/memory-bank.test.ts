import { describe, expect, it } from "vitest";
import type { GuardMemory } from "../engines/guardagent/contracts.js";
import { createSqliteStore } from "../store/sqlite-store.js";
import { createMemoryBank } from "./memory-bank.js";

describe("createMemoryBank", () => {
  it("serves the GuardAgent engine's memory contract, keeping policies apart", async () => {
    const store = await createSqliteStore({ path: ":memory:" });
    const bank: GuardMemory = createMemoryBank({ store, learn: "successful" });
    const base = { plan: "1.\n2.\n3.\n4.", code: "return { label: 0 };", origin: "learned" as const };
    expect(
      await bank.remember({ demonstration: { ...base, policy: "a", input: "in a", output: "out a" } }),
    ).toBe(true);
    expect(
      await bank.remember({ demonstration: { ...base, policy: "b", input: "in b", output: "out b" } }),
    ).toBe(true);
    const fromA = await bank.retrieve({ policy: "a", input: "in b", output: "out b", k: 5, order: "most" });
    expect(fromA.map((d) => d.input)).toEqual(["in a"]);
    expect(await bank.retrieve({ policy: "c", input: "x", output: "y", k: 1, order: "least" })).toEqual([]);
    await store.close();
  });

  it("applies its learning mode to every policy", async () => {
    const store = await createSqliteStore({ path: ":memory:" });
    const bank = createMemoryBank({ store, learn: "correct-only" });
    const d = { policy: "p", input: "i", output: "o", plan: "p", code: "c" };
    expect(await bank.remember({ demonstration: d })).toBe(false);
    expect(await bank.remember({ demonstration: d, correct: true })).toBe(true);
    expect(await bank.forPolicy({ policy: "p" }).count()).toBe(1);
    expect(bank.describeLearning()).toMatch(/correct against the label/);
    await expect(bank.remember({ demonstration: { ...d, policy: "" }, correct: true })).rejects.toThrow(
      /demonstration\.policy/,
    );
    await store.close();
  });
});

import { Writable } from "node:stream";
import { pino } from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import { batchedLog } from "./batched-log.js";

function capture() {
  const lines: { msg: string; tool?: string }[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ base: undefined }, stream), lines };
}

describe("batchedLog", () => {
  afterEach(() => vi.useRealTimers());

  it("writes waiting lines together after the delay, in their order", () => {
    vi.useFakeTimers();
    const { logger, lines } = capture();
    const log = batchedLog({ logger, delayMs: 50 });
    log.info({ fields: { tool: "a" }, message: "forwarded" });
    log.info({ fields: { tool: "b" }, message: "blocked" });
    expect(lines).toEqual([]);
    vi.advanceTimersByTime(50);
    expect(lines.map((l) => [l.tool, l.msg])).toEqual([
      ["a", "forwarded"],
      ["b", "blocked"],
    ]);
  });

  it("writes what is waiting at once on flush", () => {
    vi.useFakeTimers();
    const { logger, lines } = capture();
    const log = batchedLog({ logger, delayMs: 50 });
    log.info({ fields: { tool: "a" }, message: "forwarded" });
    log.flush();
    expect(lines.map((l) => l.tool)).toEqual(["a"]);
    vi.advanceTimersByTime(100);
    expect(lines).toHaveLength(1);
  });
});

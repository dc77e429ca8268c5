import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../src/policies/package-root.js";
import { benchColdStart, GOAL_PEAK_RSS_MB, GOAL_RATIO } from "./cold-start.js";

// The micro runs the build; `npm ci` makes it (prepare), a checkout without it has nothing to time.
const hasBuild = existsSync(join(packageRoot(), "dist", "cli", "main.js"));

describe("benchColdStart (one run each)", () => {
  it.skipIf(!hasBuild)(
    "times node -e 0 and warden check from the build and the checkout, with the ratio",
    async () => {
      const result = await benchColdStart({ runs: 1 });
      expect(result.runs).toBe(1);
      expect(result.floor.command).toBe("node -e 0");
      expect(result.installed.command).toContain("dist/cli/main.js check --policy mcp-tools");
      expect(result.checkout.command).toContain("bin/warden.js check --policy mcp-tools");
      // The demo record is a tool call the policy allows: both starts decide it and exit 0.
      expect(result.installed.exitCodes).toEqual([0]);
      expect(result.checkout.exitCodes).toEqual([0]);
      for (const f of [result.floor, result.installed, result.checkout]) {
        expect(f.wallMs.p50).toBeGreaterThan(0);
        expect(f.wallMs.p90).toBeGreaterThanOrEqual(f.wallMs.p50);
      }
      expect(result.ratio.installed).toBeCloseTo(result.installed.wallMs.p50 / result.floor.wallMs.p50, 1);
      expect(result.goals).toMatchObject({ ratioMax: GOAL_RATIO, peakRssMbMax: GOAL_PEAK_RSS_MB });
      if (result.rssMethod !== "unavailable") {
        expect(result.installed.peakRssMb?.max).toBeGreaterThan(0);
        // GNU time's CPU time comes with its RSS, beside the wall time (informational).
        expect(result.installed.cpuMs?.p50).toBeGreaterThan(0);
        expect(result.cpuRatio?.installed).toBeGreaterThan(0);
      }
      expect(["dist", "source"]).toContain(result.checkoutEntry);
    },
  );
});

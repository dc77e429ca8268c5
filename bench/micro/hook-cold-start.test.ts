import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../src/policies/package-root.js";
import { GOAL_RATIO } from "./cold-start.js";
import { benchHookColdStart } from "./hook-cold-start.js";

// The micro runs the build; `npm ci` makes it (prepare), a checkout without it has nothing to time.
const hasBuild = existsSync(join(packageRoot(), "dist", "cli", "main.js"));

describe("benchHookColdStart (one run each)", () => {
  it.skipIf(!hasBuild)(
    "times node -e 0 and warden hook on each event, with what the hook answered",
    async () => {
      const result = await benchHookColdStart({ runs: 1 });
      expect(result.floor.command).toBe("node -e 0");
      expect(Object.keys(result.hook)).toEqual([
        "bash-rm-rf-root",
        "read-dotenv",
        "read-source",
        "bash-npm-test",
      ]);
      expect(result.hook["bash-rm-rf-root"]!.answers).toEqual(["deny"]);
      expect(result.hook["read-dotenv"]!.answers).toEqual(["deny"]);
      expect(result.hook["read-source"]!.answers).toEqual(["allow (deferred)"]);
      expect(result.hook["bash-npm-test"]!.answers).toEqual(["allow (deferred)"]);
      for (const f of Object.values(result.hook)) {
        expect(f.exitCodes).toEqual([0]);
        expect(f.wallMs.p50).toBeGreaterThan(0);
      }
      expect(result.goals.ratioMax).toBe(GOAL_RATIO);
    },
    120_000,
  );
});

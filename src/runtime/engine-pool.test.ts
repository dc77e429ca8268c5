import { describe, expect, it } from "vitest";
import { isWardenError } from "../core/errors.js";
import { createScriptedModel } from "../testing/scripted-model.js";
import { createEnginePool } from "./engine-pool.js";

describe("createEnginePool", () => {
  it("builds each engine once and answers the default when no name is given", async () => {
    const pool = createEnginePool({ setup: {}, defaultEngine: "compiled" });
    const a = await pool.get({});
    const b = await pool.get({ engine: "compiled" });
    expect(a).toBe(b);
    expect(a.name).toBe("compiled");
    expect((await pool.get({ engine: "auto" })).name).toBe("auto");
    await pool.close();
  });

  it("answers MODEL_CONFIG for a model engine without a model, every time", async () => {
    const pool = createEnginePool({ setup: {} });
    for (let i = 0; i < 2; i++) {
      const error = await pool.get({ engine: "guardagent" }).catch((e: unknown) => e);
      expect(isWardenError(error) && error.code).toBe("MODEL_CONFIG");
    }
    await pool.close();
  });

  it("closes the shared model once, however many engines used it, and refuses use after close", async () => {
    const model = createScriptedModel({ replies: [] });
    let closes = 0;
    model.close = async () => {
      closes++;
    };
    const pool = createEnginePool({ setup: { model, sandboxWorkers: 1 }, defaultEngine: "auto" });
    await pool.get({});
    await pool.get({ engine: "baseline" });
    await pool.close();
    expect(closes).toBe(1);
    const error = await pool.get({}).catch((e: unknown) => e);
    expect(isWardenError(error) && error.code).toBe("ABORTED");
  });
});

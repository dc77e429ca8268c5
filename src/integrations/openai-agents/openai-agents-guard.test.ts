/**
 * End to end with a real Guard: the bundled mcp-tools policy guards an Agents SDK agent whose scripted
 * model calls tools by their provider names (`filesystem_delete_file` for the policy's
 * `filesystem.delete_file`). The refused call never runs, the model reads the rule and the
 * countermeasure, and its corrected call is allowed and runs. The input guardrail, with the mind2web-sc
 * policy (whose rules judge the user's request and facts), stops a request before the model is called.
 */
import { Agent, InputGuardrailTripwireTriggered, Runner, tool } from "@openai/agents";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createGuard, type Guard } from "../../guard.js";
import { wardenInputGuardrail, wardenOutputGuardrail, wardenToolInputGuardrail } from "./index.js";
import { ScriptedAgentsModel, toolResults } from "./scripted-agents-model.test-support.js";

let tools: Guard;
let web: Guard;

beforeAll(async () => {
  tools = await createGuard({ policy: "mcp-tools" });
  web = await createGuard({ policy: "mind2web-sc" });
});

afterAll(async () => {
  await tools?.close();
  await web?.close();
});

describe("OpenAI Agents guardrails with a real Guard", () => {
  it("a denied delete never runs; the model reads why and deletes under /tmp instead", async () => {
    const deleted: string[] = [];
    const deleteFile = tool({
      name: "filesystem_delete_file",
      description: "Delete a file",
      parameters: z.object({ path: z.string() }),
      inputGuardrails: [wardenToolInputGuardrail({ guard: tools })],
      execute: async ({ path }) => {
        deleted.push(path);
        return `deleted ${path}`;
      },
    });
    const seen: string[] = [];
    const model = new ScriptedAgentsModel(({ request, step }) => {
      const results = toolResults(request);
      if (step === 0)
        return {
          calls: [
            { name: "filesystem_delete_file", arguments: { path: "/home/me/notes.txt" }, callId: "c1" },
          ],
        };
      if (step === 1) {
        seen.push(results.get("c1") ?? "");
        return {
          calls: [{ name: "filesystem_delete_file", arguments: { path: "/tmp/notes.txt" }, callId: "c2" }],
        };
      }
      seen.push(results.get("c2") ?? "");
      return { text: "Deleted the scratch copy under /tmp." };
    });
    const agent = new Agent({ name: "files", model, tools: [deleteFile] });
    const result = await new Runner({ tracingDisabled: true }).run(agent, "Remove my notes", { maxTurns: 6 });

    expect(deleted).toEqual(["/tmp/notes.txt"]);
    expect(seen[0]).toContain("Warden refused the call to filesystem_delete_file");
    expect(seen[0]).toContain("tool.delete-only-tmp");
    expect(seen[1]).toBe("deleted /tmp/notes.txt");
    expect(result.finalOutput).toBe("Deleted the scratch copy under /tmp.");
  });

  it("the input guardrail stops a request the policy refuses before the model is called", async () => {
    const user = { age: 16, domestic: true, dr_license: false, vaccine: true, membership: true };
    const model = new ScriptedAgentsModel(() => ({ text: "Booked." }));
    const agent = new Agent({
      name: "web",
      model,
      inputGuardrails: [wardenInputGuardrail({ guard: web, context: { user } })],
      outputGuardrails: [wardenOutputGuardrail({ guard: web, context: { user } })],
    });
    const runner = new Runner({ tracingDisabled: true });
    const error = await runner.run(agent, "Book a hotel in Paris for tonight").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputGuardrailTripwireTriggered);
    const info = (error as InputGuardrailTripwireTriggered).result.output.outputInfo;
    expect(info.explanation).toBe("User aged under 18 cannot book a hotel");
    expect(model.requests).toHaveLength(0);

    const adult = new Agent({
      name: "web",
      model,
      inputGuardrails: [wardenInputGuardrail({ guard: web, context: { user: { ...user, age: 30 } } })],
      outputGuardrails: [wardenOutputGuardrail({ guard: web, context: { user: { ...user, age: 30 } } })],
    });
    const allowed = await runner.run(adult, "Book a hotel in Paris for tonight");
    expect(allowed.finalOutput).toBe("Booked.");
  });
});

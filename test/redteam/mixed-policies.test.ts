/**
 * Red team, mixed policies: tool rules, their default and temporal rules in one policy are all applied
 * by whichever engine decides — the shield does not skip the tool rules, `auto` does not refuse what the
 * rules allow — and `compile --check` reports a rule an engine would ignore.
 */
import { writeFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import type { StepInput } from "../../src/core/subject.js";
import { createGuard, type Guard } from "../../src/guard.js";
import {
  expectAllowed,
  expectRefused,
  type InlinePolicy,
  toolCall,
  useGuardPool,
  warden,
} from "./redteam.fixture.js";

const pool = useGuardPool();
const opened: Guard[] = [];
// registered after the pool's hook, so it runs before it (afterAll hooks run as a stack): these guards
// close before the pool does
afterAll(async () => {
  for (const guard of opened) await guard.close();
});

const mixed: InlinePolicy = {
  name: "redteam-mixed",
  rules: {
    toolRules: [
      {
        id: "tool.no-repo-deletion",
        tool: "github.delete_repository",
        effect: "deny",
        message: "Deleting a repository is never allowed",
      },
      { id: "tool.allow-issue", tool: "github.create_issue", effect: "allow", message: "Issues are fine" },
      { id: "tool.allow-review", tool: "github.review", effect: "allow", message: "Reviews are fine" },
      {
        id: "tool.allow-merge",
        tool: "github.merge_pull_request",
        effect: "allow",
        message: "Merges are fine",
      },
    ],
    toolDefault: "ask",
    predicates: [
      {
        name: "merges",
        kind: "action",
        description: "merges a pull request",
        binding: {
          kind: "condition",
          when: { field: "action", op: "eq", value: "github.merge_pull_request" },
        },
      },
      {
        name: "reviewed",
        kind: "action",
        description: "reviews a pull request",
        binding: { kind: "condition", when: { field: "action", op: "eq", value: "github.review" } },
      },
    ],
    temporalRules: [
      { id: "review-before-merge", formula: "G(merges -> O reviewed)", description: "Review before merging" },
    ],
  },
};

const step = (action: string, args: Record<string, unknown> = {}): StepInput => ({ action, args });
const trajectory = (steps: StepInput[]) => ({
  input: "Tidy the repositories",
  output: "",
  trajectory: steps,
});

async function guardWith(engine: "shield" | "auto"): Promise<Guard> {
  const guard = await createGuard({ policy: pool.file(mixed), engine, store: ":memory:" });
  opened.push(guard);
  return guard;
}

describe("mixed policies: every kind of rule applies under every engine", () => {
  it("the shield applies the tool rules at each step", async () => {
    const shield = await guardWith("shield");
    for (const steps of [
      [step("github.delete_repository", { repo: "acme/api" })],
      [
        step("github.create_issue", { repo: "acme/api", title: "x" }),
        step("github.delete_repository", { repo: "acme/api" }),
      ],
      [step("github.review"), step("github.delete_repository", { repo: "acme/api" })],
    ]) {
      expectRefused(
        await shield.check(trajectory(steps)),
        `shield: ${steps.map((s) => s.action).join(" → ")}`,
      );
    }
  });

  it("the shield applies the tool default to a tool no rule names", async () => {
    const shield = await guardWith("shield");
    expectRefused(
      await shield.check(trajectory([step("github.transfer_repository", { repo: "acme/api" })])),
      "transfer",
    );
  });

  it("the shield still applies the temporal rule", async () => {
    const shield = await guardWith("shield");
    expectRefused(
      await shield.check(trajectory([step("github.merge_pull_request", { number: 1 })])),
      "merge unreviewed",
    );
  });

  it("the shield refuses a second breach of a rule the earlier steps already broke", async () => {
    // Step 1 merged without a review (reported by the caller, or let through earlier): the rule can
    // never hold again, so "this step makes it no worse" must not let the next unreviewed merge pass.
    const shield = await guardWith("shield");
    expectRefused(
      await shield.check(
        trajectory([
          step("github.merge_pull_request", { number: 1 }),
          step("github.merge_pull_request", { number: 2 }),
        ]),
      ),
      "second unreviewed merge",
    );
    // An action the broken rule does not govern is still judged on its own.
    expectAllowed(
      await shield.check(
        trajectory([
          step("github.merge_pull_request", { number: 1 }),
          step("github.create_issue", { title: "x" }),
        ]),
      ),
      "issue after the breach",
    );
  });

  it("auto refuses the denied tool and allows what the rules allow", async () => {
    const auto = await guardWith("auto");
    expectRefused(
      await auto.check(toolCall({ name: "github.delete_repository", args: { repo: "acme/api" } })),
      "auto delete",
    );
    expectAllowed(
      await auto.check(toolCall({ name: "github.create_issue", args: { repo: "acme/api", title: "x" } })),
      "auto create_issue",
    );
  });

  it("the CLI's shield refuses the denied tool (exit 1)", async () => {
    const file = pool.file(mixed);
    const traj = `${file}.trajectory.json`;
    writeFileSync(
      traj,
      JSON.stringify({
        input: "Tidy the repositories",
        steps: [step("github.delete_repository", { repo: "acme/api" })],
      }),
    );
    const r = await warden(["check", "--policy", file, "--trajectory", traj, "--engine", "shield", "--json"]);
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(1);
  });
});

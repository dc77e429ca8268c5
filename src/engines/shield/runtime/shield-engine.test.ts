import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Policy, type PolicyInput, PolicySchema } from "../../../core/policy.js";
import type { Step, StepInput } from "../../../core/subject.js";
import { buildCircuits } from "../circuits/build-circuits.js";
import { runShieldOnTrajectory } from "./run-shield-on-trajectory.js";
import { createShieldEngine } from "./shield-engine.js";
import { createShieldSession } from "./shield-session.js";

const isClick = { field: "actionType", op: "eq", value: "click" } as const;

const REPO_POLICY_INPUT: PolicyInput = {
  name: "repo-guard",
  specification: "A coding agent working in a GitLab web interface.",
  requests: "Ask before deleting a branch. Never delete protected branches. Report errors. Say goodbye.",
  rules: {
    predicates: [
      {
        name: "deletes_branch",
        kind: "action",
        description: "clicks a button that deletes a branch",
        binding: {
          kind: "condition",
          when: { all: [isClick, { field: "elementText", op: "contains", value: "delete" }] },
        },
      },
      {
        name: "asks_user",
        kind: "action",
        description: "sends the user a message",
        binding: { kind: "condition", when: { field: "actionType", op: "eq", value: "send_msg_to_user" } },
      },
      {
        name: "on_protected_page",
        kind: "state",
        description: "the page is about a protected branch",
        binding: { kind: "condition", when: { field: "url", op: "contains", value: "protected" } },
      },
      {
        name: "says_goodbye",
        kind: "action",
        description: "the final answer says goodbye",
        binding: { kind: "condition", when: { field: "message", op: "contains", value: "goodbye" } },
      },
    ],
    temporalRules: [
      {
        id: "ask-first",
        formula: "G(deletes_branch -> Y(O(asks_user)))",
        description: "Ask the user before deleting a branch",
        effect: "ask",
        countermeasure: "Ask the user to confirm the deletion first",
        source: "repo policy §1",
      },
      {
        id: "protected",
        formula: "G(deletes_branch -> !on_protected_page)",
        description: "Never delete a protected branch",
        message: "Protected branches must not be deleted",
        countermeasure: "Leave protected branches alone",
        source: "repo policy §2",
      },
      {
        id: "goodbye",
        formula: "F says_goodbye",
        description: "End with goodbye",
        check: "end",
        source: "repo policy §3",
      },
      {
        id: "task7-only",
        formula: "G !asks_user",
        description: "Task 7 needs no questions",
        scope: "task:7",
      },
    ],
  },
};
const policy: Policy = PolicySchema.parse(REPO_POLICY_INPUT);

const step = {
  home: { action: "click", args: {}, element: "Branches", url: "http://git.test/repo/branches" },
  ask: {
    action: "send_msg_to_user",
    args: { text: "May I delete branch old?" },
    url: "http://git.test/repo/branches",
  },
  del: { action: "click", args: {}, element: "Delete branch", url: "http://git.test/repo/branches/old" },
  delProtected: {
    action: "click",
    args: {},
    element: "Delete branch",
    url: "http://git.test/repo/branches/protected/main",
  },
  bye: { action: "answer", args: { text: "done, goodbye" } },
} satisfies Record<string, StepInput>;

function subject(steps: StepInput[], context?: Record<string, unknown>, id?: string) {
  return {
    input: "clean up branches",
    output: "",
    trajectory: steps as Step[],
    ...(context ? { context } : {}),
    ...(id ? { id } : {}),
  };
}

describe("createShieldEngine", () => {
  it("denies a step that newly breaks a rule and explains it", async () => {
    const engine = createShieldEngine();
    const d = await engine.check({ policy, subject: subject([step.home, step.ask, step.delProtected]) });
    expect(d).toMatchObject({ allowed: false, verdict: "deny", label: 1, engine: "shield", output: null });
    expect(d.violations).toHaveLength(1);
    expect(d.violations[0]).toMatchObject({
      ruleId: "protected",
      message: "Protected branches must not be deleted",
      source: "repo policy §2",
      countermeasure: "Leave protected branches alone",
      details: {
        formula: "G(deletes_branch -> !on_protected_page)",
        operation: "formal-verify",
        predicates: {
          deletes_branch: { value: true, operation: "binary-check" },
          on_protected_page: { value: true, operation: "binary-check" },
        },
      },
    });
    expect(d.explanation).toContain("Leave protected branches alone");
    expect(d.trace?.facts).toMatchObject({
      step: 2,
      invoked: ["deletes_branch"],
      circuits: ["deletes_branch"],
    });
    expect(d.cost).toMatchObject({ llmCalls: 0, inputTokens: 0, outputTokens: 0 });
  });

  it("answers ask when only a confirmation rule is broken, allow otherwise", async () => {
    const engine = createShieldEngine();
    const asked = await engine.check({ policy, subject: subject([step.home, step.del]) });
    expect(asked).toMatchObject({ allowed: false, verdict: "ask", violations: [{ ruleId: "ask-first" }] });
    const ok = await engine.check({ policy, subject: subject([step.home, step.ask, step.del]) });
    expect(ok).toMatchObject({ allowed: true, verdict: "allow", violations: [] });
    expect(ok.output).toMatchObject({ action: "click", element: "Delete branch" });
  });

  it("allows a step that invokes no action of the policy", async () => {
    const d = await createShieldEngine().check({ policy, subject: subject([step.home]) });
    expect(d.allowed).toBe(true);
    expect(d.trace?.notes?.join(" ")).toContain("no action predicate");
  });

  it("applies ε as a tolerance: 1.5 lets one weight-1 rule go, not two", async () => {
    const both = subject([step.home, step.delProtected]);
    expect((await createShieldEngine({ epsilon: 0 }).check({ policy, subject: both })).allowed).toBe(false);
    expect((await createShieldEngine({ epsilon: 1.5 }).check({ policy, subject: both })).allowed).toBe(false);
    expect((await createShieldEngine({ epsilon: 2 }).check({ policy, subject: both })).allowed).toBe(true);
    const one = subject([step.home, step.del]);
    const tolerated = await createShieldEngine({ epsilon: 1.5 }).check({ policy, subject: one });
    expect(tolerated.allowed).toBe(true);
    expect(tolerated.trace?.notes?.join(" ")).toContain("tolerated within ε = 1.5: ask-first");
    // The policy's own ε applies when the engine sets none.
    const lenient = PolicySchema.parse({
      ...REPO_POLICY_INPUT,
      rules: { ...REPO_POLICY_INPUT.rules, epsilon: 1.5 },
    });
    expect((await createShieldEngine().check({ policy: lenient, subject: one })).allowed).toBe(true);
  });

  it("selects scoped rules from the context and judges end rules with final: true", async () => {
    const engine = createShieldEngine();
    const run = [step.home, step.ask];
    expect((await engine.check({ policy, subject: subject(run) })).allowed).toBe(true);
    const scoped = await engine.check({ policy, subject: subject(run, { taskId: 7 }) });
    expect(scoped.violations.map((v) => v.ruleId)).toEqual(["task7-only"]);
    const unfinished = await engine.check({ policy, subject: subject(run, { final: true }) });
    expect(unfinished).toMatchObject({
      allowed: false,
      verdict: "deny",
      violations: [{ ruleId: "goodbye" }],
    });
    expect(unfinished.violations[0]?.details).toMatchObject({ phase: "end" });
    const done = await engine.check({ policy, subject: subject([...run, step.bye], { final: true }) });
    expect(done.allowed).toBe(true);
  });

  it("uses the policy's stored circuits, completed with every rule that names the action", async () => {
    const stale = PolicySchema.parse({
      ...REPO_POLICY_INPUT,
      rules: {
        ...REPO_POLICY_INPUT.rules,
        circuits: [{ action: "deletes_branch", rules: ["ask-first"], clusters: [] }],
      },
    });
    const d = await createShieldEngine().check({
      policy: stale,
      subject: subject([step.ask, step.delProtected]),
    });
    expect(d.violations.map((v) => v.ruleId)).toEqual(["protected"]);
    expect(buildCircuits({ policy }).map((c) => c.action)).toEqual([
      "deletes_branch",
      "asks_user",
      "says_goodbye",
    ]);
  });

  it("decides later steps without reading earlier ones again", async () => {
    const reads: number[] = [];
    const steps = [step.home, step.ask, step.home, step.del, step.home, step.ask, step.bye].map((s, i) => {
      reads[i] = 0;
      return new Proxy({ ...s, observation: `page ${i}` } as Step, {
        get(target, key, receiver) {
          if (key === "observation") reads[i] = (reads[i] ?? 0) + 1;
          return Reflect.get(target, key, receiver);
        },
      });
    });
    const engine = createShieldEngine();
    const snapshots: number[][] = [];
    for (let n = 1; n <= steps.length; n += 1) {
      await engine.check({ policy, subject: subject(steps.slice(0, n), undefined, "run-1") });
      snapshots.push([...reads]);
    }
    for (let n = 2; n < steps.length; n += 1)
      for (let k = 0; k < n - 1; k += 1)
        expect(snapshots[n]![k], `step ${k} read again at check ${n}`).toBe(snapshots[n - 1]![k]);
  });

  it("gives the same decisions incrementally, from scratch and in a session", async () => {
    const pool: StepInput[] = Object.values(step);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...pool), { minLength: 1, maxLength: 8 }), async (run) => {
        const incremental = createShieldEngine();
        const session = createShieldSession({
          engine: createShieldEngine(),
          policy,
          input: "clean up branches",
        });
        for (let n = 1; n <= run.length; n += 1) {
          const prefix = run.slice(0, n);
          const a = await incremental.check({ policy, subject: subject(prefix, undefined, "same") });
          const b = await createShieldEngine().check({ policy, subject: subject(prefix) });
          const c = await session.step({ step: run[n - 1]! });
          for (const d of [b, c]) {
            expect(d.verdict).toBe(a.verdict);
            expect(d.violations.map((v) => v.ruleId)).toEqual(a.violations.map((v) => v.ruleId));
          }
        }
        const end = await session.finish();
        const whole = await createShieldEngine().check({ policy, subject: subject(run, { final: true }) });
        expect(end.violations.map((v) => v.ruleId)).toEqual(
          whole.violations
            .filter((v) => (v.details as { phase?: string }).phase === "end")
            .map((v) => v.ruleId),
        );
      }),
      { numRuns: 40 },
    );
  });

  it("re-checks the same last step and takes a replacement proposal for the same position", async () => {
    const engine = createShieldEngine();
    const id = "live";
    const first = await engine.check({
      policy,
      subject: subject([step.home, step.delProtected], undefined, id),
    });
    expect(first.allowed).toBe(false);
    const again = await engine.check({
      policy,
      subject: subject([step.home, step.delProtected], undefined, id),
    });
    expect(again.violations).toEqual(first.violations);
    // The agent proposes something else at position 1 instead.
    const instead = await engine.check({ policy, subject: subject([step.home, step.ask], undefined, id) });
    expect(instead.allowed).toBe(true);
    const then = await engine.check({
      policy,
      subject: subject([step.home, step.ask, step.del], undefined, id),
    });
    expect(then.allowed).toBe(true);
    // A different trajectory under the same id is recognised and started over.
    const other = await engine.check({ policy, subject: subject([step.del], undefined, id) });
    expect(other.verdict).toBe("ask");
  });

  it("tells apart unnamed trajectories that share the task and first step but differ in the middle", async () => {
    const engine = createShieldEngine();
    await engine.check({ policy, subject: subject([step.home, step.ask, step.home, step.home]) });
    // Same task, same first and last committed steps; the question in the middle is missing.
    const d = await engine.check({
      policy,
      subject: subject([step.home, step.home, step.home, step.home, step.del]),
    });
    expect(d.verdict).toBe("ask");
  });

  it("runs a recorded trajectory: decisions, first blocked step, end decision, violated rules", async () => {
    const engine = createShieldEngine();
    const r = await runShieldOnTrajectory({
      engine,
      policy,
      trajectory: { input: "clean up", steps: [step.home, step.del, step.delProtected] },
    });
    expect(r.decisions.map((d) => d.verdict)).toEqual(["allow", "ask", "deny"]);
    expect(r.blockedAt).toBe(1);
    expect(r.final.violations.map((v) => v.ruleId)).toEqual(["goodbye"]);
    expect(r.violatedRules).toEqual(["ask-first", "protected", "goodbye"]);
    expect(r.unsafe).toBe(true);
  });

  it("rejects misuse with errors naming the field", async () => {
    const engine = createShieldEngine();
    await expect(engine.check({ policy, subject: subject([]) })).rejects.toThrow(/subject\.trajectory/);
    await expect(
      engine.check({ policy, subject: subject([step.home, { args: {} } as unknown as StepInput]) }),
    ).rejects.toThrow(/subject\.trajectory\.1\.action/);
    expect(() => createShieldEngine({ epsilon: -1 })).toThrow(/epsilon/);
    const session = createShieldSession({ engine, policy, input: "x" });
    await expect(session.step({ step: { action: "" } })).rejects.toThrow(/step\.action/);
    await expect(session.finish()).rejects.toThrow(/no step/);
    const bad = PolicySchema.parse({
      ...REPO_POLICY_INPUT,
      rules: { ...REPO_POLICY_INPUT.rules, temporalRules: [{ id: "x", formula: "G(", description: "x" }] },
    });
    await expect(engine.check({ policy: bad, subject: subject([step.home]) })).rejects.toThrow(/rule x/);
  });
});

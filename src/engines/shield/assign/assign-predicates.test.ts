import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Predicate } from "../../../core/policy.js";
import type { Step } from "../../../core/subject.js";
import type { Detector } from "../detectors/detector.js";
import { createDetectorRegistry } from "../detectors/registry.js";
import { assignPredicates, createAssignmentHistory, createPredicateAssigner } from "./assign-predicates.js";

const predicates: Predicate[] = [
  {
    name: "clicks_delete",
    kind: "action",
    description: "clicks something saying delete",
    binding: {
      kind: "condition",
      when: {
        all: [
          { field: "actionType", op: "eq", value: "click" },
          { field: "elementText", op: "contains", value: "delete" },
        ],
      },
    },
  },
  {
    name: "asked_before",
    kind: "action",
    description: "asked the user at some step so far",
    binding: { kind: "history", when: { field: "actionType", op: "eq", value: "send_msg_to_user" } },
  },
  {
    name: "asked_recently",
    kind: "action",
    description: "asked within the last 2 steps",
    binding: {
      kind: "history",
      when: { field: "actionType", op: "eq", value: "send_msg_to_user" },
      within: 2,
    },
  },
  {
    name: "types_pii",
    kind: "action",
    description: "types personal data",
    binding: {
      kind: "detector",
      detector: "pii",
      field: "typed",
      params: { when: { field: "isInput", op: "eq", value: true } },
    },
  },
  {
    name: "page_error",
    kind: "state",
    description: "error shown",
    binding: { kind: "detector", detector: "error-popup" },
  },
  {
    name: "is_harmful",
    kind: "state",
    description: "model judgement",
    binding: { kind: "ask", question: "Harmful?" },
  },
  { name: "unbound", kind: "state", description: "no binding" },
  {
    name: "custom",
    kind: "state",
    description: "unknown detector",
    binding: { kind: "detector", detector: "nope" },
  },
];

const trajectory: Step[] = [
  { action: "send_msg_to_user('May I delete the branch?')", args: {} },
  { action: "click", args: {}, element: "Settings", observation: "Settings page" },
  {
    action: "fill",
    args: { bid: "b1" },
    element: "Email",
    value: "jane.doe@example.com",
    observation: "<p>ok</p>",
  },
  {
    action: "click",
    args: {},
    element: "Delete branch",
    observation: "<div>500 Internal Server Error</div>",
  },
];

describe("assignPredicates", () => {
  const detectors = createDetectorRegistry();

  it("assigns condition, history and detector bindings and leaves the rest open", () => {
    const at = (index: number) => assignPredicates({ predicates, trajectory, index, detectors });
    expect(at(0).values).toMatchObject({
      clicks_delete: false,
      asked_before: true,
      asked_recently: true,
      types_pii: false,
    });
    expect(at(0).unassigned).toEqual(["page_error", "is_harmful", "unbound", "custom"]);
    expect(at(0).notes).toEqual(["custom: no detector named 'nope' is registered"]);
    expect(at(2).values).toMatchObject({
      types_pii: true,
      asked_recently: false,
      asked_before: true,
      page_error: false,
    });
    expect(at(3).values).toMatchObject({ clicks_delete: true, page_error: true, types_pii: false });
  });

  it("gives the same answers incrementally as from scratch, reading each earlier step once", () => {
    const reads: number[] = trajectory.map(() => 0);
    const watched = trajectory.map(
      (step, i) =>
        new Proxy(step, {
          get(target, key, receiver) {
            if (key === "element") reads[i] = (reads[i] ?? 0) + 1;
            return Reflect.get(target, key, receiver);
          },
        }),
    );
    const history = createAssignmentHistory();
    const snapshots: number[][] = [];
    for (let i = 0; i < watched.length; i += 1) {
      const incremental = assignPredicates({ predicates, trajectory: watched, index: i, detectors, history });
      expect(incremental).toEqual(assignPredicates({ predicates, trajectory, index: i, detectors }));
      snapshots.push([...reads]);
    }
    // Once step k is behind the last step read, assigning later steps never touches it again.
    for (let i = 2; i < watched.length; i += 1) {
      for (let k = 0; k < i - 1; k += 1) expect(snapshots[i]![k]).toBe(snapshots[i - 1]![k]);
    }
    expect(history.consumed).toBe(4);
  });

  it("history windows agree with a plain scan on random trajectories", () => {
    const stepArb = fc.constantFrom<Step>(
      { action: "send_msg_to_user", args: { text: "hi there" } },
      { action: "click", args: {}, element: "Save" },
      { action: "goto", args: { url: "http://a.test" } },
    );
    fc.assert(
      fc.property(
        fc.array(stepArb, { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1, max: 4 }),
        (steps, within) => {
          const preds: Predicate[] = [
            {
              name: "msg_window",
              kind: "action",
              description: "x",
              binding: {
                kind: "history",
                when: { field: "actionType", op: "eq", value: "send_msg_to_user" },
                within,
              },
            },
          ];
          const assigner = createPredicateAssigner({ predicates: preds, detectors });
          steps.forEach((step, i) => {
            const got = assigner.push({ step }).values.msg_window;
            const want = steps
              .slice(Math.max(0, i - within + 1), i + 1)
              .some((s) => s.action === "send_msg_to_user");
            expect(got).toBe(want);
          });
        },
      ),
    );
  });

  it("starts over when the trajectory it was following changed", () => {
    const history = createAssignmentHistory();
    assignPredicates({ predicates, trajectory, index: 3, detectors, history });
    const other: Step[] = [
      { action: "click", args: {}, element: "Home" },
      { action: "click", args: {}, element: "About" },
    ];
    expect(
      assignPredicates({ predicates, trajectory: other, index: 1, detectors, history }).values.asked_before,
    ).toBe(false);
  });

  it("marginalises a detector that cannot tell", () => {
    const unsure: Detector = { name: "unsure", description: "never knows", detect: () => undefined };
    const r = assignPredicates({
      predicates: [
        { name: "u", kind: "state", description: "u", binding: { kind: "detector", detector: "unsure" } },
      ],
      trajectory,
      index: 0,
      detectors: createDetectorRegistry({ detectors: [unsure] }),
    });
    expect(r).toEqual({ values: {}, unassigned: ["u"], notes: [] });
  });

  it("rejects a bad index and invalid predicates with errors naming the field", () => {
    expect(() => assignPredicates({ predicates, trajectory, index: 9, detectors })).toThrow(
      /index must be an integer in 0\.\.3/,
    );
    const bad = [{ name: "Bad-Name", kind: "state", description: "x" }] as unknown as Predicate[];
    expect(() => assignPredicates({ predicates: bad, trajectory, index: 0, detectors })).toThrow(
      /predicates\.0\.name/,
    );
  });
});

describe("bindings over undetermined values", () => {
  const detectors = createDetectorRegistry();
  const touchesEtc = (kind: "condition" | "history"): Predicate => ({
    name: "touches_etc",
    kind: "action",
    description: "touches a file under /etc",
    binding: { kind, when: { field: "args.path", op: "pathWithin", value: "/etc" } } as Predicate["binding"],
  });
  const at = (predicate: Predicate, paths: string[]) =>
    assignPredicates({
      predicates: [predicate],
      trajectory: paths.map((path) => ({ action: "read_file", args: { path } })),
      index: paths.length - 1,
      detectors,
    });

  it("a condition over a value with no canonical form leaves the predicate open, not false", () => {
    const r = at(touchesEtc("condition"), ["~/notes"]);
    expect(r.values).not.toHaveProperty("touches_etc");
    expect(r.unassigned).toEqual(["touches_etc"]);
    expect(r.notes.join(" ")).toContain("touches_etc: undetermined");
  });

  it("canonical forms decide where they can", () => {
    expect(at(touchesEtc("condition"), ["/tmp/../etc/passwd"]).values.touches_etc).toBe(true);
    expect(at(touchesEtc("condition"), ["/tmp/a"]).values.touches_etc).toBe(false);
  });

  it("a history binding is open when an unknown step is in its window and none matched", () => {
    expect(at(touchesEtc("history"), ["~/x", "/tmp/a"]).unassigned).toEqual(["touches_etc"]);
    expect(at(touchesEtc("history"), ["~/x", "/etc/hosts"]).values.touches_etc).toBe(true);
    expect(at(touchesEtc("history"), ["/tmp/b", "/tmp/a"]).values.touches_etc).toBe(false);
  });
});

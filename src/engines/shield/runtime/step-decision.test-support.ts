/**
 * A small policy and trajectory states for testing the stages of step-decision.ts one at a time: each
 * binding kind (condition, history, ask, detector), an undeclared atom, a past-time rule, an end rule
 * and a scoped rule, so every stage has something to assign, select, ask, verify and explain.
 */
import { type Policy, PolicySchema } from "../../../core/policy.js";
import type { Step } from "../../../core/subject.js";
import { createDetectorRegistry } from "../detectors/registry.js";
import { compileShieldPolicy } from "./compiled-shield-policy.js";
import { advanceTo, createTrajectoryState, type TrajectoryState } from "./trajectory-state.js";

export const STAGES_POLICY: Policy = PolicySchema.parse({
  name: "stages",
  version: "1.0.0",
  specification: "An assistant that manages files.",
  requests: "Keep confidential files inside the company; ask before deleting.",
  rules: {
    predicates: [
      {
        name: "shares_file",
        kind: "action",
        description: "shares a file",
        binding: { kind: "condition", when: { field: "actionType", op: "eq", value: "share" } },
      },
      {
        name: "deletes",
        kind: "action",
        description: "deletes a file",
        binding: { kind: "condition", when: { field: "actionType", op: "eq", value: "delete" } },
      },
      {
        name: "opened_settings",
        kind: "action",
        description: "opened the settings page lately",
        binding: { kind: "history", when: { field: "url", op: "contains", value: "/settings" }, within: 2 },
      },
      {
        name: "touches_tmp",
        kind: "action",
        description: "works in /tmp",
        binding: { kind: "history", when: { field: "args.path", op: "pathWithin", value: "/tmp" } },
      },
      {
        name: "leaks_secret",
        kind: "action",
        description: "leaks a secret",
        binding: { kind: "ask", question: "Does this step leak a secret?" },
      },
      {
        name: "is_confidential",
        kind: "state",
        description: "the file is confidential",
        binding: { kind: "ask", question: "Is the file being shared confidential?" },
      },
      {
        name: "consented",
        kind: "state",
        description: "the user consented",
        binding: { kind: "ask", question: "Did the user consent to this?" },
      },
      {
        name: "internal_share",
        kind: "state",
        description: "the recipient is inside the company",
        binding: { kind: "condition", when: { field: "args.to", op: "endsWith", value: "@corp.test" } },
      },
      {
        name: "has_pii",
        kind: "state",
        description: "the typed value holds personal data",
        binding: { kind: "detector", detector: "pii", field: "value" },
      },
    ],
    temporalRules: [
      {
        id: "conf",
        formula: "G(shares_file & !internal_share -> !is_confidential)",
        description: "Do not share confidential files outside the company",
        countermeasure: "Share a redacted copy",
        source: "files policy §1",
      },
      { id: "consent", formula: "G(deletes -> consented)", description: "Ask first", effect: "ask" },
      { id: "settings-first", formula: "G(deletes -> O opened_settings)", description: "Settings first" },
      { id: "no-leak", formula: "G !leaks_secret", description: "Never leak secrets" },
      { id: "tmp", formula: "G(touches_tmp -> !mystery)", description: "Mind /tmp", weight: 0.5 },
      { id: "end-consent", formula: "F consented", description: "Get consent once", check: "end" },
      { id: "mail-pii", formula: "G(shares_file -> !has_pii)", description: "No PII", scope: "mail" },
    ],
  },
});

export const share = (to: string, extra: Partial<Step> = {}): Step => ({
  action: "share",
  args: { file: "report.pdf", to },
  ...extra,
});

/** A trajectory state brought up to the last of `steps` (the step to decide). */
export function stageState(options: {
  steps: readonly Step[];
  policy?: Policy;
  scopes?: readonly string[];
  input?: string;
}): TrajectoryState {
  const compiled = compileShieldPolicy({ policy: options.policy ?? STAGES_POLICY });
  const scoped = compiled.inScope({ scopes: options.scopes ?? [] });
  const state = createTrajectoryState({
    key: "test",
    compiled,
    scoped,
    input: options.input ?? "share the report",
    context: undefined,
  });
  advanceTo({ state, steps: options.steps, index: options.steps.length - 1, detectors: DETECTORS });
  return state;
}

export const DETECTORS = createDetectorRegistry();

/**
 * The figures the papers report, shown beside ours in reports so readers can compare — always with the
 * model that produced them. None of these is reproduced here unless a report says so.
 */

export interface PaperAnchor {
  paper: "GuardAgent" | "ShieldAgent";
  table: string;
  dataset: string;
  method: string;
  model: string;
  metrics: Record<string, number>;
}

export const PAPER_ANCHORS: readonly PaperAnchor[] = [
  // GuardAgent, Table 2.
  {
    paper: "GuardAgent",
    table: "Table 2",
    dataset: "eicu-ac",
    method: "GuardAgent",
    model: "GPT-4",
    metrics: { LPA: 98.7, LPP: 100, LPR: 97.5, CCA: 97.5, FRA: 100 },
  },
  {
    paper: "GuardAgent",
    table: "Table 2",
    dataset: "eicu-ac",
    method: "GuardAgent",
    model: "Llama3-70B",
    metrics: { LPA: 98.4, LPP: 100, LPR: 96.9, CCA: 96.9, FRA: 100 },
  },
  {
    paper: "GuardAgent",
    table: "Table 2",
    dataset: "eicu-ac",
    method: "GuardAgent",
    model: "Llama3.1-70B",
    metrics: { LPA: 98.4, LPP: 100, LPR: 96.9, CCA: 95.7, FRA: 100 },
  },
  {
    paper: "GuardAgent",
    table: "Table 2",
    dataset: "eicu-ac",
    method: "baseline (model guarding agents)",
    model: "GPT-4",
    metrics: { LPA: 97.5, LPP: 95.3, LPR: 100, CCA: 67.9, FRA: 100 },
  },
  {
    paper: "GuardAgent",
    table: "Table 2",
    dataset: "eicu-ac",
    method: "baseline (model guarding agents)",
    model: "Llama3-70B",
    metrics: { LPA: 92.1, LPP: 95.4, LPR: 88.9, CCA: 41.4, FRA: 100 },
  },
  {
    paper: "GuardAgent",
    table: "Table 2",
    dataset: "eicu-ac",
    method: "LlamaGuard",
    model: "LlamaGuard3-8B",
    metrics: { LPA: 50.3, LPP: 100, LPR: 3.1, FRA: 100 },
  },
  {
    paper: "GuardAgent",
    table: "Table 2",
    dataset: "mind2web-sc",
    method: "GuardAgent",
    model: "GPT-4",
    metrics: { LPA: 90.0, LPP: 100, LPR: 80.0, CCA: 80.0, FRA: 100 },
  },
  {
    paper: "GuardAgent",
    table: "Table 2",
    dataset: "mind2web-sc",
    method: "GuardAgent",
    model: "Llama3-70B",
    metrics: { LPA: 83.5, LPP: 98.6, LPR: 69.0, CCA: 68.0, FRA: 100 },
  },
  {
    paper: "GuardAgent",
    table: "Table 2",
    dataset: "mind2web-sc",
    method: "GuardAgent",
    model: "Llama3.1-70B",
    metrics: { LPA: 84.5, LPP: 85.6, LPR: 83.0, CCA: 83.0, FRA: 100 },
  },
  {
    paper: "GuardAgent",
    table: "Table 2",
    dataset: "mind2web-sc",
    method: "baseline (model guarding agents)",
    model: "GPT-4",
    metrics: { LPA: 82.5, LPP: 100, LPR: 65.0, CCA: 65.0, FRA: 100 },
  },
  // GuardAgent, Table 7: least-similar retrieval (most-similar is the Table 2 row).
  {
    paper: "GuardAgent",
    table: "Table 7",
    dataset: "eicu-ac",
    method: "GuardAgent, least-similar demonstrations",
    model: "GPT-4",
    metrics: { LPA: 98.1, LPP: 99.4, LPR: 96.9, CCA: 96.9 },
  },
  {
    paper: "GuardAgent",
    table: "Table 7",
    dataset: "mind2web-sc",
    method: "GuardAgent, least-similar demonstrations",
    model: "GPT-4",
    metrics: { LPA: 84.0, LPP: 100, LPR: 79.0, CCA: 79.0 },
  },
  // GuardAgent, Table 4: executable rate (ER) before/after debugging.
  {
    paper: "GuardAgent",
    table: "Table 4",
    dataset: "eicu-ac",
    method: "GuardAgent without toolbox and memory",
    model: "GPT-4",
    metrics: { ERBefore: 90.8, ERAfter: 93.7, LPA: 90.8 },
  },
  {
    paper: "GuardAgent",
    table: "Table 4",
    dataset: "eicu-ac",
    method: "GuardAgent with toolbox and memory",
    model: "GPT-4",
    metrics: { ERBefore: 100, ERAfter: 100, LPA: 98.7 },
  },
  // GuardAgent, Table 8: seconds per check.
  {
    paper: "GuardAgent",
    table: "Table 8",
    dataset: "eicu-ac",
    method: "GuardAgent",
    model: "GPT-4",
    metrics: { secondsPerCheck: 45.4 },
  },
  {
    paper: "GuardAgent",
    table: "Table 8",
    dataset: "mind2web-sc",
    method: "GuardAgent",
    model: "GPT-4",
    metrics: { secondsPerCheck: 37.3 },
  },
  // ShieldAgent, Table 3 and the text.
  {
    paper: "ShieldAgent",
    table: "Table 3",
    dataset: "st-webagentbench",
    method: "ShieldAgent",
    model: "GPT-4o",
    metrics: { ACC: 91.1, FPR: 4.4 },
  },
  {
    paper: "ShieldAgent",
    table: "Table 3",
    dataset: "agentharm",
    method: "ShieldAgent",
    model: "GPT-4o",
    metrics: { ACC: 86.9, FPR: 3.9 },
  },
  {
    paper: "ShieldAgent",
    table: "Table 3",
    dataset: "agentharm",
    method: "GuardAgent",
    model: "GPT-4o",
    metrics: { ACC: 78.4, FPR: 4.1 },
  },
  {
    paper: "ShieldAgent",
    table: "Table 3",
    dataset: "agentharm",
    method: "direct prompting",
    model: "GPT-4o",
    metrics: { ACC: 76.9, FPR: 4.4 },
  },
  {
    paper: "ShieldAgent",
    table: "Table 2",
    dataset: "shieldagent-bench",
    method: "ShieldAgent",
    model: "GPT-4o",
    metrics: { ACCLow: 90.4, ACCHigh: 91.7, llmCallsPerCheck: 10, secondsPerCheck: 32 },
  },
];

export function anchorsFor(options: { dataset: string }): PaperAnchor[] {
  return PAPER_ANCHORS.filter((a) => a.dataset === options.dataset);
}

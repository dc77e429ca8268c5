/**
 * The persistence contract: demonstrations for GuardAgent's memory and shielding workflows for the
 * shield's long-term memory. SQLite (embedded, default) and PostgreSQL (shared) implement it and pass the
 * same conformance suite.
 */

export type DemonstrationOrigin = "seed" | "user" | "learned";

export interface Demonstration {
  id: string;
  /** Policy name the demonstration belongs to. */
  policy: string;
  /** I_i,D */
  input: string;
  /** I_o,D */
  output: string;
  /** P_D: the four-step plan. */
  plan: string;
  /** C_D: the guardrail code (JavaScript). */
  code: string;
  /** Label the demonstration's code produced (when known). */
  label?: 0 | 1;
  origin: DemonstrationOrigin;
  /** ISO time. */
  createdAt: string;
  /** Insertion sequence number: the stable tie-break of retrieval. */
  seq: number;
  meta?: Record<string, unknown>;
}

export type NewDemonstration = Omit<Demonstration, "id" | "createdAt" | "seq"> & { id?: string };

/** A shielding workflow that succeeded: reused as a plan for similar steps. */
export interface Workflow {
  id: string;
  policy: string;
  /** The action predicate it shielded. */
  action: string;
  /** Text the retrieval compares against (the step and its context). */
  query: string;
  /** The plan: which operations assigned which predicates. */
  plan: unknown;
  verdict: "allow" | "deny" | "ask";
  createdAt: string;
  seq: number;
}

export type NewWorkflow = Omit<Workflow, "id" | "createdAt" | "seq"> & { id?: string };

export interface Store {
  /** Appends a demonstration; duplicate content is allowed (only a duplicate id is refused). */
  addDemonstration(options: { demonstration: NewDemonstration }): Promise<Demonstration>;
  /**
   * Appends a demonstration unless one of the same policy with the same content (content-hash.ts: input,
   * output, plan, code) is stored, in which case that one (the earliest by seq) is returned with
   * `added: false`. The lookup and the insert are one locked transaction, so concurrent callers — other
   * store instances and other processes on the same database included — store given content once.
   * Input is validated as addDemonstration validates it; a duplicate id is refused the same way.
   */
  addDemonstrationOnce(options: {
    demonstration: NewDemonstration;
  }): Promise<{ demonstration: Demonstration; added: boolean }>;
  /** All demonstrations of a policy, in insertion order. */
  listDemonstrations(options: { policy: string }): Promise<Demonstration[]>;
  countDemonstrations(options: { policy?: string }): Promise<number>;
  deleteDemonstration(options: { id: string }): Promise<boolean>;
  addWorkflow(options: { workflow: NewWorkflow }): Promise<Workflow>;
  listWorkflows(options: { policy: string; action?: string }): Promise<Workflow[]>;
  close(): Promise<void>;
}

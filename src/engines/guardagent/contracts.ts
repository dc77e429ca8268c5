/**
 * The narrow views of the toolbox and the memory that the GuardAgent pipeline needs; the concrete
 * toolbox (src/toolbox) and memory (src/memory) satisfy them.
 */
import type { Demonstration, NewDemonstration } from "../../store/store.js";

export interface GuardToolbox {
  /** Whether toolbox functions are exposed at all (false = the "no toolbox" ablation). */
  readonly enabled: boolean;
  /** One line per function: typed signature and one-line description, for the code instruction. */
  render(): string;
  /** Sources evaluated in the sandbox before the program. */
  prelude(): readonly string[];
}

export type RetrievalOrder = "most" | "least";

/** Demonstrations of every policy, each policy's kept apart. */
export interface GuardMemory {
  retrieve(options: {
    policy: string;
    input: string;
    output: string;
    k: number;
    order: RetrievalOrder;
  }): Promise<Demonstration[]>;
  /** Appends a case; returns whether it was stored (the memory's learning mode decides). */
  remember(options: { demonstration: NewDemonstration; correct?: boolean }): Promise<boolean>;
}

/**
 * Incremental LTLf monitoring for the runtime shield: steps are pushed one at a time and after each
 * push the monitor answers, without revisiting earlier steps,
 *   - atStart: the formula's value at position 0 of the trace so far, as if the trace ended now (the
 *     reading for rules written over the whole run, e.g. `G(delete -> O confirm)` or `F goal`);
 *   - atEnd: the formula's value at the last position, as if the trace ended now (the reading for
 *     rules written about the current step, e.g. `delete -> O confirm` or `submit -> Y review`);
 *   - verdict: "satisfied" / "violated" once the atStart value is the same for every continuation
 *     of the trace, "pending" otherwise. Sound, not complete: a settled verdict is never wrong, but a
 *     residual whose obligations contradict each other (say `X p & X !p`) may still read "pending".
 * Both readings agree with `evaluate` on every prefix (property-tested).
 *
 * How. Formula progression over canonical decision diagrams. A "residual" is a boolean function of
 * the variable END ("the trace ends at the current step") and of one variable per future subformula
 * χ that the next position must settle ("χ holds at the next position"). Reading step i, every
 * subformula gets its expansion E_i: atoms become constants; `X χ` becomes !END & next(χ);
 * `WX χ` becomes END | next(χ); `F χ` = E_i(χ) | (!END & next(F χ)); `G χ` = E_i(χ) & (END | next(G χ));
 * U and R likewise; past operators read the previous step's expansion, carried forward by substituting
 * END := false and next(χ) := E_i(χ) (for `Y χ`, `O χ`, `H χ`, `φ S ψ`). The residual of the whole
 * formula at position 0 is E_0(φ), then carried forward the same way at every step. Setting END := true
 * in a residual leaves a constant: the value if the trace ended now. Because the diagrams are reduced
 * and ordered, equivalent residuals are one node, so the state is bounded by the formula, never by the
 * trace length.
 *
 * Cost per step. One pass over the distinct subformulas plus diagram operations on the residuals.
 * For the common rule shapes (G or F over a body of atoms, boolean connectives and past operators,
 * `a U b`, `G(a -> F b)`, ...) every residual has at most a few nodes and a step is O(|φ|). In general
 * the residuals are functions of at most |φ|+1 variables, so a step is bounded by a function of |φ|
 * alone (exponential only for contrived formulas), and independent of how many steps came before.
 * Dead diagram nodes are reclaimed by copying the live ones into a fresh manager once the table has
 * grown to several times the live size, which keeps memory bounded and costs O(1) amortised per node.
 */
import { WardenError } from "../../../core/errors.js";
import type { LtlAst } from "./ast.js";
import { BDD_FALSE, BDD_MAX_VARIABLES, BDD_TRUE, Bdd } from "./bdd.js";
import { type CompiledLtl, compileLtl } from "./compile.js";
import { holds, type LtlStep } from "./trace.js";

export type LtlVerdict = "satisfied" | "violated" | "pending";

export interface LtlReading {
  /** Value at position 0 of the trace so far, as if it ended at the last step pushed. */
  atStart: boolean;
  /** Value at the last step pushed, as if the trace ended there. */
  atEnd: boolean;
  /** Whether the atStart value is already fixed for every continuation (see the module comment). */
  verdict: LtlVerdict;
}

export interface LtlMonitorStats {
  /** Steps pushed. */
  steps: number;
  /** Decision-diagram nodes of the position-0 residual (terminals included). */
  residualNodes: number;
  /** Nodes reachable from everything the monitor keeps between steps. */
  liveNodes: number;
  /** Nodes currently allocated, garbage included. */
  tableNodes: number;
}

export interface LtlMonitor {
  /** Steps pushed so far. */
  readonly length: number;
  /** Consumes the next step and returns the atStart reading: the value at position 0 of the trace so far. */
  push(options: { step: LtlStep }): boolean;
  /** The readings the monitor would give if `step` were pushed, leaving the monitor unchanged. */
  peek(options: { step: LtlStep }): LtlReading;
  /** The current readings (before any push: false, false, "pending" — the empty trace satisfies nothing). */
  reading(): LtlReading;
  stats(): LtlMonitorStats;
  /** Forgets every step. */
  reset(): void;
}

/** Variable 0 is END; variable v > 0 is "next(χ)" for the node varNode[v]. */
const END = 0;

interface Plan {
  compiled: CompiledLtl;
  /** Node -> its next() variable, or -1. */
  varOf: Int32Array;
  /** Variable -> node. */
  varNode: Int32Array;
  /** Nodes whose expansion must be carried to the next step (arguments of Y; O, H and S nodes). */
  kept: number[];
}

function plan(ast: LtlAst): Plan {
  const compiled = compileLtl({ ast });
  const { ops, first } = compiled;
  const varOf = new Int32Array(ops.length).fill(-1);
  const varNode: number[] = [-1];
  const keep = new Uint8Array(ops.length);
  const need = (node: number): void => {
    if ((varOf[node] as number) < 0) {
      varOf[node] = varNode.length;
      varNode.push(node);
    }
  };
  ops.forEach((op, k) => {
    if (op === "X" || op === "WX") need(first[k] as number);
    else if (op === "F" || op === "G" || op === "U" || op === "R") need(k);
    else if (op === "Y") keep[first[k] as number] = 1;
    else if (op === "O" || op === "H" || op === "S") keep[k] = 1;
  });
  if (varNode.length > BDD_MAX_VARIABLES) {
    throw new WardenError({
      code: "UNSUPPORTED",
      message: `formula has ${varNode.length - 1} future subformulas; the monitor handles at most ${BDD_MAX_VARIABLES - 1}`,
    });
  }
  const kept: number[] = [];
  keep.forEach((flag, k) => {
    if (flag) kept.push(k);
  });
  return { compiled, varOf, varNode: Int32Array.from(varNode), kept };
}

class Monitor implements LtlMonitor {
  private bdd = new Bdd();
  private steps = 0;
  /** Position-0 residual (meaningful once steps > 0). */
  private residual = BDD_FALSE;
  /** Previous step's expansion of each kept node. */
  private readonly previous: Int32Array;
  private lastAtEnd = false;
  private liveAfterCollect = 0;
  /** This step's expansion of every node. */
  private readonly e: Int32Array;
  /** Memo of `carry` within one step. */
  private readonly memo = new Map<number, number>();
  /** Variable -> its diagram in the current manager (0 = not made yet). */
  private variables: Int32Array;

  constructor(private readonly plan: Plan) {
    this.previous = new Int32Array(plan.compiled.ops.length);
    this.e = new Int32Array(plan.compiled.ops.length);
    this.variables = new Int32Array(plan.varNode.length);
  }

  get length(): number {
    return this.steps;
  }

  push(options: { step: LtlStep }): boolean {
    const step = checkStep(options);
    const residual = this.compute(step);
    for (const k of this.plan.kept) this.previous[k] = this.e[k] as number;
    this.residual = residual;
    this.lastAtEnd = this.valueIfEnded(this.e[this.plan.compiled.root] as number);
    this.steps++;
    this.collectIfNeeded();
    return this.valueIfEnded(residual);
  }

  peek(options: { step: LtlStep }): LtlReading {
    const step = checkStep(options);
    const residual = this.compute(step);
    const reading = this.readingOf(residual, this.valueIfEnded(this.e[this.plan.compiled.root] as number));
    this.collectIfNeeded();
    return reading;
  }

  reading(): LtlReading {
    if (this.steps === 0) return { atStart: false, atEnd: false, verdict: "pending" };
    return this.readingOf(this.residual, this.lastAtEnd);
  }

  stats(): LtlMonitorStats {
    return {
      steps: this.steps,
      residualNodes: this.bdd.reachable([this.residual]),
      liveNodes: this.bdd.reachable(this.roots()),
      tableNodes: this.bdd.size,
    };
  }

  reset(): void {
    this.bdd = new Bdd();
    this.variables.fill(0);
    this.steps = 0;
    this.residual = BDD_FALSE;
    this.previous.fill(0);
    this.lastAtEnd = false;
    this.liveAfterCollect = 0;
  }

  private readingOf(residual: number, atEnd: boolean): LtlReading {
    const verdict = residual === BDD_TRUE ? "satisfied" : residual === BDD_FALSE ? "violated" : "pending";
    return { atStart: this.valueIfEnded(residual), atEnd, verdict };
  }

  /** Sets END := true; END is the first variable, so that is the root's high branch, a constant. */
  private valueIfEnded(f: number): boolean {
    const { bdd } = this;
    const r = !bdd.isTerminal(f) && bdd.varOf(f) === END ? bdd.high(f) : f;
    if (!bdd.isTerminal(r)) {
      throw new WardenError({
        code: "INTERNAL",
        message: "LTL monitor: residual does not settle at the end",
      });
    }
    return r === BDD_TRUE;
  }

  /**
   * Carries a diagram from the previous step to this one: END := false, next(χ) := E(χ). Every χ
   * such a diagram mentions is a subformula of the node being expanded, so E(χ) is already known.
   */
  private carry(f: number): number {
    const { bdd } = this;
    if (bdd.isTerminal(f)) return f;
    const known = this.memo.get(f);
    if (known !== undefined) return known;
    const v = bdd.varOf(f);
    const r =
      v === END
        ? this.carry(bdd.low(f))
        : bdd.ite(
            this.e[this.plan.varNode[v] as number] as number,
            this.carry(bdd.high(f)),
            this.carry(bdd.low(f)),
          );
    this.memo.set(f, r);
    return r;
  }

  /** next(χ) as a diagram. */
  private next(node: number): number {
    return this.variable(this.plan.varOf[node] as number);
  }

  /** Variable v as a diagram, interned once per manager. */
  private variable(v: number): number {
    let id = this.variables[v] as number;
    if (id === 0) {
      id = this.bdd.variable(v);
      this.variables[v] = id;
    }
    return id;
  }

  /** Expands every subformula at the new step into `this.e` (a buffer reused from step to step). */
  private compute(step: LtlStep): number {
    const { bdd, plan: p, e } = this;
    const { ops, first, second, names, root } = p.compiled;
    const first0 = this.steps === 0;
    if (this.memo.size > 0) this.memo.clear();
    const end = this.variable(END);
    const notEnd = bdd.not(end);
    for (let k = 0; k < ops.length; k++) {
      const a = first[k] as number;
      const b = second[k] as number;
      let r: number;
      switch (ops[k]) {
        case "true":
          r = BDD_TRUE;
          break;
        case "false":
          r = BDD_FALSE;
          break;
        case "atom":
          r = holds(step, names[k] as string) ? BDD_TRUE : BDD_FALSE;
          break;
        case "!":
          r = bdd.not(e[a] as number);
          break;
        case "&":
          r = bdd.and(e[a] as number, e[b] as number);
          break;
        case "|":
          r = bdd.or(e[a] as number, e[b] as number);
          break;
        case "->":
          r = bdd.implies(e[a] as number, e[b] as number);
          break;
        case "<->":
          r = bdd.iff(e[a] as number, e[b] as number);
          break;
        case "X":
          r = bdd.and(notEnd, this.next(a));
          break;
        case "WX":
          r = bdd.or(end, this.next(a));
          break;
        case "F":
          r = bdd.or(e[a] as number, bdd.and(notEnd, this.next(k)));
          break;
        case "G":
          r = bdd.and(e[a] as number, bdd.or(end, this.next(k)));
          break;
        case "U":
          r = bdd.or(e[b] as number, bdd.and(e[a] as number, bdd.and(notEnd, this.next(k))));
          break;
        case "R":
          r = bdd.and(e[b] as number, bdd.or(e[a] as number, bdd.or(end, this.next(k))));
          break;
        case "Y":
          r = first0 ? BDD_FALSE : this.carry(this.previous[a] as number);
          break;
        case "O":
          r = bdd.or(e[a] as number, first0 ? BDD_FALSE : this.carry(this.previous[k] as number));
          break;
        case "H":
          r = bdd.and(e[a] as number, first0 ? BDD_TRUE : this.carry(this.previous[k] as number));
          break;
        case "S":
          r = bdd.or(
            e[b] as number,
            bdd.and(e[a] as number, first0 ? BDD_FALSE : this.carry(this.previous[k] as number)),
          );
          break;
        default:
          throw new WardenError({
            code: "INTERNAL",
            message: `LTL monitor: unknown operator ${String(ops[k])}`,
          });
      }
      e[k] = r;
    }
    return first0 ? (e[root] as number) : this.carry(this.residual);
  }

  private roots(): number[] {
    const roots = [this.residual];
    for (const k of this.plan.kept) roots.push(this.previous[k] as number);
    return roots;
  }

  /** Copies the live diagrams into a fresh manager once garbage dominates the table. */
  private collectIfNeeded(): void {
    if (this.bdd.size < Math.max(4096, 4 * this.liveAfterCollect)) return;
    const fresh = new Bdd();
    const memo = new Map<number, number>();
    this.residual = this.bdd.copyInto(fresh, this.residual, memo);
    for (const k of this.plan.kept)
      this.previous[k] = this.bdd.copyInto(fresh, this.previous[k] as number, memo);
    this.bdd = fresh;
    this.variables.fill(0);
    this.liveAfterCollect = fresh.size;
  }
}

function checkStep(options: { step: LtlStep }): LtlStep {
  const step = options?.step;
  if (typeof step !== "object" || step === null || Array.isArray(step)) {
    throw new WardenError({
      code: "INVALID_INPUT",
      message: "step: expected an object mapping atom names to true/false",
      details: { fields: ["step"] },
    });
  }
  return step;
}

/** A monitor for one formula over one growing trace (see the module comment for the two readings). */
export function createMonitor(options: { ast: LtlAst }): LtlMonitor {
  return new Monitor(plan(options.ast));
}

/**
 * A small reduced ordered binary decision diagram (ROBDD) package, the canonical form the monitor keeps
 * its residual obligations in. Canonical matters: two equivalent residuals are the same node, so the
 * monitor's state can never grow with the length of the trace, only with the formula. Nodes are
 * integers (0 = false, 1 = true) in typed arrays; variable 0 is tested first. A manager only grows;
 * the monitor copies its live diagrams into a fresh manager when garbage piles up (`copyInto`).
 */
import { WardenError } from "../../../core/errors.js";

export const BDD_FALSE = 0;
export const BDD_TRUE = 1;

const ID_BITS = 2 ** 21;
/** Most nodes one manager may hold; ids and variables are packed into one safe integer key. */
export const BDD_MAX_NODES = ID_BITS;
/** Most variables a manager may order. */
export const BDD_MAX_VARIABLES = 2 ** 11 - 1;
const TERMINAL_VAR = BDD_MAX_VARIABLES;
const CACHE_LIMIT = 1 << 18;

const AND = 0;
const OR = 1;
const IFF = 2;
const NOT = 3;

export class Bdd {
  private vars = new Int32Array(256);
  private lows = new Int32Array(256);
  private highs = new Int32Array(256);
  private count = 2;
  private readonly unique = new Map<number, number>();
  private readonly cache = new Map<number, number>();

  constructor() {
    this.vars[0] = TERMINAL_VAR;
    this.vars[1] = TERMINAL_VAR;
  }

  /** Nodes allocated so far, terminals included (live or not). */
  get size(): number {
    return this.count;
  }

  isTerminal(f: number): boolean {
    return f < 2;
  }

  varOf(f: number): number {
    return this.vars[f] as number;
  }

  low(f: number): number {
    return this.lows[f] as number;
  }

  high(f: number): number {
    return this.highs[f] as number;
  }

  /** The node testing `v`: `low` when v is false, `high` when true. */
  node(v: number, low: number, high: number): number {
    if (low === high) return low;
    const key = (v * ID_BITS + low) * ID_BITS + high;
    const found = this.unique.get(key);
    if (found !== undefined) return found;
    if (this.count >= BDD_MAX_NODES) {
      throw new WardenError({
        code: "UNSUPPORTED",
        message: `LTL monitor state exceeds ${BDD_MAX_NODES} decision-diagram nodes; the formula is too large to monitor incrementally`,
      });
    }
    if (this.count === this.vars.length) this.grow();
    const id = this.count++;
    this.vars[id] = v;
    this.lows[id] = low;
    this.highs[id] = high;
    this.unique.set(key, id);
    return id;
  }

  variable(v: number): number {
    if (!Number.isInteger(v) || v < 0 || v >= BDD_MAX_VARIABLES) {
      throw new WardenError({ code: "UNSUPPORTED", message: `BDD variable ${v} out of range` });
    }
    return this.node(v, BDD_FALSE, BDD_TRUE);
  }

  not(f: number): number {
    if (f < 2) return 1 - f;
    const key = NOT * ID_BITS * ID_BITS + f;
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit;
    const r = this.node(
      this.vars[f] as number,
      this.not(this.lows[f] as number),
      this.not(this.highs[f] as number),
    );
    this.remember(key, r);
    return r;
  }

  and(f: number, g: number): number {
    return this.apply(AND, f, g);
  }

  or(f: number, g: number): number {
    return this.apply(OR, f, g);
  }

  iff(f: number, g: number): number {
    return this.apply(IFF, f, g);
  }

  implies(f: number, g: number): number {
    return this.apply(OR, this.not(f), g);
  }

  /** if c then t else e. */
  ite(c: number, t: number, e: number): number {
    if (c === BDD_TRUE || t === e) return t;
    if (c === BDD_FALSE) return e;
    if (t === BDD_TRUE && e === BDD_FALSE) return c;
    if (t === BDD_FALSE && e === BDD_TRUE) return this.not(c);
    return this.or(this.and(c, t), this.and(this.not(c), e));
  }

  /** Number of nodes reachable from the roots (terminals included). */
  reachable(roots: readonly number[]): number {
    const seen = new Set<number>();
    const stack = [...roots];
    while (stack.length > 0) {
      const f = stack.pop() as number;
      if (seen.has(f)) continue;
      seen.add(f);
      if (f >= 2) stack.push(this.lows[f] as number, this.highs[f] as number);
    }
    return seen.size;
  }

  /** Rebuilds `f` in `target` (same variable order); `memo` maps this manager's ids to the target's. */
  copyInto(target: Bdd, f: number, memo: Map<number, number>): number {
    if (f < 2) return f;
    const known = memo.get(f);
    if (known !== undefined) return known;
    const r = target.node(
      this.vars[f] as number,
      this.copyInto(target, this.lows[f] as number, memo),
      this.copyInto(target, this.highs[f] as number, memo),
    );
    memo.set(f, r);
    return r;
  }

  private apply(op: number, f: number, g: number): number {
    if (op === AND) {
      if (f === BDD_FALSE || g === BDD_FALSE) return BDD_FALSE;
      if (f === BDD_TRUE || f === g) return g;
      if (g === BDD_TRUE) return f;
    } else if (op === OR) {
      if (f === BDD_TRUE || g === BDD_TRUE) return BDD_TRUE;
      if (f === BDD_FALSE || f === g) return g;
      if (g === BDD_FALSE) return f;
    } else {
      if (f === g) return BDD_TRUE;
      if (f === BDD_TRUE) return g;
      if (g === BDD_TRUE) return f;
      if (f === BDD_FALSE) return this.not(g);
      if (g === BDD_FALSE) return this.not(f);
    }
    // Every operator here is commutative: one cache entry per unordered pair.
    if (f > g) {
      const t = f;
      f = g;
      g = t;
    }
    const key = (op * ID_BITS + f) * ID_BITS + g;
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit;
    const vf = this.vars[f] as number;
    const vg = this.vars[g] as number;
    const v = Math.min(vf, vg);
    const f0 = vf === v ? (this.lows[f] as number) : f;
    const f1 = vf === v ? (this.highs[f] as number) : f;
    const g0 = vg === v ? (this.lows[g] as number) : g;
    const g1 = vg === v ? (this.highs[g] as number) : g;
    const r = this.node(v, this.apply(op, f0, g0), this.apply(op, f1, g1));
    this.remember(key, r);
    return r;
  }

  private remember(key: number, value: number): void {
    // The cache is only an accelerator; dropping it when large bounds memory without changing answers.
    if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
    this.cache.set(key, value);
  }

  private grow(): void {
    const size = Math.min(this.vars.length * 2, BDD_MAX_NODES);
    const grow = (old: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> => {
      const next = new Int32Array(size);
      next.set(old);
      return next;
    };
    this.vars = grow(this.vars);
    this.lows = grow(this.lows);
    this.highs = grow(this.highs);
  }
}

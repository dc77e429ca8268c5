/**
 * The seeded train / held-out split of labelled trajectories, shared by `warden policy train` and the
 * weights ablation of the bench, so both hold out the same trajectories for the same seed and share.
 */
import type { TrajectoryRecord } from "../../../core/trajectory-record.js";
import { createRandom } from "../../../util/seeded-random.js";

/** Seeded split of the trajectories: the held-out share and the rest, each in input order. */
export function splitHoldout(options: {
  records: readonly TrajectoryRecord[];
  share: number;
  seed: number;
}): {
  train: TrajectoryRecord[];
  holdout: TrajectoryRecord[];
} {
  const order = options.records.map((_, i) => i);
  const random = createRandom({ seed: options.seed });
  for (let i = order.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const n = Math.round(options.records.length * options.share);
  const held = new Set(order.slice(0, n));
  return {
    train: options.records.filter((_, i) => !held.has(i)),
    holdout: options.records.filter((_, i) => held.has(i)),
  };
}

/** Rule-weight training for the shield: labelled steps from trajectory JSONL, hinge-loss descent. */
export {
  examplesFromRecords,
  type LabelledExample,
  recordContext,
  type StepLabel,
} from "./labelled-steps.js";
export { splitHoldout } from "./split-holdout.js";
export { type TrainingEpoch, type TrainWeightsResult, trainWeights } from "./train-weights.js";

/**
 * The shield engine's name, in a module of its own so that the stages of step-decision.ts and the
 * step tool rules can stamp their Decisions without importing the pipeline that imports them.
 */
export const SHIELD_ENGINE_NAME = "shield";

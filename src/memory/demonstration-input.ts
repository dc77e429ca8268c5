/**
 * A demonstration as users and the engine hand it to the memory, before it has a policy, origin, time or
 * seq: GuardAgent's D = [I_i, I_o, P, C] (agent input, agent output, the four-step plan, the guardrail
 * code), an optional label the code produced and optional metadata. Demonstration files contain exactly
 * these objects; unknown keys are rejected so that a misspelt field is reported instead of ignored.
 */
import { z } from "zod";
import { StorableTextSchema, storableText } from "../store/store-input.js";

export const DemonstrationInputSchema = z.strictObject({
  id: storableText({ max: 200, nonEmpty: true }).optional(),
  input: StorableTextSchema,
  output: StorableTextSchema,
  plan: StorableTextSchema,
  code: StorableTextSchema,
  label: z.union([z.literal(0), z.literal(1)]).optional(),
  meta: z.record(z.string(), z.json()).optional(),
});

export type DemonstrationInput = z.output<typeof DemonstrationInputSchema>;

/**
 * Strict parsing of the baseline's verdict: the last ```json block of the reply must be an object with a
 * 0/1 label. Anything else is unparseable, and the engine fails closed.
 */
import { z } from "zod";
import { WardenError } from "../../core/errors.js";
import { formatIssues } from "../../core/validate.js";

export const VerdictSchema = z.object({
  label: z.union([z.literal(0), z.literal(1), z.enum(["0", "1"]).transform((v) => Number(v) as 0 | 1)]),
  violations: z
    .array(z.union([z.string(), z.object({ rule: z.string().optional(), message: z.string() })]))
    .default([]),
  inaccessible: z.record(z.string(), z.array(z.string())).default({}),
  output: z.unknown().optional(),
});
export type Verdict = z.output<typeof VerdictSchema>;

export function parseVerdict(options: { reply: string }): Verdict {
  const blocks = [...options.reply.matchAll(/```json[^\S\n]*\n([\s\S]*?)```/gi)];
  const last = blocks.at(-1)?.[1];
  if (last === undefined) {
    throw new WardenError({
      code: "MODEL_OUTPUT_INVALID",
      message: "the model's answer has no ```json verdict block",
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(last);
  } catch (error) {
    throw new WardenError({
      code: "MODEL_OUTPUT_INVALID",
      message: `the model's verdict is not valid JSON: ${(error as Error).message}`,
    });
  }
  const parsed = VerdictSchema.safeParse(value);
  if (!parsed.success) {
    throw new WardenError({
      code: "MODEL_OUTPUT_INVALID",
      message: `the model's verdict does not fit the expected shape: ${formatIssues(parsed.error.issues)}`,
    });
  }
  return parsed.data;
}

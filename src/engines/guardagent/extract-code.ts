/**
 * Pulls the program out of a model's reply: the last fenced javascript/js block, else the last fenced
 * block of any language, else the whole reply when it looks like code.
 */

const FENCE = /```([A-Za-z0-9_+-]*)[^\S\n]*\n([\s\S]*?)```/g;

export function extractCode(options: { reply: string }): string {
  const reply = options.reply;
  const blocks: { lang: string; body: string }[] = [];
  for (const match of reply.matchAll(FENCE)) {
    blocks.push({ lang: (match[1] ?? "").toLowerCase(), body: match[2] ?? "" });
  }
  const js = blocks.filter((b) => ["javascript", "js", "mjs", "typescript", "ts"].includes(b.lang));
  const chosen = js.at(-1) ?? blocks.at(-1);
  if (chosen) return chosen.body.trim();
  // An unterminated fence: take everything after it.
  const open = reply.match(/```[A-Za-z0-9_+-]*[^\S\n]*\n([\s\S]*)$/);
  if (open?.[1]) return open[1].trim();
  return reply.trim();
}

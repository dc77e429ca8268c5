/**
 * The official-style answer judge for FRA: booleans and yes/no become 1/0, a trailing ".0" is dropped,
 * a gold answer "a, b" is split on ", ", and the prediction is right when it contains the whole gold
 * answer or every one of its parts.
 */

function canonical(text: string): string {
  let t = text.trim();
  if (/^(true|yes)$/i.test(t)) t = "1";
  else if (/^(false|no|none)$/i.test(t)) t = "0";
  if (t.endsWith(".0")) t = t.slice(0, -2);
  return t;
}

function canonicalPrediction(text: string): string {
  // Booleans inside a prediction are read the same way as in the gold answer.
  return text
    .replace(/\bTrue\b/g, "1")
    .replace(/\bFalse\b/g, "0")
    .split(/,\s*/)
    .map((part) => (part.trim().endsWith(".0") ? part.trim().slice(0, -2) : part.trim()))
    .join(", ");
}

export function judgeAnswer(options: { prediction: unknown; gold: string | readonly string[] }): boolean {
  if (options.prediction === null || options.prediction === undefined) return false;
  const raw =
    typeof options.prediction === "string" ? options.prediction : JSON.stringify(options.prediction);
  const golds = typeof options.gold === "string" ? [options.gold] : [...options.gold];
  if (golds.length === 0) return false;
  const whole = golds.join(", ");
  if (whole !== "" && raw.includes(whole)) return true;
  const prediction = canonicalPrediction(raw);
  const parts = golds.flatMap((g) => g.split(", ")).map(canonical);
  return parts.every((part) => prediction.includes(part));
}

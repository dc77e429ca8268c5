/**
 * Which scoped rules apply to a check. A rule (or predicate) with no `scope` applies everywhere; a
 * scoped one applies when the subject's context names its scope: `context.taskId` (-> "task:<id>"),
 * `context.site` (-> "site:<name>", one or several) or `context.scope` (scope strings verbatim).
 */

export function scopesFromContext(options: { context: Record<string, unknown> | undefined }): string[] {
  const context = options.context ?? {};
  const out = new Set<string>();
  const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]);
  for (const id of list(context.taskId)) {
    if (typeof id === "number" || (typeof id === "string" && id.trim() !== ""))
      out.add(`task:${String(id).trim()}`);
  }
  for (const site of list(context.site))
    if (typeof site === "string" && site.trim() !== "") out.add(`site:${site.trim()}`);
  for (const scope of list(context.scope))
    if (typeof scope === "string" && scope.trim() !== "") out.add(scope.trim());
  return [...out].sort();
}

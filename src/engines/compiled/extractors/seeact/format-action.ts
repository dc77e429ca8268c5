/**
 * The canonical one-line form of a SeeAct action, "ELEMENT: B, ACTION: CLICK, VALUE: None": the
 * guard-railed output of an allowed web step, and the string benchmark answers are compared on.
 */

export function formatSeeActAction(options: {
  element: string | null | undefined;
  action: string | null | undefined;
  value: string | null | undefined;
}): string {
  const part = (v: string | null | undefined) =>
    v === null || v === undefined || v.trim() === "" ? "None" : v.trim();
  const action = options.action ? options.action.trim().toUpperCase() : options.action;
  return `ELEMENT: ${part(options.element)}, ACTION: ${part(action)}, VALUE: ${part(options.value)}`;
}

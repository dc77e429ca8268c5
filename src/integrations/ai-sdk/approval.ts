/**
 * Whether a person approved a call, read from the conversation the AI SDK hands `execute`: an approval
 * request for this call (an assistant message's `tool-approval-request` naming its id) answered by a
 * `tool-approval-response` with `approved: true`. An `ask` runs only then. `needsApproval` returning true
 * is what makes the SDK ask; checking the answer again here means a direct `execute` call, or a
 * conversation without the approval, never runs a call the policy holds for a person.
 *
 * The SDK itself takes only the first response per call; so does this (a later "approved" cannot
 * overturn an earlier refusal). The application's `experimental_toolApprovalSecret` is what makes the
 * responses themselves unforgeable by a client; Warden reads what the SDK accepted.
 */
type Part = { type?: unknown; toolCallId?: unknown; approvalId?: unknown; approved?: unknown };

function partsOf(message: unknown): Part[] {
  const content = (message as { content?: unknown } | null)?.content;
  return Array.isArray(content) ? content.filter((p): p is Part => typeof p === "object" && p !== null) : [];
}

export function approvedInMessages(options: {
  messages: readonly unknown[] | undefined;
  toolCallId: string;
}): boolean {
  const messages = Array.isArray(options.messages) ? options.messages : [];
  // The latest request for this id: some models reuse call ids, and an approval given to an earlier
  // call with the same id is not an approval of this one.
  let approvalId: string | undefined;
  for (const message of messages) {
    if ((message as { role?: unknown } | null)?.role !== "assistant") continue;
    for (const part of partsOf(message)) {
      if (
        part.type === "tool-approval-request" &&
        part.toolCallId === options.toolCallId &&
        typeof part.approvalId === "string"
      ) {
        approvalId = part.approvalId;
      }
    }
  }
  if (approvalId === undefined) return false;
  for (const message of messages) {
    if ((message as { role?: unknown } | null)?.role !== "tool") continue;
    for (const part of partsOf(message)) {
      if (part.type === "tool-approval-response" && part.approvalId === approvalId)
        return part.approved === true;
    }
  }
  return false;
}

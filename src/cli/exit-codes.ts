/**
 * The one place CLI exit codes are decided: 0 allow, 1 deny, 2 usage or internal error.
 */
import { isWardenError } from "../core/errors.js";

export const EXIT_ALLOW = 0;
export const EXIT_DENY = 1;
export const EXIT_ERROR = 2;

export function exitCodeForDecision(options: { allowed: boolean }): number {
  return options.allowed ? EXIT_ALLOW : EXIT_DENY;
}

/** Every error is a usage or internal error (2); the message says which. */
export function exitCodeForError(options: { error: unknown }): number {
  void isWardenError(options.error);
  return EXIT_ERROR;
}

/**
 * The one place CLI exit codes are decided: 0 allow, 1 deny (or ask: a human must confirm), 2 usage or
 * internal error. Every error is a 2 — the message on stderr names its code and says which it was
 * (MISSING_DEPENDENCY included: its message names the optional package and the command that installs it).
 */

export const EXIT_ALLOW = 0;
export const EXIT_DENY = 1;
export const EXIT_ERROR = 2;

export function exitCodeForDecision(options: { allowed: boolean }): number {
  return options.allowed ? EXIT_ALLOW : EXIT_DENY;
}

export function exitCodeForError(_options: { error: unknown }): number {
  return EXIT_ERROR;
}

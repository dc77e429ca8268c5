/**
 * `warden hook`: a coding agent's pre-tool hook. Reads one PreToolUse event as JSON on stdin (Claude
 * Code's shape), checks the call against a policy with the session's earlier calls as its trajectory,
 * records the call in the session's history, and answers in the agent's contract on stdout, exit 0:
 * `--format claude-code` (default) `{"hookSpecificOutput": {"hookEventName": "PreToolUse",
 * "permissionDecision": "deny"|"ask"|"allow", "permissionDecisionReason": "…"}}` — an allow answers `{}`
 * (no decision) unless `--on-allow grant`, see ON_ALLOW in ../hook-event.ts — `--format generic`
 * `{"decision", "reason", "rules"}`. The mapping lives in ../hook-event.ts; the check is the guard
 * service's `checkToolCall`, the one every face uses for a tool call.
 *
 * Fail closed: Claude Code lets the tool run when a hook exits with anything but 0 or 2, so whatever
 * goes wrong after the options are read (bad input, a store error, a policy that does not load, a
 * check past its time limit) is answered as a deny on exit 0, with the reason. A hook runs before every
 * tool call, so it loads only what a compiled check needs (no SQLite: see store/session-log.ts).
 */

import { posix } from "node:path";
import type { Command } from "commander";
import { z } from "zod";
import { shellWorkingDirs } from "../../core/condition.js";
import type { Decision } from "../../core/decision.js";
import { type ToolCall, ToolCallSchema } from "../../core/tool-call.js";
import { parseWith } from "../../core/validate.js";
import { realPath, realPathArgs } from "../../mcp/real-path-args.js";
import { GuardServiceOptionsSchema, openGuardService } from "../../runtime/open-guard-service.js";
import { fileSessionLog, type SessionLog } from "../../store/session-log.js";
import { defaultSessionsDir } from "../../store/state-dir.js";
import { addCheckTimeoutOption, addGuardOptions, checkTimeoutFrom } from "../guard-options.js";
import {
  HOOK_FORMATS,
  type HookAnswer,
  type HookEvent,
  historySteps,
  hookAnswer,
  hookFailureAnswer,
  hookToolCall,
  ON_ALLOW,
  parseHookEvent,
  stricterDecision,
} from "../hook-event.js";
import { MAX_INPUT_BYTES_HELP, maxInputBytesFrom, readJsonObjectInput } from "../read-input.js";

/**
 * A hook's check is bounded well inside the agent's own hook timeout (Claude Code: 60 s), past which the
 * agent would go on without an answer.
 */
export const HOOK_CHECK_TIMEOUT_MS = 20_000;

const HookOptionsSchema = GuardServiceOptionsSchema.omit({ policies: true }).extend({
  policy: z.string().min(1),
  format: z.enum(HOOK_FORMATS).default("claude-code"),
  onAllow: z.enum(ON_ALLOW).default("defer"),
  sessions: z.string().min(1).optional(),
  maxInputBytes: z.string().optional(),
});

export function registerHookCommand(options: { program: Command }): void {
  const command = options.program
    .command("hook")
    .description(
      "Answer a coding agent's pre-tool hook: one PreToolUse event as JSON on stdin, the decision on stdout (exit 0)",
    );
  addCheckTimeoutOption({ command: addGuardOptions({ command, policy: "one" }) })
    .option("--format <format>", "the agent's hook contract: claude-code | generic", "claude-code")
    .option(
      "--on-allow <defer|grant>",
      "claude-code: what an allowed call answers — defer (no decision: the agent's own permission settings still apply) or grant (permissionDecision allow, skipping them)",
      "defer",
    )
    .option(
      "--sessions <dir|off>",
      "folder of the sessions' histories (default $WARDEN_HOOK_SESSIONS or hook-sessions in the state directory); off keeps none",
    )
    .option("--max-input-bytes <n>", MAX_INPUT_BYTES_HELP)
    .action(async (raw: Record<string, unknown>) => {
      const { checkTimeout: _flag, ...rest } = raw;
      const limits = checkTimeoutFrom({ raw });
      // Usage errors (an unknown format) stop here with exit 2, which Claude Code also treats as a refusal.
      const {
        policy,
        format,
        onAllow,
        sessions,
        maxInputBytes: _maxInputBytes,
        ...service
      } = parseWith({ schema: HookOptionsSchema, value: { ...rest, ...limits }, what: "hook options" });
      const maxBytes = maxInputBytesFrom({ raw });
      let answer: HookAnswer;
      try {
        const event = parseHookEvent({
          value: await readJsonObjectInput({ value: "-", option: "stdin", maxBytes }),
        });
        const log =
          sessions === "off" ? undefined : fileSessionLog({ dir: sessions ?? defaultSessionsDir() });
        const decision = await decideEvent({
          event,
          log,
          policy,
          service: { ...service, checkTimeoutMs: service.checkTimeoutMs ?? HOOK_CHECK_TIMEOUT_MS },
        });
        answer = hookAnswer({ decision, tool: event.tool_name, format, onAllow });
      } catch (error) {
        answer = hookFailureAnswer({ error, format });
      }
      process.stdout.write(`${JSON.stringify(answer)}\n`);
      process.exitCode = 0;
    });
}

/** One event checked with the session's history, then recorded in it. */
async function decideEvent(o: {
  event: HookEvent;
  log: SessionLog | undefined;
  policy: string;
  service: Omit<
    z.output<typeof HookOptionsSchema>,
    "policy" | "format" | "onAllow" | "sessions" | "maxInputBytes"
  >;
}): Promise<Decision> {
  const { event, log } = o;
  const history = historySteps({ events: log?.read({ sessionId: event.session_id }) ?? [] });
  // One check of one call: a regex is parsed when its rule runs (an invalid one denies the call).
  const guard = await openGuardService({
    ...o.service,
    policies: [o.policy],
    sandboxWorkers: 1,
    regexes: "use",
    auditFace: "cli-hook",
  });
  let decision: Decision;
  try {
    const [loaded] = guard.listPolicies();
    const call = withShellRealPaths({
      call: parseWith({
        schema: ToolCallSchema,
        value: hookToolCall({ event, history }),
        what: "hook event (stdin)",
      }),
      cwd: event.cwd,
    });
    // The event comes from the agent's harness (its cwd, the real call): its facts are trusted.
    const check = (checked: ToolCall) =>
      guard.checkToolCall({ policy: loaded!.name, call: checked, trust: { contextFacts: true } });
    decision = await check(call);
    for (const resolved of resolvedCall({ call, cwd: event.cwd })) {
      decision = stricterDecision({ first: decision, second: await check(resolved) });
    }
  } finally {
    await guard.close();
  }
  log?.append({
    sessionId: event.session_id,
    event: {
      at: new Date().toISOString(),
      tool: event.tool_name,
      args: event.tool_input,
      verdict: decision.allowed ? "allow" : decision.verdict === "ask" ? "ask" : "deny",
    },
  });
  return decision;
}

/**
 * The call as the file system resolves it, when that differs from the call as written: the agent's file
 * tools follow symbolic links, so `notes.txt -> .env` is read as `.env` and `k/config` under `k ->
 * ~/.ssh` as `~/.ssh/config`. Each path argument (by its name: `file_path`, `path`, `notebook_path`…)
 * becomes its real path, and the workspace its own, so both sides of a comparison are real. None when
 * no argument resolves elsewhere. Both calls are checked and the stricter answer stands: the link's
 * name and its target must each pass.
 */
function resolvedCall(options: { call: ToolCall; cwd: string | undefined }): ToolCall[] {
  const { call, cwd } = options;
  const base = cwd?.startsWith("/") ? cwd : undefined;
  const { args, rewrites } = realPathArgs({ args: call.arguments, ...(base ? { base } : {}) });
  if (rewrites.length === 0) return [];
  const context = base ? { ...call.context, cwd: realPath({ path: base }) } : call.context;
  return [{ ...call, arguments: args, ...(context ? { context } : {}) }];
}

/** Words of a command line whose real paths are looked up, at most (each costs a few system calls). */
const MAX_SHELL_PATHS = 64;
/** A word that is a path as written: no variable, substitution, pattern, brace, `~` or option. */
const PLAIN_PATH_WORD = /^[^-$`*?[{~\u0000][^$`*?[{\u0000]*$/;

/**
 * The call with `context.realPaths` (a trusted fact, see engines/compiled/context-facts.ts) when its
 * `command` names paths that lead elsewhere: each plain word of each command of the line, resolved
 * against each directory the line may run it in (the workspace, and where a `cd` of the line goes, as
 * the path operators read them: shellWorkingDirs), mapped to its real path where a symbolic link makes
 * them differ. The path operators of `invokes` read an operand both ways (`cat notes.txt` with
 * `notes.txt -> .env` reads `.env`). A word that names no file is looked up for nothing; a line whose
 * directories cannot be named has none (its operands are unknown to those operators anyway).
 */
function withShellRealPaths(options: { call: ToolCall; cwd: string | undefined }): ToolCall {
  const { call, cwd } = options;
  const command = call.arguments.command;
  if (typeof command !== "string" || !cwd?.startsWith("/")) return call;
  const line = shellWorkingDirs({ command, cwd });
  if ("unknown" in line) return call;
  const realPaths: Record<string, string> = {};
  let looked = 0;
  for (const cmd of line.commands) {
    for (const word of cmd.args) {
      if (!PLAIN_PATH_WORD.test(word)) continue;
      for (const dir of line.dirs) {
        if (looked++ >= MAX_SHELL_PATHS) break;
        const lexical = posix.resolve(dir, word);
        const real = realPath({ path: lexical });
        if (real === lexical) continue;
        realPaths[lexical] = real;
        addAncestors({ path: lexical, realPaths });
      }
    }
  }
  if (Object.keys(realPaths).length === 0) return call;
  return { ...call, context: { ...call.context, realPaths } };
}

/**
 * The real path of each directory above `path` that leads elsewhere (a workspace under a link, macOS's
 * /tmp), so the directories a path is compared with (`invokes`' `outside` roots) are read where they lead
 * too. Only for a path whose own real path differs: most lines look none up.
 */
function addAncestors(options: { path: string; realPaths: Record<string, string> }): void {
  const { realPaths } = options;
  for (let dir = posix.dirname(options.path); dir !== "/"; dir = posix.dirname(dir)) {
    if (dir in realPaths) return;
    const real = realPath({ path: dir });
    if (real !== dir) realPaths[dir] = real;
  }
}

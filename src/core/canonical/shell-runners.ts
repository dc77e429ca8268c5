/**
 * Programs that run a command given in their own arguments or in the environment, which a shell line
 * hides from a reader of its simple commands: an editor's `-c '!rm -rf /'`, git's `-c core.pager=…`,
 * `rebase --exec …` or an `ext::COMMAND` remote, `tar --to-command=…`, `make -f -`, `rsync -e …`, `ssh -o ProxyCommand=…`, `man -P …`,
 * `sort --compress-program=…`, `tcpdump -z …`, `wget --use-askpass=…`, and
 * variables such as GIT_SSH_COMMAND, PAGER or EDITOR that programs run through a shell.
 *
 * Each reader returns what the shell analysis (shell.ts) must do: read a text as a script run by `sh -c`
 * (a superset of what the program does with it), or mark the line undetermined where the command is written in a language Warden does not read (an editor's Ex commands,
 * a makefile). A command that may run nothing unusual (`vim notes.txt`, `git -c user.name=bot …`) yields
 * nothing.
 */

/** A word of the shell line: its unquoted text (with shell.ts' markers for variables and substitutions). */
export interface RunnerWord {
  text: string;
  glob: boolean;
}

export type EmbeddedRun =
  /** The words are run as a script, as `sh -c` runs them. */
  | { kind: "script"; words: RunnerWord[]; what: string }
  /** The program runs a command Warden cannot read: undetermined. */
  | { kind: "unreadable"; reason: string };

const script = (word: RunnerWord, text: string, what: string): EmbeddedRun => ({
  kind: "script",
  words: [{ ...word, text }],
  what,
});

/** The commands a program runs from its arguments; empty when it runs none Warden knows of. */
export function embeddedRuns(options: { program: string; args: readonly RunnerWord[] }): EmbeddedRun[] {
  const { program, args } = options;
  if (EDITORS.has(program)) return editorRuns({ program, args });
  if (program === "less" || program === "more") return pagerRuns({ program, args });
  if (program === "git") return gitRuns({ args });
  if (program === "make" || program === "gmake") return makeRuns({ program, args });
  if (program === "tar" || program === "gtar" || program === "bsdtar") return tarRuns({ program, args });
  if (program === "rsync") return rsyncRuns({ args });
  if (SSH_CLIENTS.has(program)) return sshOptionRuns({ program, args });
  const commandOptions = COMMAND_OPTIONS.get(program);
  if (commandOptions) return optionRuns({ program, args, options: commandOptions });
  return [];
}

/** Options whose value a program runs as a command through the shell. */
const COMMAND_OPTIONS = new Map<string, readonly string[]>([
  ["man", ["-P", "--pager", "-H", "--html"]],
  ["sort", ["--compress-program"]],
  ["tcpdump", ["-z"]],
  ["wget", ["--use-askpass"]],
]);

/** The value of an option written `--name=value`, `--name value`, `-x value` or `-xvalue`, from `k`. */
function optionValue(options: {
  args: readonly RunnerWord[];
  k: number;
  names: readonly string[];
}): { word: RunnerWord; text: string; next: number } | undefined {
  const { args, k, names } = options;
  const word = args[k] as RunnerWord;
  for (const name of names) {
    if (word.text === name) {
      const value = args[k + 1];
      return value ? { word: value, text: value.text, next: k + 1 } : undefined;
    }
    // getopt_long and git's parse-options take any prefix of a long name (`--to-comm=CMD`)
    if (name.startsWith("--") && word.text.startsWith("--")) {
      const eq = word.text.indexOf("=");
      const given = eq === -1 ? word.text : word.text.slice(0, eq);
      if (given.length > 2 && given !== name && name.startsWith(given)) {
        if (eq !== -1) return { word, text: word.text.slice(eq + 1), next: k };
        const value = args[k + 1];
        return value ? { word: value, text: value.text, next: k + 1 } : undefined;
      }
      if (given === name && eq !== -1) return { word, text: word.text.slice(eq + 1), next: k };
    }
    if (!name.startsWith("--") && word.text.startsWith(name) && word.text.length > name.length) {
      return { word, text: word.text.slice(name.length), next: k };
    }
  }
  return undefined;
}

const EDITORS = new Set([
  "vi",
  "vim",
  "nvim",
  "ex",
  "view",
  "rvim",
  "rview",
  "gvim",
  "gview",
  "evim",
  "vimdiff",
  "nvi",
]);

/** Ex commands that run nothing: write, quit, a line number, a search. */
const HARMLESS_EX = /^:*\s*(?:(?:w|q|wq|x|qa|wqa|xa|up|update|wall|qall)!?|\d+|[/?][^|]*)?\s*$/;

/** One Ex command given to an editor: `!cmd` runs cmd through the shell; others are not read. */
function exCommand(word: RunnerWord, text: string, what: string): EmbeddedRun[] {
  if (HARMLESS_EX.test(text)) return [];
  const bang = /^:*\s*!(.*)$/s.exec(text);
  if (bang) return [script(word, bang[1] as string, what)];
  return [
    {
      kind: "unreadable",
      reason: `${what} runs an editor command Warden does not read (${JSON.stringify(text.slice(0, 60))})`,
    },
  ];
}

/** vim `-c CMD`, `--cmd CMD`, `+CMD` (and `-c` in a cluster such as `-sc`); `--` ends the options. */
function editorRuns(options: { program: string; args: readonly RunnerWord[] }): EmbeddedRun[] {
  const { program, args } = options;
  const runs: EmbeddedRun[] = [];
  for (let k = 0; k < args.length; k++) {
    const word = args[k] as RunnerWord;
    const text = word.text;
    if (text === "--") break;
    if (text === "--cmd" || text === "-c") {
      const value = args[k + 1];
      if (value) runs.push(...exCommand(value, value.text, `${program} ${text}`));
      k += 1;
    } else if (text.startsWith("+") && text.length > 1) {
      runs.push(...exCommand(word, text.slice(1), `${program} +`));
    } else if (/^-[A-Za-z]*c/.test(text) && !text.startsWith("--")) {
      // A cluster ending in c takes the next word; else the rest after c is the command.
      const rest = text.slice(text.indexOf("c") + 1);
      const value = rest === "" ? args[k + 1] : { ...word, text: rest };
      if (value) runs.push(...exCommand(value, value.text, `${program} -c`));
      if (rest === "") k += 1;
    }
  }
  return runs;
}

/** less/more `+CMD`: a `!` (shell) or `|` (pipe to a command) in it runs a command. */
function pagerRuns(options: { program: string; args: readonly RunnerWord[] }): EmbeddedRun[] {
  return options.args
    .filter((w) => w.text.startsWith("+") && /[!|]/.test(w.text))
    .map((w) => ({
      kind: "unreadable" as const,
      reason: `${options.program} ${JSON.stringify(w.text.slice(0, 60))} runs a shell command from a pager command`,
    }));
}

/**
 * Git configuration keys whose value git runs as a command (through the shell): by their last part
 * (`core.pager`, `diff.<driver>.textconv`, `credential.helper`…), case-insensitive as git's are.
 */
const GIT_COMMAND_KEYS =
  /(?:^|\.)(?:pager|editor|sshcommand|askpass|fsmonitor|helper|textconv|command|cmd|driver|program|clean|smudge|process|external|difffilter|packobjectshook|uploadpack|receivepack|gitproxy|proxycommand|browser|sendmailcmd|smtpserver)$/;
/**
 * Keys that make git read configuration or hooks from a file (a template directory's hooks are copied
 * into the repository `init` or `clone` makes, and run there): what they run is not on the line.
 */
const GIT_FILE_KEYS = /^(?:include\.path|includeif\..*\.path|core\.hookspath|init\.templatedir)$/;

/** `git -c key=value`: the command the value is, when git runs it. */
function gitConfigRuns(word: RunnerWord, pair: string): EmbeddedRun[] {
  const eq = pair.indexOf("=");
  const key = (eq === -1 ? pair : pair.slice(0, eq)).toLowerCase();
  const value = eq === -1 ? "" : pair.slice(eq + 1);
  const what = `git -c ${key}`;
  if (key.includes("\u0000"))
    return [{ kind: "unreadable", reason: "git -c sets a key computed at run time" }];
  if (/^ext::/i.test(value)) return [extRemoteRun(word, value)];
  if (key.startsWith("url.") && key.includes("ext::")) {
    return [{ kind: "unreadable", reason: `${what} rewrites remotes to ext:: commands` }];
  }
  if ((key === "protocol.allow" || key === "protocol.ext.allow") && value.toLowerCase() !== "never") {
    return [
      {
        kind: "unreadable",
        reason: `${what} lets git run the command of an ext:: remote it is configured with`,
      },
    ];
  }
  // An alias, and `git submodule update`'s strategy (from the configuration, not .gitmodules), run a
  // value that begins with `!` as a command.
  if (key.startsWith("alias.") || /^submodule\..*\.update$/.test(key))
    return value.startsWith("!") ? [script(word, value.slice(1), what)] : [];
  if (key === "core.worktree" && value !== "." && value !== "") {
    return [
      { kind: "unreadable", reason: `${what} makes git read and write another directory as the work tree` },
    ];
  }
  if (GIT_FILE_KEYS.test(key)) {
    return value === "/dev/null" || value === ""
      ? []
      : [{ kind: "unreadable", reason: `${what} makes git read commands from a file Warden does not read` }];
  }
  if (key.startsWith("pager.") || GIT_COMMAND_KEYS.test(key)) {
    return [script(word, value.startsWith("!") ? value.slice(1) : value, what)];
  }
  return [];
}

/**
 * A remote git reaches through its ext:: transport (the helper's name in any case, as a file system
 * that folds case finds it), alone or as an option's value (`--remote=ext::…`): the URL is group 1.
 */
const EXT_REMOTE = /^(?:--[A-Za-z0-9-]+=)?(ext::.*)$/is;

/**
 * The command of an `ext::PROGRAM ARG…` remote, which git runs (no shell) once protocol.ext.allow lets
 * it: the words split at spaces, `% ` a space in a word, `%%` a percent, `%s`/`%S` the service's name,
 * `%G` nothing; read as the same words single-quoted for `sh -c`. Another `%` escape, or an expansion
 * in the word, is unreadable.
 */
function extRemoteRun(word: RunnerWord, url: string): EmbeddedRun {
  const what = "git's ext:: remote";
  if (url.includes("\u0000")) return { kind: "unreadable", reason: `${what} is computed at run time` };
  const words: string[] = [];
  let current = "";
  const body = url.slice(5);
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string;
    if (c === " ") {
      if (current !== "") words.push(current);
      current = "";
    } else if (c !== "%") current += c;
    else {
      const next = body[++i];
      if (next === " " || next === "%") current += next;
      else if (next === "s") current += "upload-pack";
      else if (next === "S") current += "git-upload-pack";
      else if (next !== "G")
        return { kind: "unreadable", reason: `${what} has an escape git may not read so` };
    }
  }
  if (current !== "") words.push(current);
  return script(word, words.map((w) => `'${w.replaceAll("'", "'\\''")}'`).join(" "), what);
}

/** git's own options, the subcommand and the subcommand's options that run commands. */
function gitRuns(options: { args: readonly RunnerWord[] }): EmbeddedRun[] {
  const { args } = options;
  const runs: EmbeddedRun[] = [];
  let k = 0;
  for (; k < args.length; k++) {
    const word = args[k] as RunnerWord;
    const text = word.text;
    if (text === "-c" && args[k + 1]) {
      runs.push(...gitConfigRuns(args[k + 1] as RunnerWord, (args[k + 1] as RunnerWord).text));
      k += 1;
    } else if (text === "--config-env" || text.startsWith("--config-env=")) {
      const pair = text === "--config-env" ? (args[++k]?.text ?? "") : text.slice(13);
      const key = pair.slice(0, Math.max(pair.indexOf("="), 0)) || pair;
      // The value is an environment variable's: what it runs is not on the line.
      const probe = gitConfigRuns(word, `${key}=probe`);
      if (probe.length > 0 || key.toLowerCase().startsWith("alias.")) {
        runs.push({ kind: "unreadable", reason: `git --config-env sets ${key} from the environment` });
      }
    } else if (text === "--exec-path" || text.startsWith("--exec-path=")) {
      if (text !== "--exec-path")
        runs.push({
          kind: "unreadable",
          reason: "git --exec-path runs git's commands from another directory",
        });
    } else if (["-C", "--git-dir", "--work-tree", "--namespace", "--super-prefix"].includes(text)) {
      k += 1;
    } else if (!text.startsWith("-")) {
      break;
    }
  }
  const sub = args[k]?.text;
  const rest = args.slice(k + 1);
  for (const word of rest) {
    const url = EXT_REMOTE.exec(word.text)?.[1];
    if (url !== undefined) runs.push(extRemoteRun(word, url));
  }
  // clone's own `-c key=value` is set in the new repository before it fetches
  if (sub === "clone") {
    for (let j = 0; j < rest.length; j++) {
      const value = optionValue({ args: rest, k: j, names: ["-c", "--config"] });
      if (!value) continue;
      runs.push(...gitConfigRuns(value.word, value.text));
      j = value.next;
    }
  }
  if (sub === "rebase")
    runs.push(...optionRuns({ program: "git rebase", args: rest, options: ["--exec", "-x"] }));
  if (sub === "bisect" && rest[0]?.text === "run" && rest.length > 1) {
    runs.push({ kind: "script", words: rest.slice(1), what: "git bisect run" });
  }
  if (sub === "submodule" && rest.some((w) => w.text === "foreach")) {
    const at = rest.findIndex((w) => w.text === "foreach");
    const body = rest
      .slice(at + 1)
      .filter((w) => w.text !== "--recursive" && w.text !== "-q" && w.text !== "--quiet");
    if (body.length > 0) runs.push({ kind: "script", words: body, what: "git submodule foreach" });
  }
  if (sub === "send-email") {
    runs.push(
      ...optionRuns({ program: "git send-email", args: rest, options: ["--sendmail-cmd", "--smtp-server"] }),
    );
  }
  if (sub === "filter-branch") {
    runs.push(...optionRuns({ program: "git filter-branch", args: rest, options: GIT_FILTERS }));
  }
  if (sub !== undefined && GIT_PACK_COMMANDS.has(sub)) {
    // `-u` is clone's --upload-pack only (push's -u is --set-upstream).
    const names = sub === "clone" ? [...GIT_PACK_OPTIONS, "-u"] : GIT_PACK_OPTIONS;
    runs.push(...optionRuns({ program: `git ${sub}`, args: rest, options: names }));
  }

  if (sub === "difftool" || sub === "mergetool") {
    runs.push(...optionRuns({ program: `git ${sub}`, args: rest, options: ["--extcmd", "-x"] }));
  }
  return runs;
}

const GIT_FILTERS = [
  "--env-filter",
  "--tree-filter",
  "--index-filter",
  "--msg-filter",
  "--commit-filter",
  "--parent-filter",
  "--tag-name-filter",
] as const;
/** Subcommands whose --upload-pack / --receive-pack / --exec names the command run at the other end. */
const GIT_PACK_COMMANDS = new Set(["clone", "fetch", "pull", "push", "ls-remote", "archive"]);
const GIT_PACK_OPTIONS = ["--upload-pack", "--receive-pack", "--exec"] as const;

/** Every value of the options that name a command the program runs through the shell. */
function optionRuns(options: {
  program: string;
  args: readonly RunnerWord[];
  options: readonly string[];
}): EmbeddedRun[] {
  const runs: EmbeddedRun[] = [];
  for (let k = 0; k < options.args.length; k++) {
    if (options.args[k]?.text === "--") break;
    const value = optionValue({ args: options.args, k, names: options.options });
    if (!value) continue;
    runs.push(
      script(
        value.word,
        value.text,
        `${options.program} ${(options.args[k] as RunnerWord).text.split("=")[0]}`,
      ),
    );
    k = value.next;
  }
  return runs;
}

/** rsync `-e CMD` / `--rsh=CMD` (also in a cluster: `-avze CMD`) and `--rsync-path=CMD`. */
function rsyncRuns(options: { args: readonly RunnerWord[] }): EmbeddedRun[] {
  const runs = optionRuns({ program: "rsync", args: options.args, options: ["--rsh", "--rsync-path", "-e"] });
  options.args.forEach((word, k) => {
    const cluster = /^-[A-Za-z]+e(.*)$/s.exec(word.text);
    if (!cluster || word.text.startsWith("-e") || word.text.startsWith("--")) return;
    const value = cluster[1] === "" ? options.args[k + 1] : { ...word, text: cluster[1] as string };
    if (value) runs.push(script(value, value.text, "rsync -e"));
  });
  return runs;
}
const TAR_COMMANDS = [
  "--to-command",
  "--use-compress-program",
  "-I",
  "--info-script",
  "--new-volume-script",
  "-F",
  "--rsh-command",
] as const;

/** tar's options that run a command, and `--checkpoint-action=exec=CMD`. */
function tarRuns(options: { program: string; args: readonly RunnerWord[] }): EmbeddedRun[] {
  const runs = optionRuns({ ...options, options: TAR_COMMANDS });
  for (const word of options.args) {
    const action = /^--checkpoint-action=exec=(.*)$/s.exec(word.text);
    if (action) runs.push(script(word, action[1] as string, `${options.program} --checkpoint-action`));
  }
  return runs;
}

/** make reading its makefile from input (`-f -`, `-f /dev/stdin`) or from `--eval`: not read. */
function makeRuns(options: { program: string; args: readonly RunnerWord[] }): EmbeddedRun[] {
  const runs: EmbeddedRun[] = [];
  for (let k = 0; k < options.args.length; k++) {
    const text = (options.args[k] as RunnerWord).text;
    if (text === "--eval" || text.startsWith("--eval=") || text === "-E") {
      runs.push({
        kind: "unreadable",
        reason: `${options.program} --eval runs makefile text Warden does not read`,
      });
    }
    const file = optionValue({ args: options.args, k, names: ["--file", "--makefile", "-f"] });
    if (file && STDIN_NAMES.has(file.text)) {
      runs.push({
        kind: "unreadable",
        reason: `${options.program} reads a makefile from its input, which Warden does not read`,
      });
    }
  }
  return runs;
}

const STDIN_NAMES = new Set(["-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"]);

const SSH_CLIENTS = new Set(["ssh", "scp", "sftp", "slogin"]);
/** ssh options whose value runs locally: ProxyCommand, LocalCommand (`-o Key=value` or `-oKey value`). */
const SSH_LOCAL_KEYS = /^(?:proxycommand|localcommand|knownhostscommand|remotecommand)\s*[= ]\s*(.*)$/is;

function sshOptionRuns(options: { program: string; args: readonly RunnerWord[] }): EmbeddedRun[] {
  const runs: EmbeddedRun[] = [];
  for (let k = 0; k < options.args.length; k++) {
    const value = optionValue({ args: options.args, k, names: ["-o"] });
    if (!value) continue;
    const local = SSH_LOCAL_KEYS.exec(value.text.trim());
    if (local) runs.push(script(value.word, local[1] as string, `${options.program} -o`));
    k = value.next;
  }
  if (options.program === "scp" || options.program === "sftp") {
    runs.push(...optionRuns({ program: options.program, args: options.args, options: ["-S"] }));
  }
  return runs;
}

/** Variables whose value programs run as a command through the shell (git, man, less, sudo…). */
const COMMAND_VARIABLES = new Set([
  "GIT_SSH_COMMAND",
  "GIT_SSH",
  "GIT_PAGER",
  "GIT_EDITOR",
  "GIT_SEQUENCE_EDITOR",
  "GIT_EXTERNAL_DIFF",
  "GIT_ASKPASS",
  "GIT_PROXY_COMMAND",
  "SSH_ASKPASS",
  "SUDO_ASKPASS",
  "PAGER",
  "MANPAGER",
  "SYSTEMD_PAGER",
  "EDITOR",
  "VISUAL",
  "BROWSER",
  "LESSOPEN",
  "LESSCLOSE",
  "PROMPT_COMMAND",
  "RSYNC_RSH",
]);
/** Variables that carry git configuration, command-valued keys included, not on the line. */
const CONFIG_VARIABLES = /^GIT_CONFIG_(?:PARAMETERS|COUNT|KEY_\d+|VALUE_\d+)$/;

/** The variable and value of an assignment word (`NAME=value`, `NAME+=value`); undefined for any other word. */
export function assignedVariable(options: { text: string }): { name: string; value: string } | undefined {
  const match = /^([A-Za-z_][A-Za-z0-9_]*)\+?=(.*)$/s.exec(options.text);
  return match ? { name: match[1] as string, value: match[2] as string } : undefined;
}

/** An assignment `NAME=value` (before a program, or to `env`/`export`): the command its value is. */
export function assignmentRuns(options: { word: RunnerWord }): EmbeddedRun[] {
  const { word } = options;
  const assigned = assignedVariable({ text: word.text });
  if (!assigned) return [];
  const { name } = assigned;
  if (COMMAND_VARIABLES.has(name)) return [script(word, assigned.value, `${name}=`)];
  if (name === "GIT_ALLOW_PROTOCOL" && /(^|:)ext(:|$)|\u0000/i.test(assigned.value)) {
    return [{ kind: "unreadable", reason: `${name} lets git run the command of an ext:: remote` }];
  }
  if (CONFIG_VARIABLES.test(name)) {
    return [
      { kind: "unreadable", reason: `${name} passes git configuration, which may name commands git runs` },
    ];
  }
  return [];
}

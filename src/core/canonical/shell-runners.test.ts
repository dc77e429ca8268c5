import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseShellCommand } from "./shell.js";
import { assignmentRuns, embeddedRuns, type RunnerWord } from "./shell-runners.js";

const words = (...texts: string[]): RunnerWord[] => texts.map((text) => ({ text, glob: false }));

/** What the readers ask the shell analysis to do, in short: `script: TEXT` or `unreadable`. */
function runs(program: string, ...args: string[]): string[] {
  return embeddedRuns({ program, args: words(...args) }).map((r) =>
    r.kind === "script" ? `script: ${r.words.map((w) => w.text).join(" ")}` : "unreadable",
  );
}

/** The programs a command line runs, as the shell analysis reads it; "undetermined" when it cannot. */
function programs(command: string): string[] {
  const result = parseShellCommand({ command });
  return result.ok ? [...new Set(result.forms.map((f) => f.program))].sort() : ["undetermined"];
}

describe("embeddedRuns", () => {
  it("reads an editor's shell escapes and leaves its other commands unread", () => {
    expect(runs("vim", "-c", "!rm -rf /srv", "-c", "q")).toEqual(["script: rm -rf /srv"]);
    expect(runs("vim", "+:!make", "+wq", "+12", "+/needle")).toEqual(["script: make"]);
    expect(runs("ex", "-sc", "!ls", "-cq")).toEqual(["script: ls"]);
    expect(runs("nvim", "--cmd", 'exe "!rm"')).toEqual(["unreadable"]);
    expect(runs("vim", "+/x/|!rm")).toEqual(["unreadable"]);
    expect(runs("vim", "notes.txt", "--", "-c")).toEqual([]);
  });

  it("reads git's command-valued configuration and the subcommands that run commands", () => {
    expect(runs("git", "-c", "alias.x=!rm -rf /srv", "x")).toEqual(["script: rm -rf /srv"]);
    expect(runs("git", "-c", "alias.st=status", "st")).toEqual([]);
    expect(runs("git", "-c", "Core.SSHCommand=ssh -i k", "fetch")).toEqual(["script: ssh -i k"]);
    expect(runs("git", "-c", "diff.pdf.textconv=pdftotext", "diff")).toEqual(["script: pdftotext"]);
    expect(runs("git", "-c", "user.name=bot", "-c", "color.ui=false", "commit")).toEqual([]);
    expect(runs("git", "-c", "core.hooksPath=/dev/null", "commit")).toEqual([]);
    expect(runs("git", "-c", "core.hooksPath=.evil", "commit")).toEqual(["unreadable"]);
    expect(runs("git", "-c", "include.path=x.cfg", "log")).toEqual(["unreadable"]);
    expect(runs("git", "--config-env=core.pager=P", "log")).toEqual(["unreadable"]);
    expect(runs("git", "--config-env=user.name=N", "log")).toEqual([]);
    expect(runs("git", "--exec-path=/tmp/x", "status")).toEqual(["unreadable"]);
    expect(runs("git", "-C", "repo", "rebase", "-x", "make test", "main")).toEqual(["script: make test"]);
    expect(runs("git", "rebase", "--exec=npm test", "main")).toEqual(["script: npm test"]);
    expect(runs("git", "bisect", "run", "make", "check")).toEqual(["script: make check"]);
    expect(runs("git", "submodule", "foreach", "--recursive", "git pull")).toEqual(["script: git pull"]);
    expect(runs("git", "filter-branch", "--tree-filter", "rm -f x", "HEAD")).toEqual(["script: rm -f x"]);
    expect(runs("git", "fetch", "--upload-pack=evil", "origin")).toEqual(["script: evil"]);
    expect(runs("git", "clone", "-u", "evil", "repo")).toEqual(["script: evil"]);
    expect(runs("git", "push", "-u", "origin", "main")).toEqual([]);
    expect(runs("git", "log", "-c")).toEqual([]);
  });

  it("reads an ext:: remote as the command git runs, and what lets one run unseen as unreadable", () => {
    expect(runs("git", "fetch", "ext::sh -c rm% -rf% ~")).toEqual(["script: 'sh' '-c' 'rm -rf ~'"]);
    expect(runs("git", "ls-remote", "EXT::ssh  %S% foo host")).toEqual([
      "script: 'ssh' 'git-upload-pack foo' 'host'",
    ]);
    expect(runs("git", "clone", "ext::x %s %G%% it's", "dir")).toEqual([
      "script: 'x' 'upload-pack' '%' 'it'\\''s'",
    ]);
    expect(runs("git", "remote", "add", "evil", "ext::x %q")).toEqual(["unreadable"]);
    expect(runs("git", "-c", "remote.origin.url=ext::touch x", "fetch")).toEqual(["script: 'touch' 'x'"]);
    expect(runs("git", "-c", "url.ext::sh -c x .insteadOf=https://h/", "fetch", "https://h/r")).toEqual([
      "unreadable",
    ]);
    expect(runs("git", "-c", "protocol.ext.allow=always", "fetch", "evil")).toEqual(["unreadable"]);
    expect(runs("git", "-c", "Protocol.Allow=user", "fetch", "evil")).toEqual(["unreadable"]);
    expect(runs("git", "-c", "protocol.ext.allow=never", "fetch", "evil")).toEqual([]);
    expect(runs("git", "-c", "protocol.file.allow=always", "submodule", "update")).toEqual([]);
    expect(runs("git", "-c", "core.pag\u0000VX\u0000=x", "log")).toEqual(["unreadable"]);
    expect(runs("git", "fetch", "origin", "https://h/ext::x")).toEqual([]);
    expect(runs("git", "archive", "--remote=ext::sh -c x", "HEAD")).toEqual(["script: 'sh' '-c' 'x'"]);
    expect(runs("git", "-c", "init.templateDir=/tmp/t", "clone", "https://h/r")).toEqual(["unreadable"]);
    expect(runs("git", "-c", "init.templateDir=", "clone", "https://h/r")).toEqual([]);
    expect(runs("git", "-c", "submodule.x.update=!rm -rf /srv", "submodule", "update")).toEqual([
      "script: rm -rf /srv",
    ]);
    expect(runs("git", "-c", "submodule.x.update=rebase", "submodule", "update")).toEqual([]);
    expect(runs("git", "-c", "core.worktree=/etc", "checkout", ".")).toEqual(["unreadable"]);
    expect(runs("git", "-c", "core.worktree=.", "status")).toEqual([]);
    expect(runs("git", "clone", "-c", "core.sshCommand=rm -rf /srv", "h:x")).toEqual(["script: rm -rf /srv"]);
    expect(runs("git", "clone", "--config=user.name=bot", "h:x")).toEqual([]);
    // a long option's unambiguous prefix, as getopt_long and git's parse-options take it
    expect(runs("tar", "--to-comm=rm -rf /srv", "-xf", "a.tar")).toEqual(["script: rm -rf /srv"]);
    expect(runs("git", "clone", "--upload-pa", "rm -rf /srv", "/r")).toEqual(["script: rm -rf /srv"]);
    expect(assignmentRuns({ word: { text: "GIT_ALLOW_PROTOCOL=https:ext", glob: false } })).toHaveLength(1);
    expect(assignmentRuns({ word: { text: "GIT_ALLOW_PROTOCOL=https:ssh", glob: false } })).toEqual([]);
  });

  it("reads tar, rsync, make and ssh options that run commands", () => {
    expect(runs("tar", "--to-command=cat", "-xf", "a.tar")).toEqual(["script: cat"]);
    expect(runs("tar", "-I", "zstd -19", "-cf", "a.tar", "d")).toEqual(["script: zstd -19"]);
    expect(runs("tar", "--checkpoint=1", "--checkpoint-action=exec=id", "-cf", "a", "d")).toEqual([
      "script: id",
    ]);
    expect(runs("tar", "-xf", "a.tar")).toEqual([]);
    expect(runs("rsync", "-avze", "ssh -p 2", "a", "b:")).toEqual(["script: ssh -p 2"]);
    expect(runs("rsync", "--rsh=ssh", "a", "b:")).toEqual(["script: ssh"]);
    expect(runs("rsync", "-av", "--delete", "a/", "b/")).toEqual([]);
    expect(runs("make", "-f", "-")).toEqual(["unreadable"]);
    expect(runs("make", "--eval=x:")).toEqual(["unreadable"]);
    expect(runs("make", "-f", "build.mk", "test")).toEqual([]);
    expect(runs("ssh", "-o", "ProxyCommand=nc %h %p", "host")).toEqual(["script: nc %h %p"]);
    expect(runs("ssh", "-oLocalCommand=id", "host")).toEqual(["script: id"]);
    expect(runs("less", "+!id", "f")).toEqual(["unreadable"]);
    expect(runs("less", "+G", "f")).toEqual([]);
  });

  it("reads the options whose value man, sort, tcpdump, wget and git send-email run as a command", () => {
    expect(runs("man", "-P", "cat -v", "ls")).toEqual(["script: cat -v"]);
    expect(runs("man", "--pager=less -R", "ls")).toEqual(["script: less -R"]);
    expect(runs("sort", "--compress-program=gzip", "big.txt")).toEqual(["script: gzip"]);
    expect(runs("tcpdump", "-z", "./rotate.sh", "-w", "x.pcap")).toEqual(["script: ./rotate.sh"]);
    expect(runs("wget", "--use-askpass=askpass", "https://x.test/")).toEqual(["script: askpass"]);
    expect(runs("git", "send-email", "--sendmail-cmd=msmtp -a x", "p.patch")).toEqual(["script: msmtp -a x"]);
    expect(runs("man", "ls")).toEqual([]);
    expect(runs("sort", "-o", "out.txt", "in.txt")).toEqual([]);
  });

  it("reads variables whose value a program runs", () => {
    const read = (text: string) =>
      assignmentRuns({ word: { text, glob: false } }).map((r) =>
        r.kind === "script" ? `script: ${r.words[0]?.text}` : "unreadable",
      );
    expect(read("GIT_SSH_COMMAND=ssh -i k")).toEqual(["script: ssh -i k"]);
    expect(read("PAGER=cat")).toEqual(["script: cat"]);
    expect(read("GIT_CONFIG_COUNT=1")).toEqual(["unreadable"]);
    expect(read("HOME=/tmp")).toEqual([]);
  });

  it("never throws, whatever the words (property)", () => {
    const program = fc.constantFrom("vim", "ex", "git", "tar", "rsync", "make", "ssh", "scp", "less", "ls");
    const word = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom(
        "-c",
        "--cmd",
        "+",
        "+!",
        "-e",
        "-o",
        "-f",
        "-I",
        "--",
        "rebase",
        "-x",
        "bisect",
        "run",
      ),
    );
    fc.assert(
      fc.property(program, fc.array(word, { maxLength: 8 }), (p, texts) => {
        expect(Array.isArray(embeddedRuns({ program: p, args: words(...texts) }))).toBe(true);
      }),
    );
  });
});

describe("the shell analysis with embedded commands", () => {
  it("sees the programs these commands run", () => {
    expect(programs("git -c core.pager='rm -rf /srv' log")).toEqual(["git", "rm"]);
    // `=`: the assignment's form (its value is also read as the command git runs)
    expect(programs("GIT_SSH_COMMAND='rm -rf /srv' git fetch")).toEqual(["=", "git", "rm"]);
    expect(programs("export EDITOR='rm -rf /srv'; git commit")).toEqual(["export", "git", "rm"]);
    expect(programs("env PAGER='rm -rf /srv' man ls")).toEqual(["env", "man", "rm"]);
    expect(programs("parallel rm -rf ::: /srv")).toEqual(["parallel", "rm"]);
    expect(programs("parallel ::: 'rm -rf /srv' 'ls'")).toEqual(["ls", "parallel", "rm"]);
    expect(programs("vim -c '!rm -rf /srv' -c q")).toEqual(["rm", "vim"]);
    expect(programs("vim -c 'call system(\"rm\")'")).toEqual(["undetermined"]);
    expect(programs("echo 'rm -rf /srv' | parallel")).toEqual(["undetermined"]);
  });

  it("marks the flags of what parallel runs as possibly appended", () => {
    const result = parseShellCommand({ command: "parallel rm ::: -rf /srv" });
    expect(result.ok && result.forms.find((f) => f.program === "rm")?.unknownFlags).toBe(true);
  });
});

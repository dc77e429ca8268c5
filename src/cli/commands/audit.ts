/**
 * `warden audit tail|show|verify|export|prune|head`: the audit log that `warden serve` (and any face given
 * a store) writes, read from the store chosen by `--store` / `$WARDEN_STORE` — the same database. `verify`
 * walks the hash chain and exits 1 naming the first bad row (edited, deleted, reordered or inserted; the
 * newest included); `head` prints `<seq>:<hash>` to keep elsewhere, and `verify --anchor` checks the chain
 * still holds it, which catches even a rewrite of the whole chain.
 */
import type { Command } from "commander";
import { z } from "zod";
import { toWardenError, WardenError } from "../../core/errors.js";
import { parseWith } from "../../core/validate.js";
import { defaultStorePath, openStore } from "../../runtime/default-store.js";
import type { AuditEntry, Store } from "../../store/store.js";
import { EXIT_DENY } from "../exit-codes.js";

const STORE_HELP =
  "SQLite file or postgres:// URL holding the audit log (default $WARDEN_STORE or ~/.local/state/warden/warden.db)";

/** Opens the store, runs `use`, and closes it whatever happens. */
async function withAuditStore<T>(options: { store?: string; use: (store: Store) => Promise<T> }): Promise<T> {
  const path = options.store ?? defaultStorePath();
  const store = await openStore({ path }).catch((error: unknown) => {
    throw toWardenError({ error, code: "STORE_ERROR", message: `cannot open the audit store ${path}` });
  });
  try {
    return await options.use(store);
  } finally {
    await store.close();
  }
}

/** One line per row: seq, time, verdict, policy, caller, face, rules. */
export function auditLine(entry: AuditEntry): string {
  const rules = entry.rules.length > 0 ? ` rules=${entry.rules.join(",")}` : "";
  const approval = entry.approvalId ? ` approval=${entry.approvalId}` : "";
  const what =
    entry.kind === "checkpoint" ? `checkpoint ${entry.explanation}` : `${entry.kind} ${entry.verdict}`;
  return `${entry.seq}\t${entry.at}\t${what}\t${entry.policy}${entry.policyVersion ? `@${entry.policyVersion}` : ""}\tcaller=${entry.caller || "-"}\tface=${entry.face}${rules}${approval}\t${entry.latencyMs}ms`;
}

const DURATION = /^(\d{1,9})(s|m|h|d)$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** "30d" -> the ISO time that long before now. */
export function olderThanTime(options: { duration: string; now?: number }): string {
  const match = DURATION.exec(options.duration);
  if (!match) {
    throw new WardenError({
      code: "INVALID_INPUT",
      message: `--older-than: "${options.duration}" is not a duration like 30d, 12h, 45m or 90s`,
      details: { fields: ["older-than"] },
    });
  }
  const ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  return new Date((options.now ?? Date.now()) - ms).toISOString();
}

const Count = z
  .string()
  .regex(/^\d{1,9}$/, "a whole number")
  .transform(Number);
const Anchor = z
  .string()
  .regex(/^\d{1,15}:[0-9a-f]{64}$/, "<seq>:<64 hex digits>, as `warden audit head` prints it")
  .transform((s) => {
    const [seq, hash] = s.split(":") as [string, string];
    return { seq: Number(seq), hash };
  });

export function registerAuditCommand(options: { program: Command }): void {
  const audit = options.program
    .command("audit")
    .description("read, verify, export and prune the hash-chained audit log of decisions");

  audit
    .command("tail")
    .description("the newest rows, oldest of them first")
    .option("-n, --lines <n>", "how many rows", "20")
    .option("--json", "one JSON object per line")
    .option("--store <path>", STORE_HELP)
    .action(async (opts: { lines: string; json?: boolean; store?: string }) => {
      const n = parseWith({
        schema: Count.pipe(z.number().min(1).max(1000)),
        value: opts.lines,
        what: "--lines",
      });
      const rows = await withAuditStore({
        ...(opts.store ? { store: opts.store } : {}),
        use: (store) => store.listAuditEntries({ limit: n }),
      });
      const lines = rows.reverse().map((e) => (opts.json ? JSON.stringify(e) : auditLine(e)));
      if (lines.length === 0) process.stderr.write("warden: the audit log is empty\n");
      else process.stdout.write(`${lines.join("\n")}\n`);
    });

  audit
    .command("show")
    .description("one row, by id or seq, as JSON")
    .argument("<id>", "the row's id or seq")
    .option("--store <path>", STORE_HELP)
    .action(async (id: string, opts: { store?: string }) => {
      const entry = await withAuditStore({
        ...(opts.store ? { store: opts.store } : {}),
        use: (store) => store.getAuditEntry({ id }),
      });
      if (!entry) {
        throw new WardenError({
          code: "INVALID_INPUT",
          message: `<id>: no audit row with id or seq "${id}"`,
          details: { fields: ["id"] },
        });
      }
      process.stdout.write(`${JSON.stringify(entry, null, 2)}\n`);
    });

  audit
    .command("verify")
    .description("check the hash chain end to end; exit 1 naming the first bad row")
    .option(
      "--anchor <seq:hash>",
      "a position and hash kept elsewhere (from `warden audit head`) that must still hold",
    )
    .option("--store <path>", STORE_HELP)
    .action(async (opts: { anchor?: string; store?: string }) => {
      const anchor =
        opts.anchor === undefined
          ? undefined
          : parseWith({ schema: Anchor, value: opts.anchor, what: "--anchor" });
      const { verifyAuditChain } = await import("../../store/audit-chain.js");
      const result = await withAuditStore({
        ...(opts.store ? { store: opts.store } : {}),
        use: (store) => verifyAuditChain({ store, ...(anchor ? { anchor } : {}) }),
      });
      if (result.ok) {
        process.stdout.write(
          `audit log OK: ${result.rows} rows (${result.head.baseSeq + 1}..${result.head.headSeq}), head ${result.head.headSeq}:${result.head.headHash}\n`,
        );
        return;
      }
      const p = result.problem;
      process.stderr.write(
        `warden: audit log BROKEN at row ${p?.seq}${p?.id ? ` (id ${p.id})` : ""}: ${p?.reason} — ${result.rows} rows before it verified\n`,
      );
      process.exitCode = EXIT_DENY;
    });

  audit
    .command("head")
    .description("print the chain's head as <seq>:<hash> (keep a copy elsewhere; verify --anchor checks it)")
    .option("--store <path>", STORE_HELP)
    .action(async (opts: { store?: string }) => {
      const head = await withAuditStore({
        ...(opts.store ? { store: opts.store } : {}),
        use: (store) => store.auditHead(),
      });
      process.stdout.write(`${head.headSeq}:${head.headHash}\n`);
    });

  audit
    .command("export")
    .description("every row, oldest first")
    .option("--jsonl", "one JSON object per line (the only format)")
    .option("--store <path>", STORE_HELP)
    .action(async (opts: { store?: string }) => {
      await withAuditStore({
        ...(opts.store ? { store: opts.store } : {}),
        use: async (store) => {
          let after = (await store.auditHead()).baseSeq;
          for (;;) {
            const rows = await store.readAuditChain({ after, limit: 1000 });
            if (rows.length === 0) break;
            process.stdout.write(`${rows.map((r) => JSON.stringify(r)).join("\n")}\n`);
            after = rows[rows.length - 1]?.seq ?? after;
          }
        },
      });
    });

  audit
    .command("prune")
    .description("remove the oldest rows, recording a checkpoint row so the chain stays verifiable")
    .option("--older-than <duration>", "rows written longer ago than this (30d, 12h, 45m, 90s)")
    .option("--keep <n>", "keep only the newest n rows")
    .option("--store <path>", STORE_HELP)
    .action(async (opts: { olderThan?: string; keep?: string; store?: string }) => {
      if ((opts.olderThan === undefined) === (opts.keep === undefined)) {
        throw new WardenError({
          code: "INVALID_INPUT",
          message: "give exactly one of --older-than <duration> and --keep <n>",
          details: { fields: ["older-than", "keep"] },
        });
      }
      const by =
        opts.keep !== undefined
          ? { keep: parseWith({ schema: Count, value: opts.keep, what: "--keep" }) }
          : { olderThan: olderThanTime({ duration: opts.olderThan as string }) };
      const result = await withAuditStore({
        ...(opts.store ? { store: opts.store } : {}),
        use: (store) => store.pruneAuditEntries(by),
      });
      process.stdout.write(
        result.checkpoint
          ? `pruned ${result.pruned} rows; checkpoint row ${result.checkpoint.seq}\n`
          : "nothing to prune\n",
      );
    });
}

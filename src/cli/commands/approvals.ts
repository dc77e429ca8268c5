/**
 * `warden approvals list|approve|deny`: the approval queue (src/runtime/approvals.ts) of the store chosen
 * by `--store` / `$WARDEN_STORE` — the one `warden serve` keeps its keys and approvals in — for an
 * operator at a shell. A decision goes through the same desk as POST /v1/approvals/:id, so a check
 * waiting on it (GET /v1/approvals/:id?wait=ms on a running server) completes within its poll interval.
 */
import { userInfo } from "node:os";
import type { Command } from "commander";
import { z } from "zod";
import type { Caller } from "../../core/caller.js";
import { parseWith } from "../../core/validate.js";
import type { Approval } from "../../store/store.js";
import { withKeyStore } from "./keys.js";

const STORE_HELP = "store of `warden serve` (default $WARDEN_STORE or ~/.local/state/warden/warden.db)";

const ListOptionsSchema = z.object({
  "--status": z.enum(["pending", "approved", "denied", "expired"]).default("pending"),
  "--limit": z
    .string()
    .regex(/^\d+$/, "a whole number")
    .transform(Number)
    .pipe(z.number().int().min(1).max(1000))
    .default(100),
});
const DecideArgsSchema = z.object({
  "<id>": z.string().min(1).max(200),
  "--by": z.string().trim().min(1).max(200),
});

/** The operator at this shell, as the audit log names them. */
const CLI_CALLER: Caller = { name: "cli", scopes: ["approvals:read", "approvals:write"] };

function table(approvals: readonly Approval[]): string {
  const rows = [
    ["ID", "STATUS", "POLICY", "CALLER", "RULES", "CREATED", "EXPIRES", "DECIDED BY"],
    ...approvals.map((a) => [
      a.id,
      a.status,
      a.policy,
      a.caller,
      a.rules.join(",") || "-",
      a.createdAt,
      a.expiresAt,
      a.decidedBy ?? "-",
    ]),
  ];
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length))) ?? [];
  return rows
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

const HELP = `
An \`ask\` answered by \`warden serve\` waits here until someone approves or denies it (or it expires,
which is a deny). After an approval, a re-check of exactly the same question by the same caller is
allowed once. The HTTP service serves the same queue at /v1/approvals and on the review page /ui.

Examples:
  $ warden approvals list --store /var/lib/warden/warden.db
  $ warden approvals approve 6f1c… --by alice@example.com
  $ warden approvals deny 6f1c…`;

export function registerApprovalsCommand(options: { program: Command }): void {
  const approvals = options.program
    .command("approvals")
    .description("list, approve and deny the approvals that `ask` decisions of `warden serve` wait on")
    .addHelpText("after", HELP);

  approvals
    .command("list")
    .description("list approvals, newest first (default: pending)")
    .option("--status <status>", "pending | approved | denied | expired", "pending")
    .option("--limit <n>", "at most this many (default 100)", "100")
    .option("--store <path>", STORE_HELP)
    .option("--json", "print the approvals as a JSON array")
    .action(async (opts: { status: string; limit: string; store?: string; json?: boolean }) => {
      const o = parseWith({
        schema: ListOptionsSchema,
        value: { "--status": opts.status, "--limit": opts.limit },
        what: "approvals list options",
      });
      const listed = await withKeyStore({
        ...(opts.store === undefined ? {} : { store: opts.store }),
        use: (store) => store.listApprovals({ status: o["--status"], limit: o["--limit"] }),
      });
      if (opts.json) process.stdout.write(`${JSON.stringify(listed, null, 2)}\n`);
      else if (listed.length === 0) process.stderr.write(`warden: no ${o["--status"]} approvals\n`);
      else process.stdout.write(`${table(listed)}\n`);
    });

  for (const decision of ["approve", "deny"] as const) {
    approvals
      .command(decision)
      .description(`${decision} a pending approval`)
      .argument("<id>", "the approval's id (see `warden approvals list`)")
      .option("--by <name>", "who decides (default: this user's login name)")
      .option("--store <path>", STORE_HELP)
      .action(async (id: string, opts: { by?: string; store?: string }) => {
        const args = parseWith({
          schema: DecideArgsSchema,
          value: { "<id>": id, "--by": opts.by ?? `${userInfo().username} (cli)` },
          what: `approvals ${decision} arguments`,
        });
        const { auditApprovalDecisions, createApprovalDesk } = await import("../../runtime/approvals.js");
        const approval = await withKeyStore({
          ...(opts.store === undefined ? {} : { store: opts.store }),
          use: (store) =>
            createApprovalDesk({
              store,
              // Who approved or denied what lands in the store's audit log.
              onDecided: auditApprovalDecisions({ store, face: "cli" }),
            }).decide({ id: args["<id>"], decision, by: args["--by"], caller: CLI_CALLER }),
        });
        process.stdout.write(
          `${approval.status} approval ${approval.id} (${approval.policy}, asked by ${approval.caller}) by ${approval.decidedBy}\n`,
        );
      });
  }
}

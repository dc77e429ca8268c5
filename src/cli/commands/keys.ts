/**
 * `warden keys create|list|revoke`: the API keys that `warden serve` asks callers for, kept (hashed) in
 * the store chosen by `--store` / `$WARDEN_STORE` — the same database `serve` opens. `create` prints the
 * key once on stdout (alone on its line, so `KEY=$(warden keys create --name ci)` captures it) and says on
 * stderr that it will not be shown again; only its SHA-256 is stored. Names, scopes and policies are
 * validated here with the store's own schemas, so an unknown scope is exit 2 naming it.
 */
import type { Command } from "commander";
import { z } from "zod";
import { CALLER_SCOPES } from "../../core/caller.js";
import { toWardenError, WardenError } from "../../core/errors.js";
import { parseWith } from "../../core/validate.js";
import { defaultStorePath, openStore } from "../../runtime/default-store.js";
import { issueApiKey } from "../../store/key-directory.js";
import type { ApiKey, Store } from "../../store/store.js";
import {
  ApiKeyNameSchema,
  ApiKeyPoliciesSchema,
  ApiKeyScopesSchema,
  RateTextSchema,
} from "../../store/store-input.js";

const STORE_HELP = "key database (default $WARDEN_STORE or ~/.local/state/warden/warden.db)";

/** The options of `keys create`, named as the user typed them so an error points at the flag. */
const CreateOptionsSchema = z.object({
  "--name": ApiKeyNameSchema,
  "--scopes": ApiKeyScopesSchema,
  "--policies": ApiKeyPoliciesSchema.optional(),
  "--rate": RateTextSchema.optional(),
});

/** "a, b,,c" -> ["a", "b", "c"]; an all-empty list stays empty so the schema can say what is missing. */
function splitList(value: string): string[] {
  return value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/** Opens the key store (also the approvals' store: `warden approvals`), runs `use`, and closes it whatever happens. */
export async function withKeyStore<T>(options: {
  store?: string;
  use: (store: Store, path: string) => Promise<T>;
}): Promise<T> {
  const path = options.store ?? defaultStorePath();
  if (path === ":memory:") {
    throw new WardenError({
      code: "INVALID_INPUT",
      message:
        "--store: ':memory:' keeps nothing once the command ends; keys need the database file that `warden serve` uses (--store <path> or $WARDEN_STORE)",
      details: { fields: ["store"] },
    });
  }
  // openStore may fail before SQLite does (creating the parent folder): still a store error, not a crash.
  const store = await openStore({ path }).catch((error: unknown) => {
    throw toWardenError({ error, code: "STORE_ERROR", message: `cannot open the key store ${path}` });
  });
  try {
    return await options.use(store, path);
  } finally {
    await store.close();
  }
}

function describeKey(key: ApiKey): string {
  const rate = key.ratePerSecond !== undefined ? `; rate ${key.ratePerSecond}/s` : "";
  return `scopes ${key.scopes.join(",")}; policies ${key.policies ? key.policies.join(",") : "all"}${rate}`;
}

function table(keys: readonly ApiKey[]): string {
  const rows = [
    ["NAME", "SCOPES", "POLICIES", "RATE", "CREATED", "LAST USED", "REVOKED"],
    ...keys.map((k) => [
      k.name,
      k.scopes.join(","),
      k.policies ? k.policies.join(",") : "all",
      k.ratePerSecond !== undefined ? `${k.ratePerSecond}/s` : "default",
      k.createdAt,
      k.lastUsedAt ?? "-",
      k.revokedAt ?? "-",
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
Scopes: ${CALLER_SCOPES.join(", ")} (default: check). A key without --policies may use every policy.
Once any key has been created, \`warden serve\` on the same store requires one on every route but
/healthz, and keeps requiring one after every key is revoked.

Examples:
  $ KEY=$(warden keys create --name ci --store /var/lib/warden/warden.db)
  $ warden keys create --name agent --scopes check,facts --policies mcp-tools --rate 20/s
  $ warden keys list
  $ warden keys revoke ci`;

export function registerKeysCommand(options: { program: Command }): void {
  const keys = options.program
    .command("keys")
    .description("create, list and revoke the API keys of the HTTP service")
    .addHelpText("after", HELP);

  keys
    .command("create")
    .description("create a key and print it once")
    .requiredOption(
      "--name <name>",
      "the key's name (unique among active keys; the caller's name in decisions)",
    )
    .option("--scopes <list>", `comma-separated scopes: ${CALLER_SCOPES.join(", ")}`, "check")
    .option("--policies <list>", "comma-separated policies the key may use (default: all)")
    .option(
      "--rate <n/s>",
      "requests per second this key may make (token bucket; default: serve's --rate-limit, else none)",
    )
    .option("--store <path>", STORE_HELP)
    .option("--json", "print { key, token } as JSON instead of the bare key")
    .action(
      async (opts: {
        name: string;
        scopes: string;
        policies?: string;
        rate?: string;
        store?: string;
        json?: boolean;
      }) => {
        const parsed = parseWith({
          schema: CreateOptionsSchema,
          value: {
            "--name": opts.name,
            "--scopes": splitList(opts.scopes),
            ...(opts.policies === undefined ? {} : { "--policies": splitList(opts.policies) }),
            ...(opts.rate === undefined ? {} : { "--rate": opts.rate }),
          },
          what: "keys create options",
        });
        const { key, token, path } = await withKeyStore({
          ...(opts.store === undefined ? {} : { store: opts.store }),
          use: async (store, path) => ({
            ...(await issueApiKey({
              store,
              name: parsed["--name"],
              scopes: parsed["--scopes"],
              ...(parsed["--policies"] ? { policies: parsed["--policies"] } : {}),
              ...(parsed["--rate"] !== undefined ? { ratePerSecond: parsed["--rate"] } : {}),
            })),
            path,
          }),
        });
        process.stdout.write(opts.json ? `${JSON.stringify({ key, token }, null, 2)}\n` : `${token}\n`);
        process.stderr.write(
          `warden: created key '${key.name}' (${describeKey(key)}) in ${path}. It will not be shown again: store it now.\n`,
        );
      },
    );

  keys
    .command("list")
    .description("list keys (never their secrets): name, scopes, policies, created, last used, revoked")
    .option("--active", "leave revoked keys out")
    .option("--store <path>", STORE_HELP)
    .option("--json", "print the keys as a JSON array")
    .action(async (opts: { active?: boolean; store?: string; json?: boolean }) => {
      const listed = await withKeyStore({
        ...(opts.store === undefined ? {} : { store: opts.store }),
        use: (store) => store.listApiKeys({ activeOnly: opts.active === true }),
      });
      if (opts.json) process.stdout.write(`${JSON.stringify(listed, null, 2)}\n`);
      else if (listed.length === 0) process.stderr.write("warden: no keys in this store\n");
      else process.stdout.write(`${table(listed)}\n`);
    });

  keys
    .command("revoke")
    .description("revoke the active key of that name; it fails from the next request on")
    .argument("<name>", "the key's name")
    .option("--store <path>", STORE_HELP)
    .action(async (name: string, opts: { store?: string }) => {
      const keyName = parseWith({ schema: ApiKeyNameSchema, value: name, what: "key name", path: "<name>" });
      const revoked = await withKeyStore({
        ...(opts.store === undefined ? {} : { store: opts.store }),
        use: (store) => store.revokeApiKey({ name: keyName }),
      });
      if (!revoked) {
        throw new WardenError({
          code: "INVALID_INPUT",
          message: `<name>: no active key named '${keyName}' (see \`warden keys list\`)`,
          details: { fields: ["name"] },
        });
      }
      process.stdout.write(`revoked key '${revoked.name}' (${describeKey(revoked)})\n`);
    });
}

/**
 * One HTTP server for bench/micro/serve.ts, in a process of its own so that the load generator's own CPU
 * is not counted against it. `hono` is the floor: a bare Hono app on @hono/node-server whose POST handler
 * reads and JSON.parses the body and answers a small JSON. `warden` is the service `warden serve` builds,
 * wired as the CLI wires it (src/cli/commands/serve.ts): startServer with the key directory of a SQLite
 * store (empty, so callers are anonymous and every request asks it), the default request logger on
 * stderr (which the benchmark points at a file, as an operator would) and the bundled policy preloaded.
 *
 * Warden runs from the build when it is fresh (as users run the installed package), else from the sources.
 *
 * Usage: `tsx bench/micro/serve-target.ts <hono|warden> <options-json>`; prints `{"url":..., "from":...}` on stdout
 * once listening and serves until SIGTERM.
 */
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { wardenModules } from "./warden-modules.js";

interface TargetOptions {
  /** Bundled policy name or path the Warden target preloads. */
  policy: string;
  /** Directory for the Warden target's key store. */
  dir: string;
  /** The audit log (default on, as in `warden serve`; false as with `--no-audit`). */
  audit?: boolean;
  /** Ablations for profiling (default on, as `warden serve` runs): the approval queue, /metrics, the request log. */
  approvals?: boolean;
  metrics?: boolean;
  requestLog?: boolean;
}

async function startHono(): Promise<{ from: string; url: string; close(): Promise<void> }> {
  const app = new Hono();
  app.post("/v1/check", async (c) => {
    const body = JSON.parse(await c.req.text()) as { policy?: unknown };
    return c.json({
      allowed: true,
      verdict: "allow",
      policy: typeof body.policy === "string" ? body.policy : "",
    });
  });
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) =>
      resolve({
        from: "hono",
        url: `http://127.0.0.1:${info.port}`,
        close: () => new Promise<void>((done) => server.close(() => done())),
      }),
    );
  });
}

async function startWarden(
  options: TargetOptions,
): Promise<{ from: string; url: string; close(): Promise<void> }> {
  const { from, server: serverModule, library } = await wardenModules();
  const keyStore = await library.createSqliteStore({
    path: join(options.dir, "warden.db"),
    backgroundCheckpoints: true,
  });
  const server = await serverModule.startServer({
    keys: library.createKeyDirectory({ store: keyStore }),
    policyRefs: [options.policy],
    port: 0,
    host: "127.0.0.1",
    logger: options.requestLog === false ? false : serverModule.createServerLogger({ level: "info" }),
    ...(options.metrics === false ? { metrics: false as const } : {}),
    // As `warden serve` runs by default: every decision is answered after its audit row is committed,
    // and an ask becomes an approval in the same store.
    ...(options.audit === false ? {} : { auditStore: keyStore }),
    ...(options.approvals === false ? {} : { approvals: { store: keyStore } }),
    reviewPage: true,
  });
  return {
    from,
    url: server.url,
    close: async () => {
      await server.close();
      await keyStore.close();
    },
  };
}

const [kind, json] = process.argv.slice(2);
const options = JSON.parse(json ?? "{}") as TargetOptions;
const target =
  kind === "hono" ? await startHono() : kind === "warden" ? await startWarden(options) : undefined;
if (!target) {
  process.stderr.write(`unknown target "${kind ?? ""}"; hono or warden\n`);
  process.exit(2);
}
process.stdout.write(`${JSON.stringify({ url: target.url, from: target.from })}\n`);
process.once("SIGTERM", () => {
  void target.close().then(() => process.exit(0));
});

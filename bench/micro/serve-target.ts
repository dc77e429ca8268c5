/**
 * One HTTP server for bench/micro/serve.ts, in a process of its own so that the load generator's own CPU
 * is not counted against it. `hono` is the floor: a bare Hono app on @hono/node-server whose POST handler
 * reads and JSON.parses the body and answers a small JSON. `warden` is the service `warden serve` builds,
 * wired as the CLI wires it (src/cli/commands/serve.ts): startServer with the key directory of a SQLite
 * store (empty, so callers are anonymous and every request asks it), the default request logger on
 * stderr (which the benchmark points at a file, as an operator would) and the bundled policy preloaded.
 *
 * Usage: `tsx bench/micro/serve-target.ts <hono|warden> <options-json>`; prints `{"url":...}` on stdout
 * once listening and serves until SIGTERM.
 */
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { openStore } from "../../src/runtime/default-store.js";
import { createServerLogger } from "../../src/server/request-log.js";
import { startServer } from "../../src/server/start-server.js";
import { createKeyDirectory } from "../../src/store/key-directory.js";

interface TargetOptions {
  /** Bundled policy name or path the Warden target preloads. */
  policy: string;
  /** Directory for the Warden target's key store. */
  dir: string;
}

async function startHono(): Promise<{ url: string; close(): Promise<void> }> {
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
        url: `http://127.0.0.1:${info.port}`,
        close: () => new Promise<void>((done) => server.close(() => done())),
      }),
    );
  });
}

async function startWarden(options: TargetOptions): Promise<{ url: string; close(): Promise<void> }> {
  const keyStore = await openStore({ path: join(options.dir, "warden.db") });
  const server = await startServer({
    keys: createKeyDirectory({ store: keyStore }),
    policyRefs: [options.policy],
    port: 0,
    host: "127.0.0.1",
    logger: createServerLogger({ level: "info" }),
  });
  return {
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
process.stdout.write(`${JSON.stringify({ url: target.url })}\n`);
process.once("SIGTERM", () => {
  void target.close().then(() => process.exit(0));
});

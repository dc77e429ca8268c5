/**
 * Main-thread CPU per request of Warden's service, in process, with no HTTP server and no load generator
 * beside it: the figure that wall-clock throughput on a shared 2-core machine hides. The service is built
 * as serve-target.ts builds it (startServer over a SQLite key store with background checkpoints, the
 * bundled policy preloaded, approvals on) and its Hono app (createWardenApp over the same service) is
 * driven through app.request with serve.ts's request mix, `connections` requests kept in flight, so the
 * audit log's group commit sees batches as a busy server would. The audit log on or off is the variable.
 * Each request starts on a turn of the event loop of its own (as a socket read does), so that the turn
 * the audit log waits for its commit is not mistaken for its cost.
 *
 * Main-thread CPU is read from /proc/self/task/<pid>/stat (the main thread's tid is the pid), so the
 * checkpointer thread's work is counted apart ("otherThreadsUs": the whole process minus the main thread).
 *
 * Run: `npx tsx bench/micro/serve-cpu.ts [requests] [connections] [rounds] [on|off]` (from the build when it is fresh, as
 * serve-target.ts decides); prints JSON, one line per variant and round, interleaved audit on and off.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { subjectBodies } from "./serve.js";
import { type WardenModules, wardenModules } from "./warden-modules.js";

/** CPU seconds of the main thread (tid = pid) from /proc (clock ticks of 1/100 s). */
function mainThreadCpuSeconds(): number {
  const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function processCpuSeconds(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}

async function variant(options: {
  modules: WardenModules;
  audit: boolean;
  requests: number;
  connections: number;
  warmup: number;
}) {
  const { server: serverModule, library } = options.modules;
  const dir = mkdtempSync(join(tmpdir(), "warden-serve-cpu-"));
  const keyStore = await library.createSqliteStore({
    path: join(dir, "warden.db"),
    backgroundCheckpoints: true,
  });
  const running = await serverModule.startServer({
    keys: library.createKeyDirectory({ store: keyStore }),
    policyRefs: ["mcp-tools"],
    port: 0,
    host: "127.0.0.1",
    logger: false,
    metrics: false,
    ...(options.audit ? { auditStore: keyStore } : {}),
    approvals: { store: keyStore },
  });
  const app = serverModule.createWardenApp({ service: running.service, logger: false });
  const bodies = subjectBodies({ policy: "mcp-tools" });
  let sent = 0;
  let failed = 0;
  const one = async (): Promise<void> => {
    // Each request starts on a turn of the event loop of its own, as one read from a socket does: without
    // it the variant without the audit log would answer everything in one storm of microtasks, and the
    // turn the audit log waits for its commit would be counted as the audit log's cost.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const body = bodies[sent++ % bodies.length] as string;
    const answer = await app.request("http://127.0.0.1/v1/check", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    await answer.text();
    if (answer.status !== 200) failed++;
  };
  const drive = async (total: number) => {
    const limit = sent + total;
    const lane = async () => {
      while (sent < limit) await one();
    };
    await Promise.all(Array.from({ length: options.connections }, lane));
  };
  try {
    await drive(options.warmup);
    const main0 = mainThreadCpuSeconds();
    const all0 = processCpuSeconds();
    const wall0 = performance.now();
    const before = sent;
    await drive(options.requests);
    const n = sent - before;
    const mainUs = ((mainThreadCpuSeconds() - main0) * 1e6) / n;
    const allUs = ((processCpuSeconds() - all0) * 1e6) / n;
    return {
      audit: options.audit,
      requests: n,
      failed,
      mainThreadUsPerRequest: Math.round(mainUs * 10) / 10,
      otherThreadsUsPerRequest: Math.round((allUs - mainUs) * 10) / 10,
      wallUsPerRequest: Math.round(((performance.now() - wall0) * 1000) / n),
    };
  } finally {
    await running.close();
    await keyStore.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const requests = Number(process.argv[2] ?? 20_000);
  const connections = Number(process.argv[3] ?? 50);
  const rounds = Number(process.argv[4] ?? 2);
  // "on" or "off": that variant only (for --cpu-prof); both, interleaved, by default.
  const only = process.argv[5];
  const modules = await wardenModules();
  for (let round = 0; round < rounds; round++) {
    const both = round % 2 === 0 ? [true, false] : [false, true];
    const order = only === undefined ? both : [only === "on"];
    for (const audit of order) {
      const figures = await variant({ modules, audit, requests, connections, warmup: 3000 });
      process.stdout.write(`${JSON.stringify({ from: modules.from, round, ...figures })}\n`);
    }
  }
}

/**
 * A child process for audit-durability.test.ts: checks decisions through withAudit (sync mode, the
 * default) over a stand-in guard service, as fast as it can, and prints `ack <id>` for each decision only
 * after it was answered — the moment a caller would act on it. The test kills it with SIGKILL mid-write.
 *
 *   node --import tsx audit-writer.fixture.ts <sqlite path | postgres URL> <writer name> [schema]
 */
import type { Decision } from "../core/decision.js";
import { createPostgresStore } from "../store/postgres-store.js";
import { createSqliteStore } from "../store/sqlite-store.js";
import { withAudit } from "./audit-log.js";
import type { GuardService } from "./guard-service.js";

const [target = "", writer = "w", schema] = process.argv.slice(2);
const store = target.startsWith("postgres")
  ? await createPostgresStore({ url: target, ...(schema ? { schema } : {}) })
  : await createSqliteStore({ path: target });

let n = 0;
const decisionFor = (id: string): Decision => ({
  allowed: n % 2 === 0,
  label: n % 2 === 0 ? 0 : 1,
  verdict: n % 2 === 0 ? "allow" : "deny",
  violations: n % 2 === 0 ? [] : [{ ruleId: "rule.kill", message: id }],
  explanation: id,
  output: null,
  engine: "compiled",
  policy: { name: "durability", version: "1" },
  cost: { llmCalls: 0, inputTokens: 0, outputTokens: 0, ms: 0 },
});
const stand = { check: async ({ subject }: { subject: { input: string } }) => decisionFor(subject.input) };
const service = withAudit({
  service: stand as unknown as GuardService,
  store,
  face: "durability-test",
  defaultCaller: writer,
});
process.stdout.write("ready\n");
for (;;) {
  n += 1;
  const id = `${writer}-${n}`;
  const decision = await service.check({ policy: "durability", subject: { input: id, output: "" } });
  if (decision.explanation !== id) throw new Error(`unexpected decision for ${id}: ${decision.explanation}`);
  process.stdout.write(`ack ${id}\n`);
}

/** A minimal in-memory Store for the shield's tests (the SQLite store lives in src/store). */
import { WardenError } from "../../../core/errors.js";
import { demonstrationContentHash } from "../../../store/content-hash.js";
import type { Demonstration, NewDemonstration, NewWorkflow, Store, Workflow } from "../../../store/store.js";

export function createInMemoryStore(): Store & { workflows: Workflow[] } {
  const workflows: Workflow[] = [];
  const demonstrations: Demonstration[] = [];
  let seq = 0;
  const addDemonstration = async ({ demonstration }: { demonstration: NewDemonstration }) => {
    seq += 1;
    const d: Demonstration = {
      ...demonstration,
      id: demonstration.id ?? `d${seq}`,
      createdAt: new Date(0).toISOString(),
      seq,
    };
    demonstrations.push(d);
    return d;
  };
  return {
    workflows,
    addDemonstration,
    // One process, no awaits between lookup and insert: atomic without a lock.
    async addDemonstrationOnce({ demonstration }: { demonstration: NewDemonstration }) {
      const hash = demonstrationContentHash({ demonstration });
      const existing = demonstrations.find(
        (d) => d.policy === demonstration.policy && demonstrationContentHash({ demonstration: d }) === hash,
      );
      if (existing) return { demonstration: existing, added: false };
      return { demonstration: await addDemonstration({ demonstration }), added: true };
    },
    async listDemonstrations({ policy }) {
      return demonstrations.filter((d) => d.policy === policy);
    },
    async countDemonstrations({ policy }) {
      return demonstrations.filter((d) => policy === undefined || d.policy === policy).length;
    },
    async deleteDemonstration({ id }) {
      const i = demonstrations.findIndex((d) => d.id === id);
      if (i >= 0) demonstrations.splice(i, 1);
      return i >= 0;
    },
    async addWorkflow({ workflow }: { workflow: NewWorkflow }) {
      seq += 1;
      const w: Workflow = {
        ...workflow,
        id: workflow.id ?? `w${seq}`,
        createdAt: new Date(0).toISOString(),
        seq,
      };
      workflows.push(w);
      return w;
    },
    async listWorkflows({ policy, action }) {
      return workflows.filter((w) => w.policy === policy && (action === undefined || w.action === action));
    },
    // The shield keeps no keys: a test reaching these has the wrong store.
    createApiKey: noKeys,
    listApiKeys: noKeys,
    revokeApiKey: noKeys,
    findApiKeyByHash: noKeys,
    markApiKeyUsed: noKeys,
    // Nor server-side sessions.
    createSession: noKeys,
    getSession: noKeys,
    listSessionSteps: noKeys,
    appendSessionStep: noKeys,
    finishSession: noKeys,
    // Nor an audit log.
    appendAuditEntry: noKeys,
    listAuditEntries: noKeys,
    getAuditEntry: noKeys,
    readAuditChain: noKeys,
    auditHead: noKeys,
    pruneAuditEntries: noKeys,
    // Nor approvals (issue 14, h2).
    createApproval: noKeys,
    getApproval: noKeys,
    listApprovals: noKeys,
    decideApproval: noKeys,
    findPendingApproval: noKeys,
    useApproval: noKeys,
    async close() {},
  };
}

async function noKeys(): Promise<never> {
  throw new WardenError({
    code: "UNSUPPORTED",
    message: "the shield's in-memory test store keeps no API keys, sessions, audit log or approvals",
  });
}

/**
 * A small policy with tool rules and a temporal rule (never send email once a secret was read), for the
 * tests of server-side sessions (written to a file so a server or a `warden serve` child can load it) and
 * the AI SDK red team (its rules inline).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const SECRETS_POLICY_NAME = "sessions-secrets";

export const SECRETS_POLICY = {
  kind: "warden.policy",
  schemaVersion: 1,
  name: SECRETS_POLICY_NAME,
  version: "1.0.0",
  agent: "tools",
  specification: "An agent that calls tools (session test policy).",
  requests: "Never send email after reading a secret; production secrets are off limits.",
  rules: {
    vocabulary: { actions: ["secrets.read", "email.send", "web.fetch"] },
    toolRules: [
      { id: "allow-read", tool: "secrets.read", effect: "allow", message: "Reading is fine" },
      { id: "allow-send", tool: "email.send", effect: "allow", message: "Sending is fine" },
      { id: "allow-fetch", tool: "web.fetch", effect: "allow", message: "Fetching is fine" },
      {
        id: "deny-read-prod",
        tool: "secrets.read",
        effect: "deny",
        message: "Production secrets are off limits",
        when: { field: "args.name", op: "eq", value: "prod" },
      },
    ],
    toolDefault: "deny",
    predicates: [
      {
        name: "reads",
        kind: "action",
        description: "reads a secret",
        binding: { kind: "condition", when: { field: "action", op: "eq", value: "secrets.read" } },
      },
      {
        name: "sends",
        kind: "action",
        description: "sends an email",
        binding: { kind: "condition", when: { field: "action", op: "eq", value: "email.send" } },
      },
    ],
    temporalRules: [
      {
        id: "no-send-after-secret",
        formula: "G(reads -> G !sends)",
        description: "Never send email after reading a secret",
      },
    ],
  },
};

/** Writes the policy to a fresh temporary folder and returns the file's path. */
export function writeSecretsPolicy(): string {
  const path = join(mkdtempSync(join(tmpdir(), "warden-sessions-")), `${SECRETS_POLICY_NAME}.json`);
  writeFileSync(path, JSON.stringify(SECRETS_POLICY, null, 2));
  return path;
}

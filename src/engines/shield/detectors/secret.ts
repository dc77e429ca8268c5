/**
 * The `secret` detector: credentials in a step's text — tokens with well-known prefixes (OpenAI/Anthropic
 * `sk-`, GitHub `ghp_`/`github_pat_`, GitLab `glpat-`, AWS `AKIA`/`ASIA`, Slack `xox?-`, Google `AIza`,
 * Stripe live keys, JWTs), private-key blocks, and long high-entropy values assigned to a key-like name
 * (`api_key=...`, `Authorization: Bearer ...`, `"password": "..."`). A bare hex hash or UUID in prose is
 * not a secret; the same string after `token=` is.
 */
import { z } from "zod";
import type { Detector } from "./detector.js";
import { leakTexts, parseDetectorParams, readText } from "./detector-params.js";

export interface SecretMatch {
  kind: string;
  text: string;
  index: number;
}

const PREFIXED: Array<{ kind: string; re: RegExp }> = [
  { kind: "anthropic_key", re: /(?<![\w-])sk-ant-[A-Za-z0-9_-]{20,}/g },
  { kind: "openai_key", re: /(?<![\w-])sk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  { kind: "github_token", re: /(?<!\w)gh[pousr]_[A-Za-z0-9]{30,}/g },
  { kind: "github_pat", re: /(?<!\w)github_pat_[A-Za-z0-9_]{22,}/g },
  { kind: "gitlab_token", re: /(?<![\w-])glpat-[A-Za-z0-9_-]{20,}/g },
  { kind: "aws_access_key", re: /(?<![A-Z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Z0-9])/g },
  { kind: "slack_token", re: /(?<![\w-])xox[abposr]-[A-Za-z0-9-]{10,}/g },
  { kind: "google_api_key", re: /(?<![\w-])AIza[0-9A-Za-z_-]{35}/g },
  { kind: "stripe_key", re: /(?<!\w)(?:sk|rk)_live_[A-Za-z0-9]{16,}/g },
  { kind: "jwt", re: /(?<![\w-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  {
    kind: "private_key",
    re: /-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?-----/g,
  },
];

const KEY_NAMES =
  "api[_-]?key|apikey|access[_-]?key|secret(?:[_-]?key)?|client[_-]?secret|token|access[_-]?token|auth[_-]?token|refresh[_-]?token|private[_-]?key|password|passwd|pwd|passphrase|credentials?";
const ASSIGNED = new RegExp(`(?<![\\w])(${KEY_NAMES})["']?\\s*(?:[:=]|=>)\\s*["']?([^\\s"',;<>]{8,})`, "gi");
const BEARER = /\b(?:Bearer|Basic|token)\s+([A-Za-z0-9._~+/=-]{16,})/g;

/** Shannon entropy in bits per character. */
export function shannonEntropy(options: { text: string }): number {
  const { text } = options;
  if (text === "") return 0;
  const counts = new Map<string, number>();
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / text.length;
    h -= p * Math.log2(p);
  }
  return h;
}

const PLACEHOLDER =
  /^(?:x+|\*+|\.+|<[^>]*>|\$\{[^}]*\}|your[_-].*|changeme|redacted|none|null|undefined|example.*)$/i;

function looksSecret(value: string, keyName: string): boolean {
  if (PLACEHOLDER.test(value)) return false;
  if (/^https?:\/\//i.test(value)) return false;
  const isPassword = /pass|pwd/i.test(keyName);
  // Passwords are short and human-chosen; other credentials are long and random.
  if (isPassword) return value.length >= 8 && /[A-Za-z]/.test(value) && /[\d\W_]/.test(value);
  return (
    value.length >= 16 && shannonEntropy({ text: value }) >= 3.2 && /\d/.test(value) && /[A-Za-z]/.test(value)
  );
}

/** Every secret-looking match in the text. */
export function findSecrets(options: { text: string }): SecretMatch[] {
  const { text } = options;
  const found: SecretMatch[] = [];
  for (const { kind, re } of PREFIXED) {
    for (const m of text.matchAll(re)) found.push({ kind, text: m[0], index: m.index });
  }
  for (const m of text.matchAll(ASSIGNED)) {
    const value = m[2]!;
    if (looksSecret(value, m[1]!))
      found.push({ kind: "assigned_secret", text: value, index: m.index + m[0].length - value.length });
  }
  for (const m of text.matchAll(BEARER)) {
    const value = m[1]!;
    if (shannonEntropy({ text: value }) >= 3.2 && /\d/.test(value)) {
      found.push({ kind: "bearer_token", text: value, index: m.index + m[0].length - value.length });
    }
  }
  return found;
}

const SecretParamsSchema = z.looseObject({
  /** Only these kinds count (default: all). */
  kinds: z.array(z.string().min(1)).min(1).optional(),
});

export const secretDetector: Detector = {
  name: "secret",
  description:
    "true when the field (default: text) holds a credential: a token with a known prefix, a private key, or a high-entropy value assigned to a key-like name",
  detect({ facts, params, field }) {
    const p = parseDetectorParams({ schema: SecretParamsSchema, params, detector: "secret" });
    const text = readText({ facts, field, fallback: "text" });
    if (text === undefined) return undefined;
    return leakTexts({ text }).some((t) => {
      const found = findSecrets({ text: t });
      return p.kinds ? found.some((m) => p.kinds!.includes(m.kind)) : found.length > 0;
    });
  },
};

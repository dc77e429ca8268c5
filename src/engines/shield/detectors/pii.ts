/**
 * The `pii` detector: personal data in a step's text — e-mail addresses, phone numbers, payment card
 * numbers (Luhn-checked, known issuer prefixes), US social security numbers and IBANs (mod-97
 * checked). Tuned for precision: dates, times, IP addresses, version strings and order numbers
 * ("#000123", "ORD-2024-0001") are not phone numbers, and a digit run only counts as a card or IBAN
 * when its checksum holds.
 */
import { z } from "zod";
import type { Detector } from "./detector.js";
import { leakTexts, parseDetectorParams, readText } from "./detector-params.js";

export const PII_KINDS = ["email", "phone", "credit_card", "ssn", "iban"] as const;
export type PiiKind = (typeof PII_KINDS)[number];

export interface PiiMatch {
  kind: PiiKind;
  text: string;
  index: number;
}

const EMAIL =
  /(?<![\w.+%-])[A-Za-z0-9][A-Za-z0-9._%+-]*@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,24}(?![\w-])/g;
const PHONE =
  /(?<![\w#/.+:-])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{1,4}\)[\s.-]?)?\d{2,4}(?:[\s.-]\d{2,5}){1,4}(?![\w/:-]|[.,]\d)/g;
const PHONE_CONTEXT = /(phone|tel\b|telephone|mobile|cell|fax|call|sms|whatsapp|contact)[^\n]{0,25}$/i;
const BARE_PHONE = /(?<![\w#/.+:-])\+?\d{10,13}(?![\w/:-]|[.,]\d)/g;
const DATE_INSIDE =
  /(?:^|\D)(?:19|20)\d{2}[-./ ](?:0?[1-9]|1[0-2])[-./ ](?:0?[1-9]|[12]\d|3[01])(?:\D|$)|(?:^|\D)(?:0?[1-9]|[12]\d|3[01])[-./](?:0?[1-9]|1[0-2])[-./](?:19|20)\d{2}(?:\D|$)/;
const CARD = /(?<![\w-])(?:\d[ -]?){12,18}\d(?![\w-])/g;
const SSN = /(?<![\w-])(\d{3})-(\d{2})-(\d{4})(?![\w-])/g;
const IBAN = /(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}(?![A-Za-z0-9])/g;

function digitsOf(text: string): string {
  return text.replace(/\D/g, "");
}

export function luhnValid(options: { digits: string }): boolean {
  const { digits } = options;
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

function knownCardPrefix(d: string): boolean {
  const n2 = Number(d.slice(0, 2));
  const n3 = Number(d.slice(0, 3));
  const n4 = Number(d.slice(0, 4));
  if (d[0] === "4") return [13, 16, 19].includes(d.length);
  if ((n2 >= 51 && n2 <= 55) || (n4 >= 2221 && n4 <= 2720)) return d.length === 16;
  if (n2 === 34 || n2 === 37) return d.length === 15;
  if (n4 === 6011 || n2 === 65 || (n3 >= 644 && n3 <= 649)) return d.length >= 16 && d.length <= 19;
  if (n4 >= 3528 && n4 <= 3589) return d.length >= 16 && d.length <= 19;
  if ((n3 >= 300 && n3 <= 305) || n2 === 36 || n2 === 38) return d.length === 14;
  if (n2 === 62) return d.length >= 16 && d.length <= 19;
  return false;
}

export function ibanValid(options: { iban: string }): boolean {
  const iban = options.iban.replace(/\s+/g, "").toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban)) return false;
  const moved = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const ch of moved) {
    const value = ch >= "A" && ch <= "Z" ? String(ch.charCodeAt(0) - 55) : ch;
    for (const digit of value) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder === 1;
}

function plausiblePhone(candidate: string, before: string): boolean {
  const digits = digitsOf(candidate);
  if (DATE_INSIDE.test(candidate)) return false;
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(candidate)) return false;
  const plus = candidate.startsWith("+");
  const parens = candidate.includes("(");
  const separators = new Set(candidate.replace(/[\d()+]/g, "").split(""));
  const context = PHONE_CONTEXT.test(before);
  // Space-only digit groups ("2019 2020 2021") are too ambiguous without a "+", "(area)" or a cue word.
  if (!plus && !parens && !context && separators.size === 1 && separators.has(" ")) return false;
  if (plus) return digits.length >= 8 && digits.length <= 15;
  if (digits.length === 7) return /^\d{3}[-.]\d{4}$/.test(candidate) || context;
  if (digits.length >= 10 && digits.length <= 11) {
    const groups = candidate.split(/[\s.()-]+/).filter((g) => g !== "");
    return groups.length >= 2 && groups.length <= 4;
  }
  return context && digits.length >= 8 && digits.length <= 13;
}

function overlaps(found: PiiMatch[], index: number, length: number): boolean {
  return found.some((m) => index < m.index + m.text.length && m.index < index + length);
}

/** Every PII match in the text, strongest evidence first (checksummed kinds before phone numbers). */
export function findPii(options: { text: string; kinds?: readonly PiiKind[] }): PiiMatch[] {
  const { text } = options;
  const kinds = new Set(options.kinds ?? PII_KINDS);
  const found: PiiMatch[] = [];
  if (kinds.has("email")) {
    for (const m of text.matchAll(EMAIL)) found.push({ kind: "email", text: m[0], index: m.index });
  }
  if (kinds.has("iban")) {
    for (const m of text.matchAll(IBAN)) {
      if (ibanValid({ iban: m[0] })) found.push({ kind: "iban", text: m[0], index: m.index });
    }
  }
  if (kinds.has("credit_card")) {
    for (const m of text.matchAll(CARD)) {
      const d = digitsOf(m[0]);
      if (d.length < 13 || d.length > 19 || /^(\d)\1+$/.test(d)) continue;
      if (luhnValid({ digits: d }) && knownCardPrefix(d) && !overlaps(found, m.index, m[0].length)) {
        found.push({ kind: "credit_card", text: m[0], index: m.index });
      }
    }
  }
  if (kinds.has("ssn")) {
    for (const m of text.matchAll(SSN)) {
      const area = Number(m[1]);
      if (area === 0 || area === 666 || area >= 900 || m[2] === "00" || m[3] === "0000") continue;
      if (!overlaps(found, m.index, m[0].length)) found.push({ kind: "ssn", text: m[0], index: m.index });
    }
  }
  if (kinds.has("phone")) {
    for (const re of [PHONE, BARE_PHONE]) {
      for (const m of text.matchAll(re)) {
        const before = text.slice(Math.max(0, m.index - 40), m.index);
        const bare = re === BARE_PHONE;
        if (bare && !m[0].startsWith("+") && !PHONE_CONTEXT.test(before)) continue;
        if (overlaps(found, m.index, m[0].length)) continue;
        if (bare || plausiblePhone(m[0], before)) found.push({ kind: "phone", text: m[0], index: m.index });
      }
    }
  }
  return found;
}

const PiiParamsSchema = z.looseObject({
  /** Which kinds count (default: all). */
  kinds: z.array(z.enum(PII_KINDS)).min(1).optional(),
});

export const piiDetector: Detector = {
  name: "pii",
  description:
    "true when the field (default: text = element text, typed value and arguments) holds personal data: e-mail, phone, card number, SSN or IBAN",
  detect({ facts, params, field }) {
    const p = parseDetectorParams({ schema: PiiParamsSchema, params, detector: "pii" });
    const text = readText({ facts, field, fallback: "text" });
    if (text === undefined) return undefined;
    return leakTexts({ text }).some((t) => findPii({ text: t, kinds: p.kinds }).length > 0);
  },
};

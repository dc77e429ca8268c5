/**
 * Builds the classifier's lexicon from the attribute rules' own words. A description such as
 * "Buy/Rent/Find/Browse a car/truck" becomes a pattern of verbs {buy, rent, find, browse} and objects
 * {car, truck}; "Purchase (Add to cart or to bag in an online store)" becomes a verb-only pattern
 * {purchase} and a pattern {add} x {cart, bag} (the place phrase "in an online store" is context, not
 * an object). Verbs are widened with their verb group, objects with their concept's synonyms, both
 * with the rule's keywords; the rule's `exclude` phrases are kept to veto matches.
 */
import type { AttributeRule } from "../../../../core/policy.js";
import { lemmatize, nounLemmas, verbLemmas } from "./lemmatize.js";
import {
  CONCEPTS,
  NOMINALIZATIONS,
  PREPOSITIONS,
  STOPWORDS,
  type TermEntry,
  VERB_GROUPS,
} from "./vocabulary.js";

export interface LexiconTerm {
  /** Singular noun forms, one per word. */
  tokens: string[];
  /** The rule word this term stands for ("car" for "SUV"). */
  concept: string;
  /** "rule": the rule's own word; "synonym": from the vocabulary; "keyword": the rule's keywords. */
  source: "rule" | "synonym" | "keyword";
  weight: number;
  needsSupport: boolean;
}

export interface LexiconPattern {
  /** Verb lemma -> the rule verb it stands for. */
  verbs: Map<string, string>;
  /** Empty: the verb alone names the action ("Purchase"). */
  objects: LexiconTerm[];
}

export interface RuleLexicon {
  rule: AttributeRule;
  patterns: LexiconPattern[];
  /** Multi-word keywords: a match is strong evidence by itself. */
  phrases: string[][];
  /** The rule's `exclude` phrases, as singular noun forms. */
  excludes: string[][];
}

const VERB_WORDS = new Set(VERB_GROUPS.flat());
const KNOWN_VERBS = new Set([...VERB_WORDS, ...Object.values(NOMINALIZATIONS)]);

/** Concept key -> its terms, and every term -> the concepts it belongs to. */
const CONCEPT_TERMS = new Map<string, TermEntry[]>();
const TERM_CONCEPTS = new Map<string, Set<string>>();
for (const [concept, entries] of Object.entries(CONCEPTS)) {
  const terms = [
    { term: concept } as TermEntry,
    ...entries.map((e) => (typeof e === "string" ? { term: e } : e)),
  ];
  CONCEPT_TERMS.set(concept, terms);
  for (const t of terms) {
    const set = TERM_CONCEPTS.get(t.term) ?? new Set<string>();
    set.add(concept);
    TERM_CONCEPTS.set(t.term, set);
  }
}
const KNOWN_NOUNS = new Set(TERM_CONCEPTS.keys());

/** Words of a phrase as singular nouns ("Car Seats" -> ["car", "seat"]). */
export function phraseTokens(options: { text: string }): string[] {
  return (options.text.toLowerCase().match(/[a-z0-9]+(?:[&'][a-z0-9]+)*/g) ?? []).map((w) =>
    lemmatize({ word: w.replace(/'s$/, ""), pos: "noun", known: KNOWN_NOUNS }),
  );
}

function verbLemma(word: string): string {
  const nominal = nounLemmas({ word })
    .map((n) => NOMINALIZATIONS[n])
    .find((v) => v !== undefined);
  if (nominal) return nominal;
  return lemmatize({ word, pos: "verb", known: KNOWN_VERBS });
}

function isKnownVerb(word: string): boolean {
  return (
    verbLemmas({ word }).some((v) => KNOWN_VERBS.has(v)) ||
    nounLemmas({ word }).some((n) => n in NOMINALIZATIONS)
  );
}

interface Clause {
  verbs: string[];
  objects: string[];
}

/** A unit is one word of the description with its "/" alternatives; `sep` marks "or", "and", ",". */
interface Unit {
  alts: string[];
  sep: boolean;
}

function units(clause: string): Unit[] {
  const out: Unit[] = [];
  for (const word of clause.split(/\s+/)) {
    const comma = /,$/.test(word);
    const alts = word
      .toLowerCase()
      .split("/")
      .map((w) => w.replace(/^[^a-z0-9&]+|[^a-z0-9&]+$/g, "").replace(/'s$/, ""))
      .filter((w) => w !== "");
    if (alts.length > 0)
      out.push({ alts, sep: alts.length === 1 && (alts[0] === "or" || alts[0] === "and") });
    if (comma) out.push({ alts: [","], sep: true });
  }
  return out;
}

function startsObject(u: Unit | undefined): boolean {
  if (!u || u.sep) return false;
  const w = u.alts[0]!;
  return !PREPOSITIONS.has(w) && !(u.alts.length === 1 && /^\d/.test(w));
}

/** Reads "Verb[/Verb] [a] object[/object] [prep ...]" clauses out of a rule description. */
export function parseDescription(options: { text: string }): Clause[] {
  const clauses: Clause[] = [];
  // Guard requests often write "Action: Buy/Rent ..."; the label is not part of the action.
  const text = options.text.replace(/^\s*action\s*:\s*/i, "");
  for (const part of text.split(/[();]|\.(?:\s|$)/)) {
    const us = units(part);
    if (us.length === 0) continue;
    let i = 0;
    const verbs: string[] = [];
    // The first word states the action; more verbs may follow after "or"/"and"/",".
    while (i < us.length) {
      const u = us[i]!;
      if (i === 0 || u.alts.every(isKnownVerb)) {
        if (!u.sep) verbs.push(...u.alts.map(verbLemma));
        i++;
      } else if (u.sep && us[i + 1] && (us[i + 1]!.alts.every(isKnownVerb) || startsObject(us[i + 2]))) {
        // "Buy, sell or trade cryptocurrencies": a word after a separator that an object follows is
        // one more verb of the list, known or not.
        i++;
        verbs.push(...us[i]!.alts.map(verbLemma));
        i++;
      } else break;
    }
    const objects: string[] = [];
    let phrase: Unit[] = [];
    let skipping = false;
    const flush = () => {
      const head = phrase.at(-1);
      if (head) {
        objects.push(...head.alts.map((w) => lemmatize({ word: w, pos: "noun", known: KNOWN_NOUNS })));
        // Modifiers count too when they are category words themselves ("hotel room").
        for (const m of phrase.slice(0, -1)) {
          for (const w of m.alts) {
            const noun = lemmatize({ word: w, pos: "noun", known: KNOWN_NOUNS });
            if (KNOWN_NOUNS.has(noun)) objects.push(noun);
          }
        }
      }
      phrase = [];
    };
    for (; i < us.length; i++) {
      const u = us[i]!;
      const word = u.alts[0]!;
      if (u.sep) {
        flush();
        skipping = false;
      } else if (u.alts.length === 1 && PREPOSITIONS.has(word)) {
        // A place or qualifier phrase ("in an online store", "under $5000") is context, not an object.
        flush();
        skipping = true;
      } else if (skipping) {
        // still inside the qualifier phrase
      } else if (u.alts.length === 1 && (STOPWORDS.has(word) || /^\d/.test(word))) {
        flush();
      } else {
        phrase.push(u);
      }
    }
    flush();
    if (verbs.length > 0 || objects.length > 0) clauses.push({ verbs, objects: [...new Set(objects)] });
  }
  return clauses;
}

function expandVerbs(verbs: string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const v of verbs) {
    map.set(v, v);
    for (const group of VERB_GROUPS) {
      if (group.includes(v)) for (const other of group) if (!map.has(other)) map.set(other, v);
    }
  }
  return map;
}

function expandObjects(objects: string[]): LexiconTerm[] {
  const terms: LexiconTerm[] = [];
  const seen = new Set<string>();
  const add = (t: LexiconTerm) => {
    const key = t.tokens.join(" ");
    if (seen.has(key)) return;
    seen.add(key);
    terms.push(t);
  };
  for (const object of objects) {
    add({
      tokens: phraseTokens({ text: object }),
      concept: object,
      source: "rule",
      weight: 1,
      needsSupport: false,
    });
    for (const concept of TERM_CONCEPTS.get(object) ?? []) {
      for (const entry of CONCEPT_TERMS.get(concept) ?? []) {
        add({
          tokens: phraseTokens({ text: entry.term }),
          concept: object,
          source: entry.term === object ? "rule" : "synonym",
          weight: entry.weight ?? (entry.term === concept ? 1 : 0.9),
          needsSupport: entry.needsSupport ?? false,
        });
      }
    }
  }
  return terms;
}

export function buildRuleLexicon(options: { rule: AttributeRule }): RuleLexicon {
  const { rule } = options;
  const clauses = parseDescription({ text: rule.description });
  const patterns: LexiconPattern[] = clauses.map((c) => ({
    verbs: expandVerbs(c.verbs),
    objects: expandObjects(c.objects),
  }));
  const phrases: string[][] = [];
  const verbKeywords: string[] = [];
  const nounKeywords: LexiconTerm[] = [];
  for (const keyword of rule.keywords ?? []) {
    const words = phraseTokens({ text: keyword });
    if (words.length > 1) phrases.push(words);
    else if (words.length === 1) {
      const raw = keyword.trim().toLowerCase();
      if (isKnownVerb(raw)) verbKeywords.push(verbLemma(raw));
      else
        nounKeywords.push({
          tokens: words,
          concept: words[0]!,
          source: "keyword",
          weight: 1,
          needsSupport: false,
        });
    }
  }
  if (verbKeywords.length > 0) {
    // A verb keyword widens every pattern; a rule with no pattern gets a verb-only one.
    if (patterns.length === 0) patterns.push({ verbs: new Map(), objects: [] });
    for (const p of patterns)
      for (const [k, v] of expandVerbs(verbKeywords)) if (!p.verbs.has(k)) p.verbs.set(k, v);
  }
  if (nounKeywords.length > 0) {
    const verbs = new Map<string, string>();
    for (const p of patterns) for (const [k, v] of p.verbs) verbs.set(k, v);
    patterns.push({ verbs, objects: nounKeywords });
  }
  return {
    rule,
    patterns,
    phrases,
    excludes: (rule.exclude ?? []).map((text) => phraseTokens({ text })).filter((p) => p.length > 0),
  };
}

/** Keys under which the vocabulary files compounds and contexts for a term: the term, its concepts, "*". */
export function termKeys(options: { term: LexiconTerm }): string[] {
  const text = options.term.tokens.join(" ");
  const keys = [
    text,
    ...(TERM_CONCEPTS.get(text) ?? []),
    options.term.concept,
    ...(TERM_CONCEPTS.get(options.term.concept) ?? []),
    "*",
  ];
  return [...new Set(keys)];
}

/** Every word the lexicons know (for telling names from category words). */
export function lexiconWords(options: { lexicons: RuleLexicon[] }): Set<string> {
  const words = new Set<string>([...STOPWORDS, ...VERB_WORDS, ...KNOWN_NOUNS.values()]);
  for (const l of options.lexicons) {
    for (const p of l.patterns) {
      for (const v of p.verbs.keys()) words.add(v);
      for (const o of p.objects) for (const t of o.tokens) words.add(t);
    }
  }
  return words;
}

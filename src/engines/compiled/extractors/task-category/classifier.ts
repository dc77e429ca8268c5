/**
 * Task text -> the action categories of attribute rules it falls under, deterministically, from a
 * lexicon built out of the rules' own words (lexicon.ts) and a general vocabulary (vocabulary.ts).
 *
 * Scoring, per rule (see types.ts for what the strengths mean):
 * - strong (1.0): a rule verb (or one of its group, or a noun naming it: "rental") at most 6 words before
 *   a rule object in the same sentence (15 when the object follows "to"/"in"/"into": "add <product> to
 *   my cart"), or a naming noun right after it ("car rental"); a multi-word
 *   keyword; or the verb of a rule whose action has no object ("Purchase"), unless that verb's object
 *   is another rule's category ("buy a car" is about cars, not shopping in general);
 * - medium (0.6): a rule object that is what the task is about, with no rule verb; an ambiguous word
 *   ("room", "track") only counts here when a task noun follows it ("plane tickets");
 * - weak (0.2), not applied: a compound ("car seat"), a place ("near the hotel"), a topic ("a book about
 *   flights"), a quoted title, a capitalised plural after a name ("Steve Jobs"), a negated mention, a
 *   rule `exclude` phrase, or an ambiguous word with nothing to support it.
 * Synonyms score 0.9 of the rule's own word, brand names 0.8. A task may fall under several rules.
 */
import { z } from "zod";
import { type AttributeRule, AttributeRuleSchema } from "../../../../core/policy.js";
import { parseWith } from "../../../../core/validate.js";
import { nounLemmas, verbLemmas } from "./lemmatize.js";
import {
  buildRuleLexicon,
  type LexiconTerm,
  lexiconWords,
  phraseTokens,
  type RuleLexicon,
  termKeys,
} from "./lexicon.js";
import { type Token, tokenize } from "./tokenize.js";
import type { CategoryClassifier, CategoryMatch, ClassifyResult, Confidence, Strength } from "./types.js";
import {
  CONCEPT_VERBS,
  LOCATIVES,
  NEGATORS,
  NOMINALIZATIONS,
  NON_HEAD_FOLLOWERS,
  NON_HEAD_PRECEDERS,
  TASK_NOUNS,
  TOPIC_CARRIERS,
  TOPIC_PREPOSITIONS,
  VERB_OPENERS,
} from "./vocabulary.js";

const VERB_WINDOW = 6;
const DESTINATION_WINDOW = 15;
const DESTINATIONS = new Set(["to", "into", "in", "onto"]);
const NEGATION_WINDOW = 3;
const PLACE_WINDOW = 3;
const SCORE: Record<Strength, number> = { strong: 1, medium: 0.6, weak: 0.2 };
const RANK: Record<Strength, number> = { strong: 3, medium: 2, weak: 1 };

const LOCATIVE_PHRASES = LOCATIVES.map((p) => p.split(" "));
const phraseTable = (table: Record<string, string[]>) =>
  new Map(Object.entries(table).map(([k, list]) => [k, list.map((p) => phraseTokens({ text: p }))]));
const FOLLOWERS = phraseTable(NON_HEAD_FOLLOWERS);
const PRECEDERS = phraseTable(NON_HEAD_PRECEDERS);

/** The task as the matcher reads it: tokens with their noun and verb readings. */
interface TextView {
  text: string;
  tokens: Token[];
  nouns: string[][];
  /** Verb lemmas a token can be read as here: only in verb position, inflected, or a naming noun. */
  verbs: string[][];
  /** The verb a naming noun stands for ("rentals" -> "rent"). */
  nominal: (string | undefined)[];
  titleCase: boolean;
}

function view(text: string): TextView {
  const tokens = tokenize({ text });
  const nouns = tokens.map((t) => nounLemmas({ word: t.lower }));
  const nominal = nouns.map((forms) => forms.map((f) => NOMINALIZATIONS[f]).find((v) => v !== undefined));
  const verbs = tokens.map((t, i) => {
    const prev = tokens[i - 1];
    const inflected = t.lower.length > 4 && /(ing|ed)$/.test(t.lower);
    // A base form is a verb only where an imperative can start: "Book a hotel", "help me book",
    // "and book" — never after "a"/"the" ("the book") or a noun ("coffee shop").
    const position =
      i === 0 ||
      t.afterBreak ||
      prev === undefined ||
      prev.sentence !== t.sentence ||
      VERB_OPENERS.has(prev.lower) ||
      /ly$/.test(prev.lower);
    const forms = position || inflected ? verbLemmas({ word: t.lower }) : [];
    const n = nominal[i];
    return n && !forms.includes(n) ? [...forms, n] : forms;
  });
  // Title Case Text capitalises nearly every word after the first; names cannot be told apart there.
  const long = tokens.filter((t) => t.lower.length > 3 && !t.afterBreak);
  const titleCase = long.length >= 2 && long.filter((t) => t.capitalized).length / long.length >= 0.9;
  return { text, tokens, nouns, verbs, nominal, titleCase };
}

function phraseAt(v: TextView, start: number, phrase: string[]): boolean {
  if (start < 0 || start + phrase.length > v.tokens.length) return false;
  const sentence = v.tokens[start]!.sentence;
  return phrase.every(
    (word, k) => v.tokens[start + k]!.sentence === sentence && v.nouns[start + k]!.includes(word),
  );
}

function phraseEndingAt(v: TextView, end: number, phrase: string[]): boolean {
  return phraseAt(v, end - phrase.length, phrase);
}

function surface(v: TextView, start: number, end: number): string {
  return v.text.slice(v.tokens[start]!.start, v.tokens[end - 1]!.end);
}

function negatedAt(v: TextView, index: number): boolean {
  const sentence = v.tokens[index]!.sentence;
  for (let k = index - 1; k >= Math.max(0, index - NEGATION_WINDOW - 1); k--) {
    const t = v.tokens[k]!;
    if (t.sentence !== sentence) break;
    if (NEGATORS.has(t.lower)) return true;
  }
  return false;
}

type Quality = "head" | "excluded" | "compound" | "quoted" | "name" | "topic" | "place" | "negated";

interface Hit {
  strength: Strength;
  score: number;
  evidence: string;
  start: number;
  end: number;
  quality: Quality;
}

interface Span {
  start: number;
  end: number;
  phrase: string;
}

function exclusionSpans(v: TextView, lex: RuleLexicon): Span[] {
  const spans: Span[] = [];
  for (const phrase of lex.excludes) {
    for (let i = 0; i + phrase.length <= v.tokens.length; i++) {
      if (phraseAt(v, i, phrase))
        spans.push({ start: i, end: i + phrase.length, phrase: surface(v, i, i + phrase.length) });
    }
  }
  return spans;
}

function inSpans(spans: Span[], start: number, end: number): Span | undefined {
  return spans.find((s) => s.start < end && start < s.end);
}

/** Where a term occurrence stands: the topic of the task, or a modifier, place, name, title... */
function quality(v: TextView, term: LexiconTerm, start: number, end: number, words: Set<string>): Quality {
  const keys = termKeys({ term });
  for (const key of keys) {
    if ((FOLLOWERS.get(key) ?? []).some((p) => phraseAt(v, end, p))) return "compound";
    if ((PRECEDERS.get(key) ?? []).some((p) => phraseEndingAt(v, start, p))) return "compound";
  }
  const first = v.tokens[start]!;
  // "my car's brakes" is about brakes; "Jay's latest song" is about the song.
  if (v.tokens[end - 1]!.possessive && end < v.tokens.length) return "compound";
  if (first.quoted) return "quoted";
  const prev = v.tokens[start - 1];
  if (
    !v.titleCase &&
    end - start === 1 &&
    first.capitalized &&
    v.nouns[start]![0] !== term.tokens[0] &&
    prev !== undefined &&
    !first.afterBreak &&
    prev.sentence === first.sentence &&
    prev.capitalized &&
    !words.has(prev.lower)
  ) {
    // A capitalised plural after a capitalised unknown word is a surname or a title ("Steve Jobs").
    return "name";
  }
  const sentence = first.sentence;
  for (let q = start - 1; q >= Math.max(0, start - PLACE_WINDOW - 1); q--) {
    if (v.tokens[q]!.sentence !== sentence) break;
    if (LOCATIVE_PHRASES.some((p) => phraseEndingAt(v, q + 1, p))) return "place";
    if (TOPIC_PREPOSITIONS.has(v.tokens[q]!.lower)) {
      for (let r = q - 1; r >= Math.max(0, q - 3); r--) {
        if (v.tokens[r]!.sentence !== sentence) break;
        if (v.nouns[r]!.some((n) => TOPIC_CARRIERS.has(n))) return "topic";
      }
    }
  }
  if (negatedAt(v, start)) return "negated";
  return "head";
}

const QUALITY_WORDS: Record<Exclude<Quality, "head">, string> = {
  excluded: "excluded by the rule",
  compound: "part of a compound naming something else",
  quoted: "inside a quoted title",
  name: "part of a name",
  topic: "the topic of other content",
  place: "a place, not the object",
  negated: "negated",
};

function describeTerm(v: TextView, term: LexiconTerm, start: number, end: number): string {
  const said = surface(v, start, end);
  const base = `object "${said}"`;
  return term.source === "synonym" ? `${base} (~${term.concept})` : base;
}

/** The rule verb that governs an object occurrence, if any: before it in the window, or a naming noun right after. */
function governingVerb(
  v: TextView,
  verbs: Map<string, string>,
  start: number,
  end: number,
  spans: Span[],
): { index: number; negated: boolean } | undefined {
  const sentence = v.tokens[start]!.sentence;
  // "Add <a long product name> to my cart": an object after "to"/"in"/"into" is the destination of
  // the verb however long its own object is, so the verb may stand further back.
  let destination = false;
  for (let q = start - 1; q >= Math.max(0, start - 3); q--) {
    if (DESTINATIONS.has(v.tokens[q]!.lower) && v.tokens[q]!.sentence === sentence) destination = true;
  }
  const window = destination ? DESTINATION_WINDOW : VERB_WINDOW;
  for (let k = start - 1; k >= Math.max(0, start - window); k--) {
    if (v.tokens[k]!.sentence !== sentence) break;
    if (inSpans(spans, k, k + 1)) continue;
    if (v.verbs[k]!.some((lemma) => verbs.has(lemma))) return { index: k, negated: negatedAt(v, k) };
  }
  for (let k = end; k <= Math.min(v.tokens.length - 1, end + 1); k++) {
    if (v.tokens[k]!.sentence !== sentence) break;
    const n = v.nominal[k];
    if (n !== undefined && verbs.has(n)) return { index: k, negated: negatedAt(v, start) };
  }
  return undefined;
}

/** A verb that goes with the term's concept ("watch" an episode) shortly before it, if any. */
function conceptVerb(v: TextView, term: LexiconTerm, start: number): number | undefined {
  const verbs = new Set(termKeys({ term }).flatMap((k) => CONCEPT_VERBS[k] ?? []));
  if (verbs.size === 0) return undefined;
  const sentence = v.tokens[start]!.sentence;
  for (let k = start - 1; k >= Math.max(0, start - VERB_WINDOW); k--) {
    if (v.tokens[k]!.sentence !== sentence) break;
    if (v.verbs[k]!.some((lemma) => verbs.has(lemma))) return k;
  }
  return undefined;
}

/** Where any object term of the rule starts: a word right before one of these modifies it ("hotel jobs"). */
function termStarts(v: TextView, lex: RuleLexicon): Set<number> {
  const starts = new Set<number>();
  for (const pattern of lex.patterns) {
    for (const term of pattern.objects) {
      for (let i = 0; i + term.tokens.length <= v.tokens.length; i++)
        if (phraseAt(v, i, term.tokens)) starts.add(i);
    }
  }
  return starts;
}

function objectHits(
  v: TextView,
  lex: RuleLexicon,
  spans: Span[],
  words: Set<string>,
  foreignStarts: Set<number>,
): Hit[] {
  const hits: Hit[] = [];
  for (const pattern of lex.patterns) {
    for (const term of pattern.objects) {
      for (let i = 0; i + term.tokens.length <= v.tokens.length; i++) {
        if (!phraseAt(v, i, term.tokens)) continue;
        const end = i + term.tokens.length;
        const said = describeTerm(v, term, i, end);
        const excluded = inSpans(spans, i, end);
        if (excluded) {
          hits.push(
            weakHit(i, end, "excluded", `${said} in "${excluded.phrase}": ${QUALITY_WORDS.excluded}`),
          );
          continue;
        }
        // In a noun-noun compound the last noun is the head: "hotel jobs" are jobs.
        const q =
          foreignStarts.has(end) && v.tokens[end]!.sentence === v.tokens[i]!.sentence
            ? "compound"
            : quality(v, term, i, end, words);
        const verb = governingVerb(v, pattern.verbs, i, end, spans);
        const verbText = verb ? `verb "${surface(v, verb.index, verb.index + 1)}"` : "";
        if (q === "negated" || verb?.negated) {
          hits.push(weakHit(i, end, "negated", `${verb ? `${verbText} + ` : ""}${said}: negated`));
        } else if (q !== "head" && !(q === "name" && verb)) {
          hits.push(weakHit(i, end, q, `${said}: ${QUALITY_WORDS[q]}`));
        } else if (verb) {
          hits.push({
            strength: "strong",
            score: term.weight,
            evidence: `${verbText} + ${said}`,
            start: i,
            end,
            quality: "head",
          });
        } else if (!term.needsSupport) {
          hits.push({
            strength: "medium",
            score: SCORE.medium * term.weight,
            evidence: said,
            start: i,
            end,
            quality: "head",
          });
        } else if (
          v.nouns[end]?.some((n) => TASK_NOUNS.has(n)) &&
          v.tokens[end]!.sentence === v.tokens[i]!.sentence
        ) {
          hits.push({
            strength: "medium",
            score: SCORE.medium * term.weight,
            evidence: `${said} before "${v.tokens[end]!.raw}"`,
            start: i,
            end,
            quality: "head",
          });
        } else {
          const k = conceptVerb(v, term, i);
          if (k !== undefined) {
            hits.push({
              strength: "medium",
              score: SCORE.medium * term.weight,
              evidence: `${said} with "${v.tokens[k]!.raw}"`,
              start: i,
              end,
              quality: "head",
            });
          } else hits.push(weakHit(i, end, "head", `${said}: ambiguous without the rule's verb`));
        }
      }
    }
  }
  for (const phrase of lex.phrases) {
    for (let i = 0; i + phrase.length <= v.tokens.length; i++) {
      if (!phraseAt(v, i, phrase)) continue;
      const end = i + phrase.length;
      const said = `keyword "${surface(v, i, end)}"`;
      if (inSpans(spans, i, end))
        hits.push(weakHit(i, end, "excluded", `${said}: ${QUALITY_WORDS.excluded}`));
      else if (negatedAt(v, i)) hits.push(weakHit(i, end, "negated", `${said}: negated`));
      else hits.push({ strength: "strong", score: 1, evidence: said, start: i, end, quality: "head" });
    }
  }
  return hits;
}

function weakHit(start: number, end: number, q: Quality, evidence: string): Hit {
  return { strength: "weak", score: SCORE.weak, evidence, start, end, quality: q };
}

/** Hits of verb-only patterns ("Purchase"), given every rule's object hits for attribution. */
function verbOnlyHits(
  v: TextView,
  lex: RuleLexicon,
  spans: Span[],
  others: { category: string; hits: Hit[] }[],
): Hit[] {
  const hits: Hit[] = [];
  for (const pattern of lex.patterns) {
    if (pattern.objects.length > 0) continue;
    for (let k = 0; k < v.tokens.length; k++) {
      const lemma = v.verbs[k]!.find((l) => pattern.verbs.has(l));
      if (lemma === undefined) continue;
      const said = `action "${v.tokens[k]!.raw}"`;
      if (inSpans(spans, k, k + 1)) {
        hits.push(weakHit(k, k + 1, "excluded", `${said}: ${QUALITY_WORDS.excluded}`));
        continue;
      }
      const followers = [...(FOLLOWERS.get(v.tokens[k]!.lower) ?? []), ...(FOLLOWERS.get(lemma) ?? [])];
      if (followers.some((p) => phraseAt(v, k + 1, p))) {
        hits.push(weakHit(k, k + 1, "compound", `${said}: ${QUALITY_WORDS.compound}`));
        continue;
      }
      if (negatedAt(v, k)) {
        hits.push(weakHit(k, k + 1, "negated", `${said}: negated`));
        continue;
      }
      const sentence = v.tokens[k]!.sentence;
      const owner = others.find((o) =>
        o.hits.some(
          (h) =>
            h.quality === "head" &&
            RANK[h.strength] >= RANK.medium &&
            h.start > k &&
            h.start - k <= VERB_WINDOW &&
            v.tokens[h.start]!.sentence === sentence,
        ),
      );
      if (owner) {
        hits.push(weakHit(k, k + 1, "head", `${said}: its object belongs to "${owner.category}"`));
        continue;
      }
      hits.push({ strength: "strong", score: 1, evidence: said, start: k, end: k + 1, quality: "head" });
    }
  }
  return hits;
}

function summarize(lex: RuleLexicon, hits: Hit[]): CategoryMatch | undefined {
  if (hits.length === 0) return undefined;
  const best = hits.reduce((a, b) =>
    b.score > a.score || (b.score === a.score && RANK[b.strength] > RANK[a.strength]) ? b : a,
  );
  const ordered = [...hits].sort((a, b) => b.score - a.score || a.start - b.start);
  const evidence = [...new Set(ordered.map((h) => h.evidence))].slice(0, 6);
  return {
    ruleId: lex.rule.id,
    category: lex.rule.category,
    score: Math.round(best.score * 1000) / 1000,
    strength: best.strength,
    evidence,
  };
}

const RulesSchema = z.array(AttributeRuleSchema);
/**
 * A task is a sentence or a paragraph; classifying costs microseconds per character, so a longer text
 * (an attacker's megabyte) is left unclassified — low confidence, which fails closed.
 */
export const MAX_TASK_LENGTH = 32 * 1024;

function emptyResult(confidence: Confidence, reason: string): ClassifyResult {
  return { categories: [], nearMisses: [], confidence, reason };
}

/**
 * A classifier for the given attribute rules. Rules are validated (a malformed rule is a WardenError
 * naming the field); classifying never throws.
 */
export function createCategoryClassifier(options: {
  rules: readonly z.input<typeof AttributeRuleSchema>[];
}): CategoryClassifier {
  const rules: AttributeRule[] = parseWith({
    schema: RulesSchema,
    value: options.rules,
    what: "attribute rules",
    path: "rules",
  });
  const lexicons = rules.map((rule) => buildRuleLexicon({ rule }));
  const words = lexiconWords({ lexicons });

  return {
    classify({ text }: { text: string }): ClassifyResult {
      if (typeof text !== "string" || text.trim() === "")
        return emptyResult("none", "no task text to classify");
      if (text.length > MAX_TASK_LENGTH) {
        return emptyResult(
          "low",
          `the task text is longer than ${MAX_TASK_LENGTH} characters, so it is not classified`,
        );
      }
      const v = view(text);
      if (v.tokens.length === 0) return emptyResult("none", "the task text has no words");
      const spans = lexicons.map((lex) => exclusionSpans(v, lex));
      const starts = lexicons.map((lex) => termStarts(v, lex));
      const objects = lexicons.map((lex, i) => {
        const foreign = new Set(starts.flatMap((set, j) => (j === i ? [] : [...set])));
        return { category: lex.rule.category, hits: objectHits(v, lex, spans[i]!, words, foreign) };
      });
      const all = lexicons.map((lex, i) => {
        const others = objects.filter((_, j) => j !== i);
        return [...objects[i]!.hits, ...verbOnlyHits(v, lex, spans[i]!, others)];
      });

      const categories: CategoryMatch[] = [];
      const nearMisses: CategoryMatch[] = [];
      let doubtful = false;
      lexicons.forEach((lex, i) => {
        const hits = all[i]!;
        const applied = summarize(
          lex,
          hits.filter((h) => h.strength !== "weak"),
        );
        if (applied) categories.push(applied);
        else {
          const miss = summarize(lex, hits);
          if (miss) nearMisses.push(miss);
        }
        if (hits.some((h) => h.quality === "negated" || h.quality === "name")) doubtful = true;
      });
      const byScore = (a: CategoryMatch, b: CategoryMatch) => b.score - a.score;
      categories.sort(byScore);
      nearMisses.sort(byScore);

      const top = categories[0];
      let confidence: Confidence;
      if (doubtful && top?.strength !== "strong") confidence = "low";
      else if (top) confidence = top.strength === "strong" ? "high" : "medium";
      else confidence = nearMisses.length > 0 ? "medium" : "high";

      const reason = top
        ? categories.map((c) => `${c.category} (${c.strength}: ${c.evidence[0]})`).join("; ")
        : nearMisses.length > 0
          ? `Other: only near misses (${nearMisses.map((m) => m.evidence[0]).join("; ")})`
          : "Other: no rule's action or object in the task";
      return { categories, nearMisses, confidence, reason };
    },
  };
}

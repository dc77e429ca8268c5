/**
 * A small English lemmatiser for matching task words against a lexicon. It proposes candidate lemmas
 * (plural, -ing, -ed and -s forms, and the irregular forms web tasks use) instead of guessing one, so
 * the matcher can pick the candidate its vocabulary knows; `lemmatize` picks one when a single answer
 * is wanted.
 */
import { ownTable } from "../../../../util/own-table.js";

const IRREGULAR_NOUNS: Readonly<Record<string, string>> = ownTable({
  people: "person",
  children: "child",
  men: "man",
  women: "woman",
  feet: "foot",
  teeth: "tooth",
  mice: "mouse",
  geese: "goose",
  lives: "life",
  knives: "knife",
  wives: "wife",
  leaves: "leaf",
  halves: "half",
  shelves: "shelf",
  wolves: "wolf",
  data: "datum",
  buses: "bus",
  gases: "gas",
  criteria: "criterion",
});

/** Words ending in -s that are not plurals. */
const NOT_PLURAL = new Set([
  "series",
  "news",
  "species",
  "bus",
  "gas",
  "plus",
  "bonus",
  "campus",
  "status",
  "this",
  "is",
  "was",
  "has",
  "yes",
  "us",
  "always",
  "perhaps",
  "across",
  "less",
  "business",
  "address",
  "class",
  "glass",
  "pass",
  "dress",
  "access",
  "express",
  "christmas",
  "lens",
  "kids",
  "overseas",
  "miss",
  "chess",
  "tennis",
  "analysis",
  "crisis",
  "basis",
  "atlas",
  "canvas",
  "jeans",
  "pants",
]);

/** Nouns ending in -ie, whose plural -ies must not become -y. */
const IE_NOUNS = new Set([
  "movie",
  "cookie",
  "rookie",
  "zombie",
  "hoodie",
  "selfie",
  "pie",
  "tie",
  "calorie",
  "prairie",
  "smoothie",
  "brownie",
  "goalie",
  "veggie",
  "birdie",
  "freebie",
  "foodie",
  "indie",
  "newbie",
  "genie",
  "beanie",
  "onesie",
  "auntie",
  "sweetie",
]);

const IRREGULAR_VERBS: Readonly<Record<string, string>> = ownTable({
  bought: "buy",
  found: "find",
  flew: "fly",
  flown: "fly",
  flies: "fly",
  got: "get",
  gotten: "get",
  saw: "see",
  seen: "see",
  went: "go",
  gone: "go",
  made: "make",
  took: "take",
  taken: "take",
  paid: "pay",
  sold: "sell",
  shown: "show",
  chose: "choose",
  chosen: "choose",
  brought: "bring",
  drove: "drive",
  driven: "drive",
  rode: "ride",
  ridden: "ride",
  left: "leave",
  sent: "send",
  spent: "spend",
  held: "hold",
  kept: "keep",
  lent: "lend",
  sought: "seek",
  ran: "run",
  began: "begin",
  begun: "begin",
  did: "do",
  done: "do",
  was: "be",
  were: "be",
  been: "be",
  had: "have",
  thought: "think",
  told: "tell",
  wrote: "write",
  written: "write",
  ate: "eat",
  eaten: "eat",
  gave: "give",
  given: "give",
  knew: "know",
  known: "know",
  stood: "stand",
  met: "meet",
  led: "lead",
  watched: "watch",
  listened: "listen",
  hired: "hire",
  leased: "lease",
});

const VOWELS = new Set(["a", "e", "i", "o", "u"]);
const isConsonant = (ch: string | undefined) => ch !== undefined && /[a-z]/.test(ch) && !VOWELS.has(ch);

function undouble(stem: string): string | undefined {
  const a = stem.at(-1);
  const b = stem.at(-2);
  // "shopp" -> "shop", "planning" -> "plan"; but "pass", "call", "buzz" keep their double letters.
  if (a !== undefined && a === b && isConsonant(a) && !["s", "l", "z", "f"].includes(a))
    return stem.slice(0, -1);
  return undefined;
}

function push(list: string[], value: string | undefined): void {
  if (value !== undefined && value.length >= 2 && !list.includes(value)) list.push(value);
}

/** Noun lemma candidates, the word itself first: "movies" -> ["movies", "movy", "movie"]. */
export function nounLemmas(options: { word: string }): string[] {
  const w = options.word.toLowerCase();
  const out: string[] = [w];
  const irregular = IRREGULAR_NOUNS[w];
  if (irregular) {
    push(out, irregular);
    return out;
  }
  if (w.length <= 3 || NOT_PLURAL.has(w) || !w.endsWith("s") || /(ss|us|is)$/.test(w)) return out;
  if (w.endsWith("ies")) {
    push(out, `${w.slice(0, -3)}y`);
    push(out, w.slice(0, -1));
  } else if (w.endsWith("ves")) {
    push(out, `${w.slice(0, -3)}f`);
    push(out, `${w.slice(0, -3)}fe`);
    push(out, w.slice(0, -1));
  } else if (/(ches|shes|xes|ses|zes|oes)$/.test(w)) {
    push(out, w.slice(0, -2));
    push(out, w.slice(0, -1));
  } else {
    push(out, w.slice(0, -1));
  }
  return out;
}

/** Verb lemma candidates, the word itself first: "shopping" -> ["shopping", "shopp", "shoppe", "shop"]. */
export function verbLemmas(options: { word: string }): string[] {
  const w = options.word.toLowerCase();
  const out: string[] = [w];
  const irregular = IRREGULAR_VERBS[w];
  if (irregular) push(out, irregular);
  if (w.length > 4 && w.endsWith("ing")) {
    const stem = w.slice(0, -3);
    push(out, stem);
    push(out, `${stem}e`);
    push(out, undouble(stem));
    if (stem.endsWith("y")) push(out, `${stem.slice(0, -1)}ie`);
  } else if (w.length > 3 && w.endsWith("ied")) {
    push(out, `${w.slice(0, -3)}y`);
  } else if (w.length > 3 && w.endsWith("ed")) {
    const stem = w.slice(0, -2);
    push(out, stem);
    push(out, w.slice(0, -1));
    push(out, undouble(stem));
  } else if (w.length > 3 && w.endsWith("s") && !/(ss|us|is)$/.test(w)) {
    for (const noun of nounLemmas({ word: w }).slice(1)) push(out, noun);
  }
  return out;
}

/**
 * One lemma: the first candidate `known` contains, else a best guess by the usual spelling rules
 * ("movies" -> "movie", "booking" -> "book", "applied" -> "apply", "making" -> "make").
 */
export function lemmatize(options: {
  word: string;
  pos: "noun" | "verb";
  known?: ReadonlySet<string>;
}): string {
  const candidates = options.pos === "noun" ? nounLemmas(options) : verbLemmas(options);
  if (options.known) {
    const hit = candidates.find((c) => options.known!.has(c));
    if (hit) return hit;
  }
  const w = options.word.toLowerCase();
  if (options.pos === "noun") {
    if (candidates.length === 1) return w;
    if (IRREGULAR_NOUNS[w]) return IRREGULAR_NOUNS[w];
    // "cities" -> "city", but a few nouns end in -ie themselves ("movies" -> "movie").
    if (w.endsWith("ies")) return IE_NOUNS.has(w.slice(0, -1)) ? w.slice(0, -1) : `${w.slice(0, -3)}y`;
    if (w.endsWith("ves")) return `${w.slice(0, -3)}f`;
    if (/(ches|shes|xes|sses|zes)$/.test(w)) return w.slice(0, -2);
    return w.slice(0, -1);
  }
  if (IRREGULAR_VERBS[w]) return IRREGULAR_VERBS[w];
  if (w.length > 4 && w.endsWith("ing")) return verbStem(w.slice(0, -3));
  if (w.length > 3 && w.endsWith("ied")) return `${w.slice(0, -3)}y`;
  if (w.length > 3 && w.endsWith("ed")) return verbStem(w.slice(0, -2));
  if (w.length > 3 && w.endsWith("s") && candidates.length > 1) return lemmatize({ word: w, pos: "noun" });
  return w;
}

/** The base form of a stem left after -ing/-ed: undo a doubled consonant or restore a silent e. */
function verbStem(stem: string): string {
  const single = undouble(stem);
  if (single) return single;
  const [a, b, c] = [stem.at(-3), stem.at(-2), stem.at(-1)];
  // "mak" -> "make", "reserv" -> "reserve", "purchas" -> "purchase"; "book", "rent", "visit" stay.
  if (
    /[vcz]$|[aeio]s$/.test(stem) ||
    (stem.length <= 4 && isConsonant(a) && !isConsonant(b) && isConsonant(c) && !/[wxy]/.test(c ?? ""))
  ) {
    return `${stem}e`;
  }
  return stem;
}

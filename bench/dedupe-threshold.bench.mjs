#!/usr/bin/env node
// The near-duplicate threshold, measured (run `npx tsc -b` first; imports the built package):
// generated pairs of excerpts (Zipf draws over Debian's English word list, shape-vocabulary.mjs),
// as the store sees them (plain text, cut at 500 characters), of two kinds:
//  - copies of one story: a republication with a footer or a header line, a few words edited,
//    the title prefixed with the author's name, case and punctuation changed, a summary that is
//    the full text cut shorter;
//  - different stories: another text under the same title, a templated post (the same opening
//    sentence, then its own text), another text on the same topic words.
// For each similarity threshold t it prints the share of pairs the store merges: a band shared
// (the index look-up finds the pair) and an estimated similarity of at least t. Copies merged
// are found; different stories merged are wrong merges.
import { parseArgs } from "node:util";
import {
  minSimilarity,
  minWords,
  signatureSize,
  similarity,
  textFingerprint,
} from "../packages/feed-service/dist/dedupe/text-fingerprint.js";
import { SeededRandom, vocabulary, zipfWord } from "./shape-vocabulary.mjs";

const { values } = parseArgs({ options: { pairs: { type: "string" }, seed: { type: "string" } } });
const PAIRS = Number(values.pairs ?? 5000);
const rng = new SeededRandom(Number(values.seed ?? 33));
const en = vocabulary("en");
const excerptChars = 500;

const words = (n) => Array.from({ length: n }, () => zipfWord(rng, en));
const sentence = (n) => {
  const w = words(n);
  w[0] = w[0][0].toUpperCase() + w[0].slice(1);
  return `${w.join(" ")}.`;
};
const text = (n) => {
  const parts = [];
  let left = n;
  while (left > 0) {
    const k = Math.min(left, rng.int(6, 18));
    parts.push(sentence(k));
    left -= k;
  }
  return parts.join(" ");
};
const cut = (t, n = excerptChars) => (t.length <= n ? t : `${t.slice(0, n - 1)}…`);
const editWords = (t, k) => {
  const w = t.split(" ");
  for (let i = 0; i < k; i++) w[rng.int(0, w.length - 1)] = zipfWord(rng, en);
  return w.join(" ");
};

const copyKinds = {
  footer: (title, body) => [title, `${body} The post ${title} appeared first on ${zipfWord(rng, en)}.`],
  header: (title, body) => [title, `Originally published at ${zipfWord(rng, en)}.example. ${body}`],
  "2 words edited": (title, body) => [title, editWords(body, 2)],
  "author prefix": (title, body) => [`${zipfWord(rng, en)}: ${title}`, body],
  "case and punctuation": (title, body) => [title.toUpperCase(), body.replace(/\./g, "!").toLowerCase()],
  "shorter summary": (title, body) => [title, cut(body, rng.int(260, 420))],
};
const differentKinds = {
  "same title": (title) => [title, text(rng.int(60, 120))],
  templated: (title, body) => [title, `${body.split(". ")[0]}. ${text(rng.int(60, 120))}`],
  "same topic words": (title, body) => {
    const topic = body.split(" ").slice(0, 12);
    return [title, text(80).replace(/\b(\w+)\b/g, (w) => (rng.chance(0.2) ? rng.pick(topic) : w))];
  },
};

function measure(kinds) {
  const out = {};
  for (const [kind, make] of Object.entries(kinds)) {
    const pairs = [];
    let unprinted = 0;
    for (let i = 0; i < PAIRS; i++) {
      const title = sentence(rng.int(3, 9)).slice(0, -1);
      const body = text(rng.int(60, 160));
      const [t2, b2] = make(title, body);
      const a = textFingerprint(title, cut(body));
      const b = textFingerprint(t2, cut(b2));
      if (!a || !b) unprinted++;
      else pairs.push({ sim: similarity(a.hex, b.hex), banded: a.bands.some((k) => b.bands.includes(k)) });
    }
    out[kind] = { pairs, unprinted };
  }
  return out;
}

const merged = (pairs, t) => pairs.filter((p) => p.banded && p.sim >= t).length / pairs.length;
const pct = (x) => `${(100 * x).toFixed(2).padStart(6)}%`;
const copies = measure(copyKinds);
const different = measure(differentKinds);
console.log(
  `# near-duplicate threshold: ${PAIRS} pairs per kind, minWords ${minWords}, ${signatureSize} minimums; the store uses t=${minSimilarity}`,
);
console.log(
  "# share of pairs merged (a band shared and similarity >= t): copies found, different stories merged wrongly",
);
const all = { ...copies, ...different };
console.log(["t", ...Object.keys(all)].join(" | "));
for (let k = 2; k <= 14; k++) {
  const t = k / signatureSize;
  console.log([t.toFixed(3), ...Object.values(all).map((c) => pct(merged(c.pairs, t)))].join(" | "));
}
for (const [kind, c] of Object.entries(all)) {
  const sorted = c.pairs.map((p) => p.sim).sort((a, b) => a - b);
  const q = (p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
  const banded = c.pairs.filter((p) => p.banded).length / c.pairs.length;
  console.log(
    `${kind}: similarity median ${q(0.5)}, p5 ${q(0.05)}, p95 ${q(0.95)}, max ${sorted[sorted.length - 1]}; a band shared ${pct(banded)}; without print ${c.unprinted}`,
  );
}

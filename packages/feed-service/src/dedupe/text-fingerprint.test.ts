import assert from "node:assert/strict";
import { test } from "node:test";
import {
  bandCount,
  minSimilarity,
  minWords,
  normalisedWords,
  sameText,
  similarity,
  textFingerprint,
} from "./text-fingerprint.js";

const story =
  "The city council voted on Tuesday to extend the tram line across the river, after two years of " +
  "public hearings in which residents of the northern districts argued that the buses could no longer " +
  "carry the commuters who travel to the hospital and the university every morning. Work starts in spring.";

const other =
  "Our weekly newsletter collects the links we read this week: a long essay on the history of " +
  "printing presses, three recipes for autumn soups, a guide to repairing bicycles at home and an " +
  "interview with the librarian who catalogued the town's oldest maps before the archive moved.";

function print(title: string, excerpt: string) {
  const p = textFingerprint(title, excerpt);
  assert.ok(p, "a long enough excerpt has a print");
  return p;
}

/** What the store checks: a band shared (the index finds the pair) and the similarity reached. */
function merged(a: ReturnType<typeof print>, b: ReturnType<typeof print>): boolean {
  return a.bands.some((k) => b.bands.includes(k)) && sameText(a.hex, b.hex);
}

test("words are normalised: case, punctuation, compatibility forms; unspaced scripts per character", () => {
  assert.deepEqual(normalisedWords("Hello, WORLD! ﬁne"), ["hello", "world", "fine"]);
  assert.deepEqual(normalisedWords("東京 tram"), ["東", "京", "tram"]);
});

test("a republished copy (case, punctuation, a footer, a word edited, the author before the title) merges", () => {
  const a = print("Tram line extended", story);
  assert.equal(similarity(a.hex, a.hex), 1);
  assert.ok(merged(a, print("TRAM LINE EXTENDED", story.toUpperCase().replace(/\./g, "!"))));
  assert.ok(merged(a, print("Tram line extended", `${story} The post appeared first on City News.`)));
  assert.ok(merged(a, print("Tram line extended", story.replace("Tuesday", "Monday"))));
  assert.ok(merged(a, print("Anna Berg: Tram line extended", story)));
});

test("two different posts under the same title do not merge", () => {
  const a = print("Weekly notes", story);
  const b = print("Weekly notes", other);
  assert.ok(similarity(a.hex, b.hex) < minSimilarity);
  assert.equal(merged(a, b), false);
});

test("short posts of a few words have no print, so they never merge on text", () => {
  assert.equal(textFingerprint("Status", "Back online after the outage."), null);
  const words = [...new Set(normalisedWords(story))];
  assert.equal(textFingerprint("t", words.slice(0, minWords - 1).join(" ")), null);
  assert.ok(textFingerprint("t", words.slice(0, minWords).join(" ")));
  assert.equal(textFingerprint("t", "text ".repeat(80)), null, "many words, few of them distinct");
});

test("a print has one integer band key per band, the same for the same text", () => {
  const a = print("Tram", story);
  assert.equal(a.bands.length, bandCount);
  for (const k of a.bands) assert.ok(Number.isInteger(k) && k >= -(2 ** 31) && k < 2 ** 31);
  assert.deepEqual(print("Tram", story).bands, a.bands);
});

/**
 * Every backend must find the same posts for the same query (spec §4: "the same on every
 * backend"). This evaluates hundreds of random queries two ways over the demo corpus — through the
 * SQLite store (FTS5) and by a plain JavaScript reading of the parsed query (each term's full
 * token phrase) over `analyzeText` of each post's indexed text — and requires identical result
 * sets. The corpus holds unspaced Japanese and Chinese, so the shortened phrases the stores search
 * for (search/term-phrase.ts) are checked against the full ones.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import { loadDemoData } from "../../demo/load-demo-data.js";
import { SeededRandom } from "../../demo/seeded-random.js";
import { parseSearchQuery } from "../../search/parse-search-query.js";
import type { SearchQuery, SearchTerm } from "../../search/search-query.js";
import { analyzeText } from "../../search/text-analyzer.js";
import { htmlToIndexText } from "../index-text.js";
import { openStore } from "../open-store.js";

const dir = mkdtempSync(join(tmpdir(), "feed-fts-agreement-"));
after(() => rmSync(dir, { recursive: true, force: true }));

type Columns = string[][];

function containsPhrase(words: readonly string[], phrase: readonly string[]): boolean {
  outer: for (let i = 0; i + phrase.length <= words.length; i++) {
    for (let j = 0; j < phrase.length; j++) if (words[i + j] !== phrase[j]) continue outer;
    return true;
  }
  return false;
}

/** A phrase matches inside one column, as in FTS5. */
function termMatches(term: SearchTerm, columns: Columns): boolean {
  return columns.some((words) => containsPhrase(words, term.words));
}

function queryMatches(query: SearchQuery, columns: Columns): boolean {
  return (
    query.clauses.length > 0 &&
    query.clauses.every((clause) => clause.some((term) => termMatches(term, columns))) &&
    !query.excluded.some((term) => termMatches(term, columns))
  );
}

function randomQuery(
  rng: SeededRandom,
  docs: ReadonlyArray<{ columns: Columns }>,
  cjkDocs: ReadonlyArray<{ title: string }>,
): string {
  const words = () => rng.pick(docs).columns[rng.int(0, 2)]!;
  const word = () => rng.pick(words()) ?? "x";
  const phrase = () => {
    const w = words();
    const i = rng.int(0, Math.max(0, w.length - 2));
    return `"${w.slice(i, i + rng.int(2, 3)).join(" ")}"`;
  };
  // 1 to 4 characters cut from a Han, kana or Hangul run of a title, anywhere in it.
  const cjk = () => {
    const runs = rng
      .pick(cjkDocs)
      .title.match(/[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}ー]+/gu) ?? ["x"];
    const chars = [...rng.pick(runs)];
    const at = rng.int(0, chars.length - 1);
    return chars.slice(at, at + rng.int(1, 4)).join("");
  };
  const term = () => (rng.chance(0.25) ? cjk() : rng.chance(0.25) ? phrase() : word());
  const parts: string[] = [];
  const n = rng.int(1, 3);
  for (let i = 0; i < n; i++) parts.push(rng.chance(0.3) ? `${term()} OR ${term()}` : term());
  if (rng.chance(0.3)) parts.push(`-${term()}`);
  return parts.join(" ");
}

describe("search agreement", () => {
  it("FTS5 finds exactly the posts a word-by-word reading of the query finds", async () => {
    const path = join(dir, "agreement.db");
    const store = await openStore(path);
    await loadDemoData(store, { posts: 1200, now: Date.UTC(2026, 0, 10), seed: 3 });
    const db = new Database(path, { readonly: true });
    const rows = db
      .prepare(
        "SELECT p.id, p.title, p.excerpt, p.content, f.name FROM posts p JOIN feeds f ON f.id = p.feed_id",
      )
      .all() as Array<{ id: number; title: string; excerpt: string; content: string; name: string }>;
    db.close();
    const docs = rows.map((r) => ({
      id: r.id,
      title: r.title,
      columns: [
        analyzeText(r.title),
        analyzeText(`${r.excerpt} ${htmlToIndexText(r.content)}`),
        analyzeText(r.name),
      ],
    }));
    const cjkDocs = docs.filter((d) => /[\p{sc=Han}\p{sc=Hangul}]/u.test(d.title));
    assert.ok(cjkDocs.length > 50, "the demo corpus has Chinese, Japanese and Korean titles");
    const rng = new SeededRandom(11);
    let withHits = 0;
    try {
      for (let q = 0; q < 300; q++) {
        const text = randomQuery(rng, docs, cjkDocs);
        const query = parseSearchQuery(text);
        const expected = docs.filter((d) => queryMatches(query, d.columns)).map((d) => d.id);
        const found = await store.searchPosts({
          limit: 5000,
          offset: 0,
          languageIds: null,
          query,
          sort: "date",
        });
        assert.deepEqual(
          found.map((p) => p.postId).sort((a, b) => a - b),
          expected.sort((a, b) => a - b),
          text,
        );
        if (expected.length > 0) withHits++;
      }
    } finally {
      await store.close();
    }
    assert.ok(withHits > 100, `many random queries find something (${withHits} of 300)`);
  });
});

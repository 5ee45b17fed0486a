// The worst cases of the search operators (spec §4: "a prefix of 3 common letters, `title:the`,
// `feed:` of the largest feed, `after:` a day ten years ago, all combined with common words"),
// read from each corpus itself, never from a list written here: its commonest 3-letter prefix
// among its commonest terms, `title:` of its commonest title word, `feed:` of the word of its
// largest feed's name that covers the most posts, `after:` ten years before its newest post (or
// its oldest day, when that is later), `lang:` of its smallest language; each alone and with the
// corpus's commonest words, in the three orders, at limit 1000 and deep offsets; and that `feed:`
// with the largest language its feeds write least of (none, mostly): an empty or tiny result that
// a walk of the language's or the feeds' posts would read to the end; and the `feed:` word and
// language whose posts are more than the SQLite plans read whole (FEW_HITS, 2,000) and the smallest
// share of both the feeds' posts and the language's (sparsestFeedLanguage). Used by
// feed-service-latency.bench.mjs (over SOAP) and search-operators-bench.mjs (through the
// operation table, old build against new). Imports the BUILT package.
import { createRequire } from "node:module";

const requireFromService = createRequire(new URL("../packages/feed-service/package.json", import.meta.url));
const dist = new URL("../packages/feed-service/dist/", import.meta.url);
const { analyzeText } = await import(new URL("search/text-analyzer.js", dist).href);
const { parseSearchQuery } = await import(new URL("search/parse-search-query.js", dist).href);
const { planOf } = await import(new URL("store/sqlite/fts5-operators.js", dist).href);

/**
 * The posts a search with operators matches, counted on the SQLite full-text index with the
 * MATCH and date keys the SQLite plans read (a `feed:` as its name's phrase: its feeds' posts, or
 * a few more), to place its middle and last pages.
 */
function hitsOf(db, text) {
  const parsed = parseSearchQuery(text);
  // The plan reads a feed filter's ids only for the posts' own check, not for the MATCH counted.
  const filterClauses = parsed.filterClauses?.map((clause) =>
    clause.map((atom) => (atom.kind === "feed" ? { ...atom, feedIds: [] } : atom)),
  );
  const plan = planOf({ ...parsed, filterClauses }, null);
  return db
    .prepare("SELECT count(*) FROM posts_fts WHERE posts_fts MATCH ? AND rowid BETWEEN ? AND ?")
    .pluck()
    .get(plan.narrowed, plan.keys.low, plan.keys.high);
}

const DAY = 86_400_000;
/** Scripts written without spaces: a `*` there is no prefix (spec §4), so they give no prefix case. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/u;

/**
 * The commonest 3-letter prefix of `terms` ([term, documents], commonest first): the one whose
 * terms hold the most documents together (a sum: an upper bound of the posts it matches).
 */
export function commonestPrefix(terms) {
  const byPrefix = new Map();
  for (const [term, docs] of terms) {
    const letters = Array.from(term);
    if (letters.length < 3 || UNSPACED.test(term) || !/^[\p{L}\p{N}]{3}/u.test(term)) continue;
    const prefix = letters.slice(0, 3).join("");
    byPrefix.set(prefix, (byPrefix.get(prefix) ?? 0) + docs);
  }
  const [prefix, docs] = [...byPrefix].reduce((a, b) => (b[1] > a[1] ? b : a));
  return { prefix, docs };
}

/**
 * The title word of the most posts, of the corpus's `among` commonest terms: documents per term in
 * the title column, from the SQLite full-text index's own statistics (fts5vocab 'col').
 */
function commonestTitleWord(db, terms, among = 40) {
  db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.bench_vocab_col USING fts5vocab(main, posts_fts, 'col')");
  const inTitle = db.prepare("SELECT doc FROM temp.bench_vocab_col WHERE term = ? AND col = 'title'").pluck();
  let best = { word: terms[0][0], docs: -1 };
  for (const [term] of terms.slice(0, among)) {
    const docs = inTitle.get(term) ?? 0;
    if (docs > best.docs) best = { word: term, docs };
  }
  return best;
}

/**
 * What the operator cases of one corpus are made of, read from its SQLite file (`path`), its
 * manifest's commonest terms and the store's feeds and languages (the smallest language as the
 * latency bench picks it: the smallest real one of at least 1,000 posts). PostgreSQL copies hold
 * the same posts.
 */
export async function probeOperators(store, path, manifest) {
  const Database = requireFromService("better-sqlite3");
  const db = new Database(path, { readonly: true, fileMustExist: true });
  const prefix = commonestPrefix(manifest.terms.slice(0, 2000));
  // feed: the word of the largest feed's name that selects the most posts (with the largest feed).
  const feeds = (await store.feeds()).map((f) => ({ ...f, words: new Set(analyzeText(f.feedName)) }));
  const largest = feeds.reduce((a, b) => (b.postCount > a.postCount ? b : a));
  let feed = null;
  for (const word of largest.words) {
    const chosen = feeds.filter((f) => f.words.has(word));
    const posts = chosen.reduce((sum, f) => sum + f.postCount, 0);
    if (feed === null || posts > feed.posts) feed = { word, feedIds: chosen.map((f) => f.feedId), posts };
  }
  const languages = (await store.aggregateLanguageData(Date.now()))
    .filter((l) => l.postCount > 0 && l.languageCode !== "und")
    .sort((a, b) => a.postCount - b.postCount);
  const minority = languages.find((l) => l.postCount >= 1000) ?? languages[0];
  let title;
  let oldest;
  let newest;
  let inFeeds;
  let perFeed;
  try {
    title = commonestTitleWord(db, manifest.terms);
    ({ oldest, newest } = db
      .prepare("SELECT min(post_date) AS oldest, max(post_date) AS newest FROM posts")
      .get());
    // The feeds' posts per language (their own index, posts_by_feed).
    inFeeds = new Map(
      db
        .prepare(`SELECT language_id, count(*) FROM posts WHERE feed_id IN (SELECT value FROM json_each(?))
          GROUP BY language_id`)
        .raw()
        .all(JSON.stringify(feed.feedIds)),
    );
    // Every feed's posts per language (posts_sort_keys holds both columns: no row is read).
    perFeed = db
      .prepare("SELECT feed_id, language_id, count(*) FROM posts INDEXED BY posts_sort_keys GROUP BY 1, 2")
      .raw()
      .all();
  } finally {
    db.close();
  }
  // A day ten years before the newest post, or the oldest day when the corpus is younger.
  const afterDay = new Date(Math.max(oldest, newest - 3652 * DAY)).toISOString().slice(0, 10);
  // The language of at least 1,000 posts that the feeds write least of, the largest on ties.
  const absent = languages
    .filter((l) => l.postCount >= 1000)
    .reduce((a, b) => {
      const [na, nb] = [inFeeds.get(a.languageId) ?? 0, inFeeds.get(b.languageId) ?? 0];
      return nb < na || (nb === na && b.postCount > a.postCount) ? b : a;
    }, minority);
  const sparse = sparsestFeedLanguage(feeds, languages, perFeed);
  const [[w1], [w2]] = manifest.terms;
  // The commonest word's hits with the feeds and with each side of the day ten years back.
  const counted = new Database(path, { readonly: true, fileMustExist: true });
  let deepHits;
  try {
    deepHits = {
      feed: hitsOf(counted, `feed:${feed.word} ${w1}`),
      after: hitsOf(counted, `after:${afterDay} ${w1}`),
      before: hitsOf(counted, `before:${afterDay} ${w1}`),
    };
  } finally {
    counted.close();
  }
  return {
    prefix: `${prefix.prefix}*`,
    prefixDocs: prefix.docs,
    title: `title:${title.word}`,
    titleDocs: title.docs,
    feed: `feed:${feed.word}`,
    feedNote: `${feed.feedIds.length} feeds, ${feed.posts} posts`,
    feedLang: `lang:${absent.languageCode}`,
    feedLangNote: `${absent.postCount} posts, ${inFeeds.get(absent.languageId) ?? 0} of them in those feeds`,
    sparseFeed: sparse === null ? null : `feed:${sparse.word} lang:${sparse.languageCode}`,
    sparseNote:
      sparse === null
        ? "none above the cap"
        : `${sparse.feeds} feeds of ${sparse.feedPosts} posts, ${sparse.languagePosts} posts in the language, ${sparse.set} in both`,
    after: `after:${afterDay}`,
    before: `before:${afterDay}`,
    deepHits,
    lang: `lang:${minority.languageCode}`,
    langNote: `${minority.postCount} posts`,
    w1,
    w2,
  };
}

/** More posts than the SQLite `feed:` with a language plans read whole (fts5-operators.ts FEW_HITS). */
const FEW_HITS = 2_000;

/**
 * The `feed:` word of several feeds' names and the language (not `und`) whose posts together are
 * more than FEW_HITS and the sparsest: the smallest share of the cheaper walk's posts (the feeds'
 * or the language's, whichever are fewer), then of the other's; a plan that walks the feeds or the
 * language until the page is full reads about that share's inverse per post it keeps. One feed's
 * posts always come from its own indexes (posts_by_feed, posts_by_feed_clicks), never from the
 * language's, so a word of one feed is left out. Null when no set is above FEW_HITS. `perFeed`:
 * [feed id, language id, posts].
 */
export function sparsestFeedLanguage(feeds, languages, perFeed) {
  const langOf = new Map(languages.map((l) => [l.languageId, l]));
  const byFeed = new Map();
  for (const [feedId, languageId, posts] of perFeed) {
    if (!byFeed.has(feedId)) byFeed.set(feedId, []);
    byFeed.get(feedId).push([languageId, posts]);
  }
  const byWord = new Map();
  for (const f of feeds)
    for (const word of f.words) byWord.set(word, [...(byWord.get(word) ?? []), f.feedId]);
  let best = null;
  for (const [word, feedIds] of byWord) {
    if (feedIds.length < 2) continue;
    let feedPosts = 0;
    const set = new Map();
    for (const id of feedIds)
      for (const [languageId, posts] of byFeed.get(id) ?? []) {
        feedPosts += posts;
        set.set(languageId, (set.get(languageId) ?? 0) + posts);
      }
    for (const [languageId, posts] of set) {
      const language = langOf.get(languageId);
      if (posts <= FEW_HITS || language === undefined) continue;
      const shares = [feedPosts / posts, language.postCount / posts].sort((a, b) => a - b);
      const better =
        best === null ||
        shares[0] > best.shares[0] ||
        (shares[0] === best.shares[0] && shares[1] > best.shares[1]) ||
        (shares[0] === best.shares[0] && shares[1] === best.shares[1] && posts < best.set);
      if (better)
        best = {
          word,
          languageCode: language.languageCode,
          feeds: feedIds.length,
          feedPosts,
          languagePosts: language.postCount,
          set: posts,
          shares,
        };
    }
  }
  return best;
}

/**
 * The cases: [label, { searchTerms, sortBy, limit, offset }]. Per operator: alone (relevance and
 * clicks, limit 1000), with the commonest word (relevance, relevance at offset 9,000 (the deepest
 * page of the 10,000 ranked), date at offset 5,000, clicks at limit 1000 and at offset 5,000), with the two commonest
 * words (relevance, limit 1000); then all of them together, and an excluded feed; then `feed:` without
 * the commonest word (relevance, date at offset 5,000, clicks at limit 1000); then `feed:` with
 * the language its feeds write least of; the middle and last pages by date and by clicks of the
 * commonest word with the feeds, `after:` and `before:` the same day (counted on the corpus:
 * `deepHits`); then the sparsest feeds and language above FEW_HITS: alone
 * (relevance and clicks at limit 1000, date at offset 5,000) and with the commonest word as the
 * operators above.
 */
export function operatorCases(ops) {
  const { w1, w2 } = ops;
  const cases = [];
  const add = (terms, sortBy, { limit = 20, offset = 0 } = {}) => {
    const at = [limit !== 20 ? `limit ${limit}` : "", offset ? `offset ${offset}` : ""].filter(Boolean);
    cases.push([
      `search '${terms}', ${sortBy}${at.length ? `, ${at.join(", ")}` : ""}`,
      { searchTerms: terms, sortBy, limit, offset },
    ]);
  };
  for (const op of [ops.prefix, ops.title, ops.feed, ops.after, ops.lang]) {
    add(op, "relevance", { limit: 1000 });
    add(op, "clicks", { limit: 1000 });
    add(`${op} ${w1}`, "relevance");
    add(`${op} ${w1}`, "relevance", { offset: 9000 });
    add(`${op} ${w1}`, "date", { offset: 5000 });
    add(`${op} ${w1}`, "clicks", { limit: 1000 });
    add(`${op} ${w1}`, "clicks", { offset: 5000 });
    add(`${op} ${w1} ${w2}`, "relevance", { limit: 1000 });
  }
  // Date and clicks orders are exact at any offset (spec §4): the middle and last pages of the
  // commonest word with the feeds and with each side of the day ten years back.
  if (ops.deepHits !== undefined) {
    for (const [op, hits] of [
      [ops.feed, ops.deepHits.feed],
      [ops.after, ops.deepHits.after],
      [ops.before, ops.deepHits.before],
    ]) {
      for (const sortBy of ["date", "clicks"]) {
        add(`${op} ${w1}`, sortBy, { offset: Math.floor(hits / 2) });
        add(`${op} ${w1}`, sortBy, { offset: Math.max(0, hits - 20) });
      }
    }
  }
  const all = `${ops.prefix} ${ops.title} ${ops.feed} ${ops.after} ${w1}`;
  add(all, "relevance");
  add(all, "date", { limit: 1000 });
  add(all, "clicks", { limit: 1000 });
  add(`${w1} -${ops.feed}`, "relevance");
  add(`${w1} -${ops.feed}`, "date", { offset: 5000 });
  // The feeds without the commonest word: the excluded word's matches are most of the feeds' posts.
  add(`${ops.feed} -${w1}`, "relevance");
  add(`${ops.feed} -${w1}`, "date", { offset: 5000 });
  add(`${ops.feed} -${w1}`, "clicks", { limit: 1000 });
  // The feeds with a language they write least of: by relevance and clicks, alone and with a word.
  const feedLang = `${ops.feed} ${ops.feedLang}`;
  add(feedLang, "relevance", { limit: 1000 });
  add(feedLang, "clicks", { limit: 1000 });
  add(`${feedLang} ${w1}`, "relevance");
  add(`${feedLang} ${w1}`, "clicks", { limit: 1000 });
  if (ops.sparseFeed !== null) {
    const sparse = ops.sparseFeed;
    add(sparse, "relevance", { limit: 1000 });
    add(sparse, "date", { offset: 5000 });
    add(sparse, "clicks", { limit: 1000 });
    add(`${sparse} ${w1}`, "relevance");
    add(`${sparse} ${w1}`, "relevance", { offset: 9000 });
    add(`${sparse} ${w1}`, "date", { offset: 5000 });
    add(`${sparse} ${w1}`, "clicks", { limit: 1000 });
  }
  return cases;
}

/**
 * A phrase of the two commonest words with each operator (relevance, and clicks at limit 1000),
 * and excluded beside the prefix: on PostgreSQL, a phrase handed to the operators' GIN index is a
 * recheck of every candidate against the indexed expression (bench/NOTES.md, pgops34b).
 */
export function phraseCases(ops) {
  const phrase = `"${ops.w1} ${ops.w2}"`;
  const cases = [];
  for (const op of [ops.after, ops.feed, ops.title, ops.prefix]) {
    cases.push([
      `search '${phrase} ${op}', relevance`,
      { searchTerms: `${phrase} ${op}`, sortBy: "relevance", limit: 20, offset: 0 },
    ]);
    cases.push([
      `search '${phrase} ${op}', clicks, limit 1000`,
      { searchTerms: `${phrase} ${op}`, sortBy: "clicks", limit: 1000, offset: 0 },
    ]);
  }
  const excluded = `${ops.prefix} -${phrase}`;
  cases.push([
    `search '${excluded}', relevance`,
    { searchTerms: excluded, sortBy: "relevance", limit: 20, offset: 0 },
  ]);
  return cases;
}

/**
 * The commonest word alone through the word plans (no operator): the peer each operator case is
 * read against, measured in the same run.
 */
export function wordPeers(ops) {
  return [
    [
      `search '${ops.w1}' (no operator), relevance`,
      { searchTerms: ops.w1, sortBy: "relevance", limit: 20, offset: 0 },
    ],
    [
      `search '${ops.w1}' (no operator), relevance, offset 9000`,
      { searchTerms: ops.w1, sortBy: "relevance", limit: 20, offset: 9000 },
    ],
    [
      `search '${ops.w1}' (no operator), date, offset 5000`,
      { searchTerms: ops.w1, sortBy: "date", limit: 20, offset: 5000 },
    ],
    [
      `search '${ops.w1}' (no operator), clicks, limit 1000`,
      { searchTerms: ops.w1, sortBy: "clicks", limit: 1000, offset: 0 },
    ],
  ];
}

/** One line saying what the cases were made of. */
export function describeOperators(ops) {
  return `operators ${ops.prefix} (terms in ~${ops.prefixDocs} posts), ${ops.title} (${ops.titleDocs} titles), ${ops.feed} (${ops.feedNote}), ${ops.after} (${ops.deepHits?.after ?? "?"} posts with ${ops.w1}; ${ops.before}: ${ops.deepHits?.before ?? "?"}; ${ops.feed} with it: ${ops.deepHits?.feed ?? "?"}), ${ops.lang} (${ops.langNote}), ${ops.feedLang} with ${ops.feed} (${ops.feedLangNote}), ${ops.sparseFeed ?? "no sparse feeds × language"} (${ops.sparseNote}); words ${ops.w1}, ${ops.w2}`;
}

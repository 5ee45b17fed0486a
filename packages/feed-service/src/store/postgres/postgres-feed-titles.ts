/**
 * Posts by feed and title word (migration 37): a GIN index keyed by each post's feed and each
 * word of its title (`12 the`), beside the index of posts by feed and word
 * (postgres-feed-words.ts), whose keys hold no weights. A `feed:` search with a `title:` word then
 * reads the feeds' posts with that word in their titles, where the feeds' words hand over every
 * post holding the word anywhere and leave the title to a check on each one's row (the combined
 * `the* title:the feed:日 after:2016-01-16 the` at 1M posts: 30,465 candidates for under 1,000
 * matches a tier, the heap of each read: bench/NOTES.md, pgops34b). Used only where the feeds'
 * words already drive (usesFeedWords): a feed's title list is part of its word list.
 */
import { FEED_WORD_CHARS } from "./postgres-feed-words.js";
import type { Plan } from "./postgres-operator-plan.js";

/** The index's name. */
export const FEED_TITLES_INDEX = "posts_feed_titles";

/**
 * Migration 37. The title words are the lexemes of weight A of `search_vector` (the title's:
 * migration 5), as the operators' index holds them (` ttl the`: postgres-search-operators.ts);
 * each is keyed by the feed as the feeds' words are (the first FEED_WORD_CHARS characters of a
 * longer word). COST as feed_words's, for the same reason (a row's vector out of TOAST, unnested).
 * Clicks (heap-only updates of `clicks`) do not touch it. Idempotent: a test runs later migrations
 * again.
 */
export const feedTitlesSchema = `
CREATE OR REPLACE FUNCTION feed_titles(search_vector tsvector, feed_id integer) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE COST 10000
  RETURN array_to_tsvector(ARRAY(SELECT feed_id || ' ' || left(w, ${FEED_WORD_CHARS})
    FROM unnest(tsvector_to_array(ts_filter(search_vector, '{a}'))) w));
SET LOCAL maintenance_work_mem = '256MB';
CREATE INDEX IF NOT EXISTS ${FEED_TITLES_INDEX} ON posts USING GIN (feed_titles(search_vector, feed_id));
`;

/** The index's expression, spelled as queries must spell it to use the index. */
export const FEED_TITLES_EXPRESSION = "feed_titles(p.search_vector, p.feed_id)";

/**
 * The top-level conjuncts of a tsquery (its parts ANDed at the outside, parentheses that only
 * group ANDs opened), or null when it holds a NOT: a conjunct that is only a NOT cannot lead a
 * GIN scan, and excluded words are checked on the row anyway (Plan.recheck).
 */
function conjuncts(query: string): string[] | null {
  if (/!/.test(query.replace(/'(?:[^']|'')*'/g, ""))) return null;
  const parts: string[] = [];
  const split = (text: string) => {
    let depth = 0;
    let start = 0;
    const found: string[] = [];
    for (let i = 0; i < text.length; i++) {
      const c = text[i]!;
      if (c === "'") {
        // Skip a quoted lexeme ('' is a quote inside it).
        for (i++; i < text.length; i++) {
          if (text[i] === "'" && text[i + 1] === "'") i++;
          else if (text[i] === "'") break;
        }
      } else if (c === "(") depth++;
      else if (c === ")") depth--;
      else if (c === "&" && depth === 0) {
        found.push(text.slice(start, i).trim());
        start = i + 1;
      }
    }
    found.push(text.slice(start).trim());
    for (const part of found) {
      const inner = part.startsWith("(") && part.endsWith(")") ? part.slice(1, -1) : null;
      // A group of ANDs only (no OR at its top level) is opened; an OR stays one conjunct.
      if (inner !== null && wraps(part) && !topLevelOr(inner)) split(inner);
      else parts.push(part);
    }
  };
  split(query);
  return parts;
}

/** Whether the parenthesis that opens `part` closes at its end. */
function wraps(part: string): boolean {
  let depth = 0;
  for (let i = 0; i < part.length; i++) {
    const c = part[i]!;
    if (c === "'") {
      for (i++; i < part.length; i++) {
        if (part[i] === "'" && part[i + 1] === "'") i++;
        else if (part[i] === "'") break;
      }
    } else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i === part.length - 1;
  }
  return false;
}

function topLevelOr(text: string): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'") {
      for (i++; i < text.length; i++) {
        if (text[i] === "'" && text[i + 1] === "'") i++;
        else if (text[i] === "'") break;
      }
    } else if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "|" && depth === 0) return true;
  }
  return false;
}

const TITLE = /^' ttl ((?:[^']|'')+)'$/s;
const WORD = /^'((?:[^']|'')+)'(:\*)?$/s;
const PREFIX = /^' pfx ((?:[^']|'')+)'$/s;

/**
 * Whether a conjunct of the operators' index query holds whenever the post's title holds
 * `titles` (quoted as in the query): the word itself, a prefix of one (`'the':*`, ` pfx the`).
 * `title:w` is `'w':A`, a lexeme of `search_vector` itself, so it implies `w` and `w*` (the
 * reasoning of impliedByTitle in postgres-operator-plan.ts).
 */
function impliedBy(conjunct: string, titles: readonly string[]): boolean {
  // ` pfx ` first: its lexeme is a quoted word too.
  const prefix = PREFIX.exec(conjunct);
  if (prefix !== null) return titles.some((t) => t.startsWith(prefix[1]!));
  const word = WORD.exec(conjunct);
  return (
    word !== null && titles.some((t) => (word[2] === undefined ? t === word[1] : t.startsWith(word[1]!)))
  );
}

/** One feed's query of this index, and whether words no title word implies are left. */
export interface FeedTitleQuery {
  titles: string;
  /**
   * Whether other conjuncts are left, which the row's `search_vector` then decides: ANDed with
   * the feeds' words as a second index condition, the planner took this index alone and ran
   * feed_words() on every row as a filter (each post's vector out of TOAST, unnested: 430 ms for
   * 2,071 rows at 1M, bench/NOTES.md), where checking the words on the vector costs one read.
   */
  rest: boolean;
}

/**
 * The operators' index query of the words (Plan.feedIndex: `' ttl the'`, `' pfx pro'`, `'the'`,
 * `'prog':*`, `&`, `|`) for one feed of this index: its ` ttl ` conjuncts as the feed's keys
 * (`'12 the'`), and whether conjuncts that no title word implies are left. Null when the query
 * has no title conjunct, holds a NOT, or a title word is longer than the index keeps of it.
 */
export function feedTitleQuery(index: string, feedId: number): FeedTitleQuery | null {
  const parts = conjuncts(index);
  if (parts === null) return null;
  const titles: string[] = [];
  const rest: string[] = [];
  for (const part of parts) {
    const title = TITLE.exec(part);
    if (title === null) rest.push(part);
    else titles.push(title[1]!);
  }
  if (titles.length === 0) return null;
  if (titles.some((t) => Array.from(t.replace(/''/g, "'")).length >= FEED_WORD_CHARS)) return null;
  return {
    titles: [...new Set(titles)].map((t) => `'${feedId} ${t}'`).join(" & "),
    rest: rest.some((part) => !impliedBy(part, titles)),
  };
}

/**
 * `plan` with its `title:` words read from this index when the feeds' words drive it (withFeedWords
 * set `feedWords`): a feed's title list of a word is part of its list of the word, so it never
 * hands over more. Unchanged otherwise.
 */
export function withFeedTitles<P extends Plan>(plan: P): P {
  const feedIds = plan.scope.feedIds;
  if (plan.feedWords === null || plan.feedIndex === null || feedIds === null) return plan;
  const split = feedIds.map((id) => feedTitleQuery(plan.feedIndex!, id));
  if (!split.every((t) => t !== null)) return plan;
  // Which conjuncts are left does not depend on the feed.
  return { ...plan, feedTitles: { queries: split.map((t) => t.titles), checkWords: split[0]!.rest } };
}

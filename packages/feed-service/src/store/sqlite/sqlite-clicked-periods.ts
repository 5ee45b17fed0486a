/**
 * Schema version 32: each row of the clicked posts' index (sqlite-clicked-index.ts) also holds its
 * post's day as period tokens, so that `after:`/`before:` (spec §4: UTC days, inclusive) are a
 * posting list there too, ANDed with (or a NOT of) the words, and a page by clicks within a date
 * range is again a skip over the index's rowids (clicks, then id), which hold no date.
 *
 * The scheme is a decomposition of the day number in base 4 (the range trees of Bentley's
 * decomposable searching, as Lucene's trie-coded numeric ranges): a post holds one token per level
 * L, its day divided by 4^L, and a range of days is the OR of at most 3 tokens per level at each
 * end. Every post of a range is in exactly one of them, so FTS5's merge of that OR decodes each
 * post of the range once; a higher base needs fewer tokens per post but more per range, which the
 * merge pays on every hit it steps over (bench/NOTES.md, the measurements behind the base).
 * Because every post of the OR's side is decoded, the cheaper side is taken: the range's tokens
 * ANDed in when it holds at most half of the posts, else a NOT of the tokens of the days outside.
 *
 * The tokens go into the title_words column, after the title's marked tokens: that column weighs
 * nothing in the rows' lengths (WEIGHTS: negative) and a phrase scores only with a count of its
 * own, which the period phrases get as negative (weighing nothing, native/sampled_bm25.c), so the
 * scores stay those of posts_fts. Each token is two private-use characters, which the search
 * analyzer never emits: no word, phrase or prefix can match one, and FTS5's prefix index (prefix
 * '3', of tokens of three characters or more) takes no entry for them.
 *
 * The day is that of the post's date key (its second, clamped as sqlite-date-keys.ts clamps it),
 * so a post's tokens say exactly what a range of date keys bounded on day starts says of it.
 */
import { SLOTS } from "./sqlite-date-keys.js";

const DAY_SECONDS = 86_400;

/** Date keys per day: a range of keys bounded on day starts is a range of days. */
const DAY_KEYS = DAY_SECONDS * SLOTS;

/** Bits of the day number per level (base 4). */
const LEVEL_BITS = 2;

/**
 * Days are offset by 2^20 into [0, 2^21): date keys clamp seconds to ±2^36, about ±795,000 days.
 */
const DAY_OFFSET = 2 ** 20;
const DAY_BITS = 21;

/** Levels 0 to 10: the top one's blocks of 4^10 days cover the offset days in two. */
const LEVELS = Math.ceil(DAY_BITS / LEVEL_BITS);

/** The first character of a token: level and high bits (plane 15's private use area). */
const HIGH_BASE = 0xf0000;
/** The second: the low 12 bits (plane 16's private use area). */
const LOW_BASE = 0x100000;
const LOW_BITS = 12;

/** The offset day number of a date key. */
function dayOfKey(key: number): number {
  const day = Math.floor(Math.floor(key / SLOTS) / DAY_SECONDS) + DAY_OFFSET;
  if (day < 0 || day >= 2 ** DAY_BITS) throw new Error(`date key ${key} is outside the period tokens' days`);
  return day;
}

/** The token of block `value` (a day number shifted right by 2L bits) at level `level`. */
function periodToken(level: number, value: number): string {
  return String.fromCodePoint(
    HIGH_BASE + (level << (DAY_BITS - LOW_BITS)) + (value >> LOW_BITS),
    LOW_BASE + (value & ((1 << LOW_BITS) - 1)),
  );
}

/**
 * The period tokens of a post whose date key is `key`, one per level, separated by spaces.
 *
 * @example
 * periodTokens(dateKey).split(" ").length; // 11
 */
export function periodTokens(key: number): string {
  const day = dayOfKey(key);
  const tokens: string[] = [];
  for (let level = 0; level < LEVELS; level++) tokens.push(periodToken(level, day >> (level * LEVEL_BITS)));
  return tokens.join(" ");
}

/**
 * The tokens whose blocks cover days `from` to `to` (offset day numbers, inclusive) exactly: at
 * each level the blocks at either end up to the next level's boundary, then the level above.
 */
export function coverTokens(from: number, to: number): string[] {
  const tokens: string[] = [];
  let low = from;
  let high = to;
  for (let level = 0; low <= high; level++) {
    const shift = level * LEVEL_BITS;
    const unit = 2 ** shift;
    if (level === LEVELS - 1) {
      for (let v = low / unit; v <= (high + 1) / unit - 1; v++) tokens.push(periodToken(level, v));
      break;
    }
    const up = unit * 2 ** LEVEL_BITS;
    while (low <= high && low % up !== 0 && low + unit - 1 <= high) {
      tokens.push(periodToken(level, low / unit));
      low += unit;
    }
    while (low <= high && (high + 1) % up !== 0 && high - unit + 1 >= low) {
      tokens.push(periodToken(level, (high + 1) / unit - 1));
      high -= unit;
    }
  }
  return tokens;
}

/**
 * The MATCH narrowing a query to the date keys `keys` (inclusive; each bound a day start, or
 * beyond every key) through the period tokens, and how many phrases it appends; null when a bound
 * is not a day start (no token holds part of a day). `posts`: the lowest and highest date keys of
 * the posts, so that an end beyond them is left open (fewer tokens); `insideShare`: about the
 * share of the posts within the range, which decides between the range's tokens ANDed in and a
 * NOT of the days outside it (the merge decodes every post of the side it reads).
 */
export function periodNarrowing(
  keys: { low: number; high: number },
  posts: { low: number; high: number },
  insideShare: number,
): { narrow: (match: string) => string; phrases: number } | null {
  const top = 2 ** DAY_BITS - 1;
  const lowOpen = keys.low <= posts.low;
  const highOpen = keys.high >= posts.high;
  if (!lowOpen && keys.low % DAY_KEYS !== 0) return null;
  if (!highOpen && (keys.high + 1) % DAY_KEYS !== 0) return null;
  const from = lowOpen ? 0 : dayOfKey(keys.low);
  const to = highOpen ? top : dayOfKey(keys.high);
  const quoted = (tokens: readonly string[]) => tokens.map((t) => `"${t}"`).join(" OR ");
  if (insideShare <= 0.5) {
    const tokens = coverTokens(from, to);
    return { narrow: (match) => `(${match}) AND (${quoted(tokens)})`, phrases: tokens.length };
  }
  const outside = [
    ...(from > 0 ? coverTokens(0, from - 1) : []),
    ...(to < top ? coverTokens(to + 1, top) : []),
  ];
  if (outside.length === 0) return { narrow: (match) => match, phrases: 0 };
  return { narrow: (match) => `(${match}) NOT (${quoted(outside)})`, phrases: outside.length };
}

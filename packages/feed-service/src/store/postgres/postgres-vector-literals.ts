/**
 * A post's tsvector literals written as PostgreSQL stores a tsvector: each lexeme once with all
 * its positions, lexemes in sorted order. tsvectorin sorts and merges whatever it is given
 * (PostgreSQL src/backend/utils/adt/tsvector.c, uniqueentry), so the stored value is the same;
 * given them sorted and merged it has nothing to sort and fewer bytes to read, on the server side
 * of every COPY of migrate-data and of every refresh's INSERT (bench/NOTES.md, pgwrites31).
 */

/** A token of a post at its position, with its weight letter ("" for D). */
export interface WeightedToken {
  readonly word: string;
  readonly at: number;
  readonly weight: string;
}

/**
 * `'lexeme':pos[weight],...` entries, one per distinct word, sorted as strings. PostgreSQL orders
 * lexemes by their bytes, shorter first on a tie; the entries' order is that one except where one
 * lexeme is the other's prefix followed by a character below the closing quote (a space, `!` to
 * `&`, a quote), or between astral characters and U+E000 to U+FFFF (JavaScript compares UTF-16
 * units): there the server sorts them itself, as it did every vector before. The entries are
 * sorted, not the words: no second look-up per word (bench/NOTES.md, pgwrites31).
 *
 * @example
 * wordsLiteral([{ word: "b", at: 1, weight: "A" }, { word: "a", at: 2, weight: "" }, { word: "b", at: 3, weight: "" }], (w) => `'${w}'`);
 * // "'a':2 'b':1A,3"
 */
export function wordsLiteral(tokens: readonly WeightedToken[], quote: (word: string) => string): string {
  const entryOf = new Map<string, number>();
  const entries: string[] = [];
  for (const t of tokens) {
    const at = entryOf.get(t.word);
    if (at === undefined) {
      entryOf.set(t.word, entries.length);
      entries.push(`${quote(t.word)}:${t.at}${t.weight}`);
    } else entries[at] += `,${t.at}${t.weight}`;
  }
  // Every entry starts with the quote: the order is decided from the second unit on.
  return sortedAsStrings(entries, 1).join(" ");
}

interface WellFormed {
  isWellFormed(): boolean;
}

/** Positions tsvectorin keeps of one lexeme (MAXNUMPOS in PostgreSQL's ts_type.h). */
const POSITIONS_KEPT = 256;
/** tsvectorin's last position (MAXENTRYPOS - 1): later ones are clamped to it. */
const LAST_POSITION = 16_383;

/**
 * `posts.rank_vector` and `posts.body_length` from a post's tokens, as the posts_rank_columns
 * trigger derives them from the stored `search_vector`: `ts_filter(search_vector, '{a,b}')` (the
 * feed name and title words with their positions) and `length(ts_filter(search_vector, '{d}'))`
 * (the body's distinct words), on what tsvectorin keeps of each lexeme, its first 256 positions
 * (uniquePos, tsvector.c). Sent with the insert, they spare the server a trigger call per row.
 * Null when a token sits at the last position (tsvectorin merges the positions clamped there in
 * the order of its own sort: a post of over 16,000 words) or a word is not well-formed UTF-16 (two
 * such words can be one lexeme once encoded): the trigger computes those.
 *
 * @example
 * rankColumns([{ word: "b", at: 1, weight: "B" }, { word: "a", at: 3, weight: "A" }, { word: "a", at: 5, weight: "" }], (w) => `'${w}'`);
 * // { rank: "'a':3A 'b':1B", bodyLength: 1 }
 */
export function rankColumns(
  tokens: readonly WeightedToken[],
  quote: (word: string) => string,
): { rank: string; bodyLength: number } | { rank: null; bodyLength: null } {
  const kept = new Map<string, { positions: number; ranked: number; body: boolean }>();
  const entries: string[] = [];
  let bodyLength = 0;
  for (const t of tokens) {
    if (t.at >= LAST_POSITION) return { rank: null, bodyLength: null };
    let lexeme = kept.get(t.word);
    if (lexeme === undefined) {
      // Two words that are not well-formed UTF-16 can be one lexeme once encoded.
      if (!(t.word as unknown as WellFormed).isWellFormed()) return { rank: null, bodyLength: null };
      lexeme = { positions: 0, ranked: -1, body: false };
      kept.set(t.word, lexeme);
    }
    // Tokens come in position order, one position each: the first 256 are the ones kept.
    if (lexeme.positions === POSITIONS_KEPT) continue;
    lexeme.positions++;
    if (t.weight === "") {
      if (!lexeme.body) {
        lexeme.body = true;
        bodyLength++;
      }
      continue;
    }
    if (lexeme.ranked === -1) {
      lexeme.ranked = entries.length;
      entries.push(`${quote(t.word)}:${t.at}${t.weight}`);
    } else entries[lexeme.ranked] += `,${t.at}${t.weight}`;
  }
  return { rank: sortedAsStrings(entries, 1).join(" "), bodyLength };
}

/** Lexemes without positions (each already once), sorted, as a literal. */
export function lexemesLiteral(lexemes: Iterable<string>, quote: (word: string) => string): string {
  return sortedAsStrings([...lexemes], 0)
    .map(quote)
    .join(" ");
}

/** Indexes up to 2^19 fit beside a 34-bit prefix in a double's 53 exact bits. */
const INDEX_RANGE = 2 ** 19;
/** Each prefix unit takes 17 bits: its code + 1, or 0 past the string's end (shorter first). */
const UNIT_RANGE = 2 ** 17;
/** Runs of a shared prefix longer than this are sorted by the built-in sort. */
const SHORT_RUN = 16;

/**
 * `strings` in the order of `strings.sort()` (UTF-16 code units, shorter first on a tie), for
 * strings that are all equal before `from`. The built-in sort compares strings through
 * a generic comparison; here two code units from `from` on and the index are packed into one
 * number each, the numbers sorted natively (Float64Array), and only strings sharing those two
 * units compared as strings. The sort was two fifths of the COPY encoders' time (bench/NOTES.md,
 * pgmig31).
 *
 * @example
 * sortedAsStrings(["'b'", "'a b'", "'a'"], 1); // ["'a b'", "'a'", "'b'"]
 */
export function sortedAsStrings(strings: string[], from: number): string[] {
  const n = strings.length;
  if (n < 2 || n >= INDEX_RANGE) return strings.sort();
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const s = strings[i]!;
    const a = from < s.length ? s.charCodeAt(from) + 1 : 0;
    const b = from + 1 < s.length ? s.charCodeAt(from + 1) + 1 : 0;
    keys[i] = (a * UNIT_RANGE + b) * INDEX_RANGE + i;
  }
  keys.sort();
  const out: string[] = new Array(n);
  let runStart = 0;
  let runPrefix = -1;
  for (let i = 0; i < n; i++) {
    const key = keys[i]!;
    const prefix = Math.floor(key / INDEX_RANGE);
    out[i] = strings[key - prefix * INDEX_RANGE]!;
    if (prefix !== runPrefix) {
      sortRun(out, runStart, i);
      runStart = i;
      runPrefix = prefix;
    }
  }
  sortRun(out, runStart, n);
  return out;
}

/** Sorts out[start, end) in place as strings. */
function sortRun(out: string[], start: number, end: number): void {
  if (end - start < 2) return;
  if (end - start > SHORT_RUN) {
    const run = out.slice(start, end).sort();
    for (let i = 0; i < run.length; i++) out[start + i] = run[i]!;
    return;
  }
  for (let i = start + 1; i < end; i++) {
    const value = out[i]!;
    let j = i - 1;
    while (j >= start && out[j]! > value) {
      out[j + 1] = out[j]!;
      j--;
    }
    out[j + 1] = value;
  }
}

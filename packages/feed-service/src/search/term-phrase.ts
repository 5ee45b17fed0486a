/**
 * The tokens a store searches for, as one phrase, for a query term (spec §4). A term's `words` are
 * the analyzer's tokens, in which each Han, kana or Hangul run is its characters and neighbour
 * pairs interleaved (`東京都` -> `東 東京 京 京都 都`). The run's first character is implied by the
 * pair that follows it and its last by the pair before it, so when the run starts or ends the term
 * those unigrams are left out: `東京` is the one token `東京` and `東京都` the phrase
 * `東京 京 京都`. The stores then read fewer and rarer posting lists (a one-character token such as
 * `の` is in most Japanese posts), and a two-character term is a single token, which PostgreSQL's
 * GIN index answers without rechecking positions. A character inside the term, or at an edge that
 * touches another run (`iPhone発売`: `iphone 発 発売`), stays, so the phrase still pins the pairs
 * to consecutive positions and to their neighbours.
 */
import type { SearchTerm } from "./search-query.js";
import { runKindOf } from "./text-analyzer.js";

function isPairedUnigram(token: string | undefined): boolean {
  if (token === undefined || token.length > 2) return false;
  const chars = [...token];
  if (chars.length !== 1) return false;
  const kind = runKindOf(chars[0]!, null);
  return kind === "han" || kind === "hiragana" || kind === "katakana" || kind === "hangul";
}

/** Whether `pair` is the neighbour pair that starts (or, with `atEnd`, ends) with `unigram`. */
function pairs(pair: string | undefined, unigram: string, atEnd: boolean): boolean {
  if (pair === undefined) return false;
  const chars = [...pair];
  return chars.length === 2 && chars[atEnd ? 1 : 0] === unigram && isPairedUnigram(chars[atEnd ? 0 : 1]);
}

/**
 * @example
 * termPhrase({ words: ["東", "東京", "京"] }); // ["東京"]
 * termPhrase({ words: ["東", "東京", "京", "京都", "都"] }); // ["東京", "京", "京都"]
 * termPhrase({ words: ["iphone", "発", "発売", "売"] }); // ["iphone", "発", "発売"]
 */
export function termPhrase(term: SearchTerm): readonly string[] {
  const w = term.words;
  let start = 0;
  let end = w.length;
  if (isPairedUnigram(w[0]) && pairs(w[1], w[0]!, false)) start = 1;
  if (end - start >= 2 && isPairedUnigram(w[end - 1]) && pairs(w[end - 2], w[end - 1]!, true)) end--;
  return start === 0 && end === w.length ? w : w.slice(start, end);
}

/**
 * The tokens a store needs to find candidates for a term when it checks the phrase itself
 * afterwards: the phrase's tokens less the single Han, kana and Hangul characters that sit between
 * two pairs, which those pairs already imply and which are among the commonest tokens (`ー`, `の`,
 * `이`); reading their posting lists cost more than the pairs'. Any post holding the phrase holds
 * these, so candidates are a superset of the matches.
 *
 * @example
 * candidateTokens({ words: ["데", "데이", "이", "이터", "터"] }); // ["데이", "이터"]
 */
export function candidateTokens(term: SearchTerm): readonly string[] {
  const phrase = termPhrase(term);
  return phrase.filter(
    (token, i) =>
      !(
        isPairedUnigram(token) &&
        i > 0 &&
        i < phrase.length - 1 &&
        [...phrase[i - 1]!].length === 2 &&
        [...phrase[i + 1]!].length === 2
      ),
  );
}

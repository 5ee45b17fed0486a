// The latency bench's search mix (its part 2), drawn in one place so that every bench that replays
// it (feed-service-latency.bench.mjs, sqlite-search-mix-cpu.bench.mjs) runs the same searches.
import { SeededRandom } from "./shape-vocabulary.mjs";

/**
 * 100 searches drawn at random (seeded) from `terms` (a corpus's commonest indexed terms, the first
 * 2,000 used): 60% one term, then ANDs, ORs, phrases, exclusions and one term in one of
 * `languageIds`; relevance and date alternately, every third at offset 20. Each is
 * `{ terms, sort, offset, languageId }` (languageId null when the search has no language filter).
 */
export function drawSearchMix(terms, languageIds, seed) {
  const rng = new SeededRandom(seed);
  const pool = terms.slice(0, 2000);
  const term = () => pool[Math.floor(rng.next() * pool.length)];
  const mix = [];
  for (let i = 0; i < 100; i++) {
    const x = rng.next();
    let text;
    let languageId = null;
    if (x < 0.6) text = term();
    else if (x < 0.75) text = `${term()} ${term()}`;
    else if (x < 0.85) text = `${term()} OR ${term()}`;
    else if (x < 0.9) text = `"${term()} ${term()}"`;
    else if (x < 0.95) text = `${term()} -${term()}`;
    else {
      text = term();
      languageId = languageIds[Math.floor(rng.next() * languageIds.length)];
    }
    mix.push({
      terms: text,
      sort: i % 2 === 0 ? "relevance" : "date",
      offset: i % 3 === 0 ? 20 : 0,
      languageId,
    });
  }
  return mix;
}

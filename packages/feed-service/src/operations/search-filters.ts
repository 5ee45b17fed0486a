/**
 * Resolves the `feed:` and `lang:` operators of a parsed search (spec §4) to the ids a store
 * filters on: `feed:` to the feeds whose name holds that word or phrase (analysed as search words
 * are, so `feed:cafe` finds "Café Society"), `lang:` to the language rows of those codes (`pt`
 * names `pt-BR` and `pt-PT`; `pt-BR` only itself). A code no language of the service has is a
 * fault that names it and lists the codes there are.
 */
import { badArgument } from "../errors.js";
import type { PostFilter, SearchAtom, SearchQuery } from "../search/search-query.js";
import { isFilter } from "../search/search-query.js";
import { termPhrase } from "../search/term-phrase.js";
import { analyzeText } from "../search/text-analyzer.js";
import type { Store } from "../store/store.js";

/**
 * Feed names as search words, by name: a search with `feed:` reads every feed's name, and the
 * analyzer's work on a name is the same each time. Emptied when it holds more names than a
 * service has feeds (spec §4: up to 10,000), so renamed feeds do not pile up.
 */
const analyzedNames = new Map<string, readonly string[]>();
const MAX_ANALYZED_NAMES = 20_000;

function nameWords(name: string): readonly string[] {
  let words = analyzedNames.get(name);
  if (words === undefined) {
    if (analyzedNames.size >= MAX_ANALYZED_NAMES) analyzedNames.clear();
    words = analyzeText(name);
    analyzedNames.set(name, words);
  }
  return words;
}

type AnalyzedFeed = { id: number; words: readonly string[] };

/**
 * The feeds' names as search words, by the store's list: a store that keeps its names until a
 * feed changes (PostgreSQL: postgres-feed-names.ts) hands back the same list, analysed once.
 */
const analyzedLists = new WeakMap<readonly { feedId: number; feedName: string }[], AnalyzedFeed[]>();

function analyzedFeeds(names: readonly { feedId: number; feedName: string }[]): AnalyzedFeed[] {
  let feeds = analyzedLists.get(names);
  if (feeds === undefined) {
    feeds = names.map((f) => ({ id: f.feedId, words: nameWords(f.feedName) }));
    analyzedLists.set(names, feeds);
  }
  return feeds;
}

/** Whether `words` occur in `name`'s words in that order, next to each other (the last as a prefix). */
function nameHolds(name: readonly string[], words: readonly string[], prefix: boolean): boolean {
  for (let i = 0; i + words.length <= name.length; i++) {
    if (
      words.every((w, k) =>
        k === words.length - 1 && prefix ? name[i + k]!.startsWith(w) : name[i + k] === w,
      )
    ) {
      return true;
    }
  }
  return false;
}

function allFilters(query: SearchQuery): PostFilter[] {
  return [...(query.filterClauses ?? []).flat().filter(isFilter), ...(query.excludedFilters ?? [])];
}

/**
 * The query with every `feed:` and `lang:` filter carrying its ids (the query itself when it has
 * none, without reading the store).
 */
export async function resolveSearchFilters(store: Store, query: SearchQuery): Promise<SearchQuery> {
  const filters = allFilters(query);
  const needsFeeds = filters.some((f) => f.kind === "feed");
  const needsLanguages = filters.some((f) => f.kind === "lang");
  if (!needsFeeds && !needsLanguages) return query;
  const feeds = needsFeeds ? analyzedFeeds(await (store.feedNames?.() ?? store.feeds())) : [];
  const languages = needsLanguages ? await store.languages() : [];
  const resolve = <A extends SearchAtom>(atom: A): A => {
    if (!isFilter(atom)) return atom;
    if (atom.kind === "feed") {
      const feedIds = feeds.filter((f) => nameHolds(f.words, atom.words, atom.prefix)).map((f) => f.id);
      // The phrase the stores search is the words or fewer of them (termPhrase), so it is in
      // these names and maybe others': exact when no other name holds it.
      const phrase = termPhrase({ words: atom.words, prefix: atom.prefix });
      const phraseExact =
        phrase.length === atom.words.length ||
        feeds.filter((f) => nameHolds(f.words, phrase, atom.prefix)).length === feedIds.length;
      return { ...atom, feedIds, phraseExact };
    }
    if (atom.kind === "lang") {
      const languageIds: number[] = [];
      for (const code of atom.codes) {
        const hasSubtag = code.includes("-");
        const found = languages.filter((l) => {
          const own = l.languageCode.toLowerCase();
          return own === code || (!hasSubtag && own.split("-")[0] === code);
        });
        if (found.length === 0) {
          const known = languages.map((l) => l.languageCode).join(", ");
          throw badArgument(
            `The search operator lang:${atom.codes.join(",")} names ${code}, the code of no language this service knows; use codes such as lang:de or lang:de,fr (known: ${known}).`,
          );
        }
        languageIds.push(...found.map((l) => l.languageId));
      }
      return { ...atom, languageIds };
    }
    return atom;
  };
  return {
    ...query,
    ...(query.filterClauses ? { filterClauses: query.filterClauses.map((c) => c.map(resolve)) } : {}),
    ...(query.excludedFilters ? { excludedFilters: query.excludedFilters.map(resolve) } : {}),
  };
}

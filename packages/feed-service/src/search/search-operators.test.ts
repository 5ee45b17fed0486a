import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FeedServiceError } from "../errors.js";
import { parseSearchQuery } from "./parse-search-query.js";
import { foldLanguageClauses, type SearchAtom, type SearchQuery, usesOperators } from "./search-query.js";

/** An atom as short text: `t:` title-only, `*` prefix, filters by kind. */
function atom(a: SearchAtom): string {
  if (!("kind" in a)) return `${a.titleOnly ? "t:" : ""}${a.words.join(" ")}${a.prefix ? "*" : ""}`;
  if (a.kind === "feed") return `feed:${a.words.join(" ")}${a.prefix ? "*" : ""}`;
  if (a.kind === "lang") return `lang:${a.codes.join(",")}`;
  return `date:${a.from === null ? "" : new Date(a.from).toISOString()}..${a.until === null ? "" : new Date(a.until).toISOString()}`;
}

function shape(text: string) {
  const q = parseSearchQuery(text);
  return {
    and: [...q.clauses, ...(q.filterClauses ?? [])].map((c) => c.map(atom)),
    not: [...q.excluded, ...(q.excludedFilters ?? [])].map(atom),
  };
}

function faultOf(text: string): string {
  try {
    parseSearchQuery(text);
  } catch (error) {
    assert.ok(error instanceof FeedServiceError, String(error));
    assert.equal(error.code, "FEED_BAD_ARGUMENT");
    return error.message;
  }
  assert.fail(`${text} parsed without a fault`);
}

describe("search operators in parseSearchQuery", () => {
  it("reads word* as a prefix, analysed like words (case, accents, NFKC)", () => {
    assert.deepEqual(shape("postgres*"), { and: [["postgres*"]], not: [] });
    assert.deepEqual(shape("CRÈM*"), { and: [["crem*"]], not: [] });
    assert.deepEqual(shape("ＰＯＳＴ*"), { and: [["post*"]], not: [] }, "full-width letters fold by NFKC");
    assert.deepEqual(shape("type-scr*"), { and: [["type scr*"]], not: [] }, "the last word of a phrase");
    assert.deepEqual(shape("node.js*"), { and: [["node js"]], not: [] }, "js is too short a prefix");
    assert.deepEqual(shape('"open sou"*'), { and: [["open sou*"]], not: [] });
  });

  it("needs 3 characters before the star; in scripts without spaces the star adds nothing", () => {
    assert.deepEqual(shape("ab*"), { and: [["ab"]], not: [] });
    assert.deepEqual(shape("A* search"), { and: [["a"], ["search"]], not: [] });
    assert.deepEqual(shape("東京*"), { and: [["東 東京 京"]], not: [] });
    assert.deepEqual(shape("*"), { and: [], not: [] });
  });

  it("reads title: with a word, a prefix or a phrase", () => {
    assert.deepEqual(shape("title:Rust"), { and: [["t:rust"]], not: [] });
    assert.deepEqual(shape('title:"type guards" narrowing'), {
      and: [["t:type guards"], ["narrowing"]],
      not: [],
    });
    assert.deepEqual(shape("TITLE:rel*"), { and: [["t:rel*"]], not: [] });
    assert.deepEqual(shape("-title:draft rust"), { and: [["rust"]], not: ["t:draft"] });
  });

  it("reads feed:, lang:, after: and before: as filters", () => {
    assert.deepEqual(shape('feed:blog feed:"two words"'), {
      and: [["feed:blog"], ["feed:two words"]],
      not: [],
    });
    assert.deepEqual(shape("lang:de,FR"), { and: [["lang:de,fr"]], not: [] });
    assert.deepEqual(shape("lang:pt-BR"), { and: [["lang:pt-br"]], not: [] });
    assert.deepEqual(shape("after:2026-01-31 before:2026-02-01"), {
      and: [["date:2026-01-31T00:00:00.000Z.."], ["date:..2026-02-02T00:00:00.000Z"]],
      not: [],
    });
  });

  it("combines operators with AND, OR and - as words", () => {
    assert.deepEqual(shape("rust feed:blog OR lang:de -feed:spam"), {
      and: [["rust"], ["feed:blog", "lang:de"]],
      not: ["feed:spam"],
    });
    assert.deepEqual(shape("rust OR title:go"), { and: [["rust", "t:go"]], not: [] });
    assert.deepEqual(shape("feed:a OR feed:b OR rust"), { and: [["feed:a", "feed:b", "rust"]], not: [] });
  });

  it("is operators alone a valid query; unknown names and empty values are words", () => {
    const alone = parseSearchQuery("feed:blog after:2026-01-01");
    assert.equal(alone.clauses.length, 0);
    assert.equal(alone.filterClauses?.length, 2);
    assert.deepEqual(shape("http://example.org"), { and: [["http example org"]], not: [] });
    assert.deepEqual(shape("title: rust"), { and: [["title"], ["rust"]], not: [] });
    assert.deepEqual(shape("color:red"), { and: [["color red"]], not: [] });
  });

  it("tells word-only queries from those with operators", () => {
    assert.equal(usesOperators(parseSearchQuery('rust "a b" OR c -d')), false);
    for (const q of ["rust*", "title:x", "feed:x", "-feed:x", "lang:en", "after:2026-01-01", "-title:x a"]) {
      assert.equal(usesOperators(parseSearchQuery(q)), true, q);
    }
  });

  it("faults on a bad value, naming the operator and showing the accepted form", () => {
    assert.equal(
      faultOf("rust after:yesterday"),
      "The search operator after:yesterday needs a UTC day written YYYY-MM-DD, such as after:2026-01-31.",
    );
    assert.match(faultOf("before:2026-02-30"), /before:2026-02-30 needs a UTC day written YYYY-MM-DD/);
    assert.match(faultOf("before:2026-1-3"), /before:2026-1-3 needs/);
    assert.equal(
      faultOf("lang:1,de"),
      "The search operator lang:1,de needs language codes, such as lang:de or lang:de,fr.",
    );
    assert.match(faultOf('feed:"!!"'), /feed:"!!" holds no word of a feed's name; write feed:name/);
    assert.match(faultOf("-after:soon"), /after:soon/);
  });

  it("folds a lang: clause alone into the language list, unless the query is nothing else", () => {
    const resolved = (text: string, ids: number[]): SearchQuery => {
      const q = parseSearchQuery(text);
      const withIds = (a: SearchAtom) => ("kind" in a && a.kind === "lang" ? { ...a, languageIds: ids } : a);
      return { ...q, filterClauses: q.filterClauses?.map((c) => c.map(withIds)) };
    };
    const folded = foldLanguageClauses(resolved("rust lang:de,fr", [3, 4]), null);
    assert.deepEqual(folded, {
      query: { clauses: [[{ words: ["rust"] }]], excluded: [] },
      languageIds: [3, 4],
    });
    assert.deepEqual(foldLanguageClauses(resolved("rust lang:de,fr", [3, 4]), [4, 5]).languageIds, [4]);
    const alone = resolved("lang:de", [3]);
    assert.equal(foldLanguageClauses(alone, null).query, alone, "a query of lang: alone keeps it");
    const either = resolved("rust lang:de OR feed:x", [3]);
    assert.equal(foldLanguageClauses(either, null).query, either, "lang: in an OR stays a filter");
  });
});

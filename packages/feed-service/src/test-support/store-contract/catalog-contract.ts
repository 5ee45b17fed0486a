/** Contract: languages, categories and smart categories, with their orderings and rules. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { rejectsWith, type StoreFactory, withCorpus, withStore } from "./contract-fixture.js";

export function catalogContract(factory: StoreFactory): void {
  describe("languages", () => {
    it(
      "always has English as id 1 and Undetermined (und)",
      withStore(factory, async (store) => {
        const langs = await store.languages();
        assert.deepEqual(langs[0], { languageId: 1, languageName: "English", languageCode: "en" });
        assert.ok(langs.some((l) => l.languageCode === "und" && l.languageName === "Undetermined"));
        assert.deepEqual(await store.languageById(1), langs[0]);
        assert.equal(await store.languageById(9999), undefined);
      }),
    );

    it(
      "files tags by language, creates new rows with English names, lists by id",
      withStore(factory, async (store) => {
        assert.equal((await store.ensureLanguage("en-US")).languageId, 1);
        const ja = await store.ensureLanguage("JA");
        assert.deepEqual(ja, { languageId: ja.languageId, languageName: "Japanese", languageCode: "ja" });
        const named = await store.ensureLanguage("tlh", "Klingon");
        assert.equal(named.languageName, "Klingon");
        const ids = (await store.languages()).map((l) => l.languageId);
        assert.deepEqual(
          ids,
          [...ids].sort((a, b) => a - b),
        );
      }),
    );

    it(
      "files a regional tag under its language, whichever region came first",
      withStore(factory, async (store) => {
        const canadian = await store.ensureLanguage("fr-CA");
        assert.deepEqual(canadian, {
          languageId: canadian.languageId,
          languageName: "French",
          languageCode: "fr",
        });
        assert.deepEqual(await store.ensureLanguage("fr-FR"), canadian);
        assert.deepEqual(await store.ensureLanguage("fr"), canadian);
        const mexican = await store.ensureLanguage("es-MX");
        assert.deepEqual([mexican.languageCode, mexican.languageName], ["es", "Spanish"]);
        assert.equal((await store.ensureLanguage("es-ES")).languageId, mexican.languageId);
        assert.equal((await store.ensureLanguage("es-419")).languageId, mexican.languageId);
        const undetermined = await store.ensureLanguage("und");
        assert.deepEqual([undetermined.languageCode, undetermined.languageName], ["und", "Undetermined"]);
      }),
    );

    it(
      "keeps Portuguese and Chinese apart by written standard",
      withStore(factory, async (store) => {
        const filed = async (tag: string) => {
          const row = await store.ensureLanguage(tag);
          return `${row.languageCode} ${row.languageName}`;
        };
        assert.equal(await filed("pt-br"), "pt-BR Brazilian Portuguese");
        assert.equal(await filed("pt-PT"), "pt-PT European Portuguese");
        // Every country but Brazil writes the European standard; plain pt says neither.
        assert.equal(await filed("pt-AO"), "pt-PT European Portuguese");
        assert.equal(await filed("pt"), "pt Portuguese");
        assert.equal(await filed("zh-CN"), "zh-Hans Simplified Chinese");
        assert.equal(await filed("zh-SG"), "zh-Hans Simplified Chinese");
        assert.equal(await filed("zh-Hans"), "zh-Hans Simplified Chinese");
        assert.equal(await filed("zh-TW"), "zh-Hant Traditional Chinese");
        assert.equal(await filed("zh-HK"), "zh-Hant Traditional Chinese");
        assert.equal(await filed("zh-MO"), "zh-Hant Traditional Chinese");
        assert.equal(await filed("zh-Hant-HK"), "zh-Hant Traditional Chinese");
        assert.equal(await filed("zh"), "zh Chinese");
        const codes = (await store.languages()).map((l) => l.languageCode);
        assert.equal(new Set(codes).size, codes.length, `one row per filing tag: ${codes}`);
      }),
    );

    it(
      "refuses what is not a language tag, naming it",
      withStore(factory, async (store) => {
        await assert.rejects(
          store.ensureLanguage("not a tag"),
          rejectsWith("FEED_BAD_ARGUMENT", /"not a tag"/),
        );
        await assert.rejects(store.ensureLanguage(""), rejectsWith("FEED_BAD_ARGUMENT", /BCP 47/));
      }),
    );
  });

  describe("categories", () => {
    it(
      "lists by Unicode lower-case name then id, with feed counts",
      withCorpus(factory, async ({ store, cat }) => {
        const zeta = await store.addCategory("Zeta");
        const accented = await store.addCategory("Ébauches");
        const cats = await store.categories();
        assert.deepEqual(
          cats.map((c) => c.categoryName),
          ["databases", "Web", "Zeta", "Ébauches"],
        );
        assert.deepEqual(cats[1], { categoryId: cat.web, categoryName: "Web", feedCount: 2 });
        assert.equal(cats[2]!.feedCount, 0);
        assert.deepEqual(await store.categoryById(zeta.categoryId), zeta);
        assert.equal(accented.categoryName, "Ébauches");
        assert.equal(await store.categoryById(9999), undefined);
      }),
    );

    it(
      "refuses a duplicate name in any case, and an empty one",
      withCorpus(factory, async ({ store }) => {
        await assert.rejects(store.addCategory("WEB"), rejectsWith("FEED_CONFLICT", /"WEB" already exists/));
        await assert.rejects(store.addCategory("   "), rejectsWith("FEED_BAD_ARGUMENT", /category name/));
      }),
    );

    it(
      "removes a category, leaving its feeds without one",
      withCorpus(factory, async ({ store, cat, feed }) => {
        assert.equal(await store.removeCategory(cat.web), true);
        assert.equal(await store.removeCategory(cat.web), false);
        assert.equal((await store.feedById(feed.alpha))?.categoryId, null);
        assert.deepEqual(await store.feeds({ categoryId: cat.web }), []);
      }),
    );
  });

  describe("smart categories", () => {
    it(
      "adds with a generated or given key, finds by id and by key in any case, lists by name",
      withStore(factory, async (store) => {
        const b = await store.addSmartCategory({ name: "beta", query: "rust OR go" });
        assert.match(b.smartCategoryKey, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
        const key = "3F2504E0-4F89-11D3-9A0C-0305E82C3301";
        const a = await store.addSmartCategory({ name: "Alpha", query: "TypeScript OR JavaScript", key });
        assert.equal(a.smartCategoryKey, key.toLowerCase());
        assert.deepEqual(await store.smartCategoryByKey(key), a);
        assert.deepEqual(await store.smartCategoryById(b.smartCategoryId), b);
        assert.equal(await store.smartCategoryByKey("00000000-0000-0000-0000-000000000000"), undefined);
        assert.deepEqual(
          (await store.smartCategories()).map((s) => s.smartCategoryName),
          ["Alpha", "beta"],
        );
        assert.equal(await store.removeSmartCategory(b.smartCategoryId), true);
        assert.equal(await store.smartCategoryById(b.smartCategoryId), undefined);
        assert.equal(await store.removeSmartCategory(b.smartCategoryId), false);
      }),
    );

    it(
      "refuses a malformed or duplicate key and an empty name or query",
      withStore(factory, async (store) => {
        await assert.rejects(
          store.addSmartCategory({ name: "x", query: "y", key: "not-a-uuid" }),
          rejectsWith("FEED_BAD_ARGUMENT", /UUID.*"not-a-uuid"/),
        );
        const key = "3f2504e0-4f89-11d3-9a0c-0305e82c3301";
        await store.addSmartCategory({ name: "x", query: "y", key });
        await assert.rejects(
          store.addSmartCategory({ name: "z", query: "y", key }),
          rejectsWith("FEED_CONFLICT"),
        );
        await assert.rejects(
          store.addSmartCategory({ name: "", query: "y" }),
          rejectsWith("FEED_BAD_ARGUMENT"),
        );
        await assert.rejects(
          store.addSmartCategory({ name: "x", query: " " }),
          rejectsWith("FEED_BAD_ARGUMENT"),
        );
      }),
    );
  });
}

/**
 * Every fault rule of spec §3/§4 through the running service: a Server.userException whose
 * message names the parameter, the value and what is allowed, with the typed detail that makes
 * Axis stubs throw ComponentInvocationException; Client faults for what is not a call at all.
 *
 * The suite runs once per backend (SQLite and PostgreSQL): one body, the same assertions.
 *
 * @example
 * soapFaultsSuite(sqliteBackend);
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type Fixture, type RunningService, seedFixture, startTestService } from "./service-fixture.js";
import { type ArgumentXml, callOperation, postSoap } from "./soap-test-client.js";
import type { TestBackend } from "./test-backends.js";

export function soapFaultsSuite(backend: TestBackend): void {
  describe(`SOAP faults (${backend.name})`, () => {
    let service: RunningService;
    let fx: Fixture;

    before(async () => {
      service = await startTestService({ backend });
      fx = await seedFixture(service.store);
    });
    after(() => service.close());

    async function userFault(
      op: string,
      args: Record<string, ArgumentXml>,
      message: string | RegExp,
    ): Promise<void> {
      const r = await callOperation(service.baseUrl, op, args);
      assert.equal(r.status, 500, `${op} answered ${r.status}`);
      assert.equal(r.contentType, "text/xml; charset=utf-8");
      assert.ok(r.fault, `${op} did not fault`);
      assert.equal(r.fault.code, "soapenv:Server.userException");
      const text = r.fault.string.replace(/^ComponentInvocationException: /, "");
      assert.ok(r.fault.string.startsWith("ComponentInvocationException: "), r.fault.string);
      if (typeof message === "string") assert.equal(text, message);
      else assert.match(text, message);
      assert.match(r.fault.detail, /^fault:.*ComponentInvocationException.*:0$/);
      assert.doesNotMatch(r.body, /\bat \S+ \(|\/work\/|SELECT |sqlite/i);
    }

    const page = { limit: 10, offset: 0, languageIds: "" };

    test("limit, offset and missing parameters", async () => {
      await userFault(
        "getMostRecentPosts",
        { ...page, limit: -1 },
        "The limit argument must be a whole number from 0 to 1000; got -1.",
      );
      await userFault(
        "getMostRecentPosts",
        { ...page, limit: 1001 },
        /limit argument must be a whole number from 0 to 1000; got 1001\./,
      );
      await userFault("getMostRecentPosts", { ...page, limit: 2.5 }, /got 2\.5\./);
      await userFault(
        "getMostRecentPosts",
        { ...page, offset: -1 },
        "The offset argument must be a whole number of 0 or more; got -1.",
      );
      await userFault("getMostRecentPosts", { offset: 0, languageIds: "" }, /The limit argument is required/);
      await userFault("getPostsByFeed", { limit: 1, offset: 0 }, /The feedId argument is required/);
    });

    test("daysBack windows", async () => {
      await userFault(
        "getMostPopularPosts",
        { daysBack: 0, limit: 5, categoryId: null },
        /daysBack argument must be a number of days greater than 0 and at most 36500.*got 0\./,
      );
      await userFault("getMostPopularFeeds", { daysBack: 36500.5, limit: 5 }, /got 36500\.5\./);
      await userFault("getMostProlificFeeds", { daysBack: -1, limit: 5 }, /got -1\./);
    });

    test("languageIds", async () => {
      await userFault(
        "getMostRecentPosts",
        { ...page, languageIds: "1,en" },
        /languageIds argument must be .*got "1,en", where "en" is not a whole number\./,
      );
      const many = Array.from({ length: 101 }, (_, i) => i + 1).join(",");
      await userFault(
        "getMostRecentPosts",
        { ...page, languageIds: many },
        /at most 100 whole numbers.*got 101 ids/,
      );
    });

    test("ids that name nothing", async () => {
      await userFault(
        "getPostsByCategory",
        { ...page, categoryId: 99, sincepost: null },
        "No category has id 99.",
      );
      await userFault(
        "getPostsByCategory",
        { ...page, categoryId: 1.5, sincepost: null },
        "The categoryId argument must be a whole number (an id); got 1.5.",
      );
      await userFault("getPostsByFeed", { limit: 5, offset: 0, feedId: 99 }, "No feed has id 99.");
      await userFault("getFeedsByCategory", { categoryId: 99 }, "No category has id 99.");
      await userFault("getFeedsByLanguage", { languageId: 99 }, "No language has id 99.");
      await userFault(
        "getMostPopularPosts",
        { daysBack: 1, limit: 5, categoryId: "99" },
        "No category has id 99.",
      );
      await userFault(
        "getMostPopularPosts",
        { daysBack: 1, limit: 5, categoryId: "news" },
        /categoryId argument must be empty \(no restriction\) or a whole number \(an id\); got "news"\./,
      );
    });

    test("smart category key and id rules", async () => {
      const base = { ...page };
      await userFault(
        "getPostsBySmartCategory",
        { ...base, smartCategoryId: 99, smartCategoryKey: "" },
        "No smart category has id 99.",
      );
      await userFault(
        "getPostsBySmartCategory",
        { ...base, smartCategoryId: 0, smartCategoryKey: "00000000-0000-4000-8000-000000000000" },
        'No smart category has key "00000000-0000-4000-8000-000000000000".',
      );
      await userFault(
        "getPostsBySmartCategory",
        { ...base, smartCategoryId: fx.smart.id + 1, smartCategoryKey: fx.smart.key },
        `The smartCategoryId argument must be 0 or ${fx.smart.id} (the id of the smart category with key "${fx.smart.key}"); got ${fx.smart.id + 1}.`,
      );
    });

    test("sincepost, sortBy and searchTerms", async () => {
      const cat = { ...page, categoryId: fx.categories.apple };
      await userFault(
        "getPostsByCategory",
        { ...cat, sincepost: "yesterday" },
        /sincepost argument must be empty, a whole post id such as 1234, or an ISO 8601 instant .*got "yesterday"\./,
      );
      await userFault(
        "getPostsByCategory",
        { ...cat, sincepost: "2024-02-30T00:00:00" },
        /got "2024-02-30T00:00:00"\./,
      );
      const search = { ...page, searchTerms: "flex", sortBy: "" };
      await userFault(
        "search",
        { ...search, sortBy: "title" },
        /sortBy argument must be one of "relevance" .* "date" or "clicks"; got "title"\./,
      );
      await userFault(
        "search",
        { ...search, searchTerms: "   " },
        /searchTerms argument must be text of 1 to 256 characters after trimming; got empty text\./,
      );
      await userFault("search", { ...search, searchTerms: "x".repeat(257) }, /got 257 characters\./);
    });

    test("what is not a call: unknown operation, malformed XML, not an envelope, DOCTYPE — Client faults", async () => {
      const unknown = await callOperation(service.baseUrl, "dropAllTables", {});
      assert.equal(unknown.status, 500);
      assert.equal(unknown.fault?.code, "soapenv:Client");
      assert.match(unknown.fault!.string, /dropAllTables/);
      const url = `${service.baseUrl}/webservices/FeedAggregator`;
      const malformed = await postSoap(url, "<soapenv:Envelope><unclosed>");
      assert.equal(malformed.status, 500);
      assert.equal(malformed.fault?.code, "soapenv:Client");
      assert.match(malformed.fault!.string, /well-formed/i);
      const notEnvelope = await postSoap(url, "<hello/>");
      assert.equal(notEnvelope.fault?.code, "soapenv:Client");
      const doctype =
        '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>' +
        '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body>' +
        "<getSearchHistory>&lol2;</getSearchHistory></soapenv:Body></soapenv:Envelope>";
      const refused = await postSoap(url, doctype);
      assert.equal(refused.status, 500);
      assert.equal(refused.fault?.code, "soapenv:Client");
      assert.match(refused.fault!.string, /DOCTYPE/i);
      assert.doesNotMatch(refused.body, /lollol/);
    });
  });
}

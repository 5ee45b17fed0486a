import assert from "node:assert/strict";
import { test } from "node:test";
import { FeedServiceError } from "../errors.js";
import {
  parseIsoInstant,
  readDaysBackMs,
  readId,
  readLanguageIds,
  readLimit,
  readOffset,
  readOptionalAnyTypeId,
  readSearchTerms,
  readSincePost,
  readSortBy,
} from "./argument-readers.js";

function fault(fn: () => unknown, message: RegExp | string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof FeedServiceError);
    assert.equal(err.code, "FEED_BAD_ARGUMENT");
    if (typeof message === "string") assert.equal(err.message, message);
    else assert.match(err.message, message);
    return true;
  });
}

test("limit: 0..1000 whole numbers, with the spec's message for anything else", () => {
  assert.equal(readLimit({ limit: 0 }), 0);
  assert.equal(readLimit({ limit: 1000 }), 1000);
  fault(() => readLimit({ limit: -1 }), "The limit argument must be a whole number from 0 to 1000; got -1.");
  fault(() => readLimit({ limit: 1001 }), /got 1001\.$/);
  fault(() => readLimit({ limit: 2.5 }), /got 2\.5\.$/);
  fault(() => readLimit({ limit: Number.NaN }), /got NaN\.$/);
  fault(
    () => readLimit({}),
    "The limit argument is required (a whole number from 0 to 1000) but was not sent.",
  );
  fault(() => readLimit({ limit: null }), /got nil\.$/);
});

test("offset: whole numbers from 0", () => {
  assert.equal(readOffset({ offset: 0 }), 0);
  assert.equal(readOffset({ offset: 123456 }), 123456);
  fault(
    () => readOffset({ offset: -3 }),
    /The offset argument must be a whole number of 0 or more; got -3\./,
  );
});

test("daysBack: > 0 and ≤ 36500, fractions allowed, returned as milliseconds", () => {
  assert.equal(readDaysBackMs({ daysBack: 0.5 }), 12 * 3600_000);
  assert.equal(readDaysBackMs({ daysBack: 36500 }), 36500 * 86_400_000);
  fault(
    () => readDaysBackMs({ daysBack: 0 }),
    /daysBack argument must be a number of days greater than 0.*got 0\./,
  );
  fault(() => readDaysBackMs({ daysBack: 36500.5 }), /got 36500\.5\./);
  fault(() => readDaysBackMs({ daysBack: Number.POSITIVE_INFINITY }), /got Infinity\./);
});

test("languageIds: blank is every language; spaces allowed; at most 100; duplicates folded", () => {
  assert.equal(readLanguageIds({ languageIds: "" }), null);
  assert.equal(readLanguageIds({ languageIds: "   " }), null);
  assert.equal(readLanguageIds({ languageIds: null }), null);
  assert.deepEqual(readLanguageIds({ languageIds: "1, 2 ,3,2" }), [1, 2, 3]);
  assert.deepEqual(readLanguageIds({ languageIds: "999" }), [999]);
  const hundred = Array.from({ length: 100 }, (_, i) => i + 1).join(",");
  assert.equal(readLanguageIds({ languageIds: hundred })?.length, 100);
  fault(() => readLanguageIds({ languageIds: `${hundred},101` }), /at most 100 whole numbers.*got 101 ids/);
  fault(() => readLanguageIds({ languageIds: "1,x" }), /got "1,x", where "x" is not a whole number\./);
  fault(() => readLanguageIds({ languageIds: "1,,2" }), /where "" is not a whole number/);
  fault(() => readLanguageIds({ languageIds: "1.5" }), /"1\.5" is not a whole number/);
});

test("ids: whole numbers; sortBy and searchTerms rules", () => {
  assert.equal(readId({ feedId: 7 }, "feedId"), 7);
  fault(
    () => readId({ feedId: 7.5 }, "feedId"),
    "The feedId argument must be a whole number (an id); got 7.5.",
  );
  assert.equal(readSortBy({ sortBy: "" }), "relevance");
  assert.equal(readSortBy({ sortBy: "DATE" }), "date");
  assert.equal(readSortBy({ sortBy: " Clicks " }), "clicks");
  fault(() => readSortBy({ sortBy: "title" }), /"relevance".*"date".*"clicks"; got "title"\./);
  assert.equal(readSearchTerms({ searchTerms: "  flex  " }), "flex");
  fault(
    () => readSearchTerms({ searchTerms: "   " }),
    /1 to 256 characters after trimming; got empty text\./,
  );
  fault(() => readSearchTerms({ searchTerms: "x".repeat(257) }), /got 257 characters\./);
  assert.equal(readSearchTerms({ searchTerms: "é".repeat(256) }).length, 256);
});

test("anyType categoryId: nil, empty or absent means no restriction", () => {
  assert.equal(readOptionalAnyTypeId({}, "categoryId"), null);
  assert.equal(readOptionalAnyTypeId({ categoryId: null }, "categoryId"), null);
  assert.equal(readOptionalAnyTypeId({ categoryId: " " }, "categoryId"), null);
  assert.equal(readOptionalAnyTypeId({ categoryId: "3" }, "categoryId"), 3);
  assert.equal(readOptionalAnyTypeId({ categoryId: "3.0" }, "categoryId"), 3);
  fault(() => readOptionalAnyTypeId({ categoryId: "news" }, "categoryId"), /got "news"\./);
});

test("sincepost: id as N or N.0, otherwise an ISO 8601 instant (no zone = UTC), else a fault", () => {
  assert.deepEqual(readSincePost({}), { sincePostId: null, sinceDate: null });
  assert.deepEqual(readSincePost({ sincepost: "" }), { sincePostId: null, sinceDate: null });
  assert.deepEqual(readSincePost({ sincepost: "42" }), { sincePostId: 42, sinceDate: null });
  assert.deepEqual(readSincePost({ sincepost: "42.0" }), { sincePostId: 42, sinceDate: null });
  assert.deepEqual(readSincePost({ sincepost: 42 }), { sincePostId: 42, sinceDate: null });
  const at = Date.UTC(2024, 4, 1, 12, 0, 0);
  assert.deepEqual(readSincePost({ sincepost: "2024-05-01T12:00:00" }), { sincePostId: null, sinceDate: at });
  assert.deepEqual(readSincePost({ sincepost: "2024-05-01T12:00:00Z" }).sinceDate, at);
  assert.deepEqual(readSincePost({ sincepost: "2024-05-01T14:00:00.000+02:00" }).sinceDate, at);
  assert.deepEqual(readSincePost({ sincepost: "2024-05-01" }).sinceDate, Date.UTC(2024, 4, 1));
  fault(() => readSincePost({ sincepost: "yesterday" }), /sincepost argument must be .* got "yesterday"\./);
  fault(() => readSincePost({ sincepost: "42.5" }), /got "42\.5"\./);
  fault(() => readSincePost({ sincepost: "2024-02-30" }), /got "2024-02-30"\./);
  fault(() => readSincePost({ sincepost: "March 7" }), /got "March 7"\./);
});

test("parseIsoInstant is strict about fields and zones", () => {
  assert.equal(parseIsoInstant("2024-05-01T12:00:00.123456Z"), Date.UTC(2024, 4, 1, 12, 0, 0, 123));
  assert.equal(parseIsoInstant("2024-05-01T12:00-0130"), Date.UTC(2024, 4, 1, 13, 30));
  assert.equal(parseIsoInstant("2024-13-01"), undefined);
  assert.equal(parseIsoInstant("2024-05-01T25:00"), undefined);
  assert.equal(parseIsoInstant("2024-05-01T12:00+25:00"), undefined);
});

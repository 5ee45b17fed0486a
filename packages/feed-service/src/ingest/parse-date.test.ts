import assert from "node:assert/strict";
import { test } from "node:test";
import { parseFeedDate } from "./parse-date.js";

const cases: Array<[string, string | null]> = [
  ["Sat, 07 Sep 2002 00:00:01 GMT", "2002-09-07T00:00:01.000Z"],
  ["Sat, 07 Sep 2002 00:00:01 +0100", "2002-09-06T23:00:01.000Z"],
  ["Thu, 01 Jan 2004 19:48:21 EST", "2004-01-02T00:48:21.000Z"],
  ["Thu, 01 Jan 2004 19:48:21 PDT", "2004-01-02T02:48:21.000Z"],
  ["01 Jan 2004 19:48 Z", "2004-01-01T19:48:00.000Z"],
  ["Thu, 01 Jan 04 19:48:21 GMT", "2004-01-01T19:48:21.000Z"],
  ["Thu, 1 January 2004 19:48:21 GMT", "2004-01-01T19:48:21.000Z"],
  ["Sun, 16 Dec 2012 1:2:3 A", null],
  ["Thu, 01 Jan 2004 19:48:21 A", "2004-01-01T18:48:21.000Z"],
  ["2003-12-13T18:30:02Z", "2003-12-13T18:30:02.000Z"],
  ["2003-12-13T18:30:02.25+01:00", "2003-12-13T17:30:02.250Z"],
  ["2003-12-13T18:30:02", "2003-12-13T18:30:02.000Z"],
  ["2003-12-13", "2003-12-13T00:00:00.000Z"],
  ["2003-12", "2003-12-01T00:00:00.000Z"],
  ["20031213T183002Z", "2003-12-13T18:30:02.000Z"],
  ["2003-12-13 18:30:02 -0500", "2003-12-13T23:30:02.000Z"],
  ["not a date", null],
  ["", null],
];

test("parseFeedDate reads RFC 822 and ISO 8601 variants", () => {
  for (const [input, expected] of cases) {
    const got = parseFeedDate(input);
    assert.equal(got === null ? null : new Date(got).toISOString(), expected, input);
  }
});

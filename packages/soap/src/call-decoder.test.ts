import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { decodeCall } from "./call-decoder.js";
import { readEnvelope } from "./envelope-reader.js";
import type { OperationSpec } from "./service-types.js";
import { SoapError } from "./soap-error.js";

const search: OperationSpec = {
  name: "search",
  parameters: [
    { name: "limit", type: "double" },
    { name: "searchTerms", type: "string" },
    { name: "sincepost", type: "anyType" },
  ],
  columns: [{ name: "postId", type: "int" }],
};
const getFeeds: OperationSpec = {
  name: "getFeeds",
  parameters: [],
  columns: [{ name: "feedId", type: "int" }],
};
const operations = new Map([
  [search.name, search],
  [getFeeds.name, getFeeds],
]);

const ns =
  'xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ' +
  'xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:enc="http://schemas.xmlsoap.org/soap/encoding/"';

function decode(body: string) {
  return decodeCall(readEnvelope(`<s:Envelope ${ns}><s:Body>${body}</s:Body></s:Envelope>`), operations);
}

function args(params: string) {
  return decode(`<m:search xmlns:m="http://webservices">${params}</m:search>`).args;
}

function refusal(body: string, code: string, message: RegExp) {
  assert.throws(
    () => decode(body),
    (e: unknown) => e instanceof SoapError && e.code === code && message.test(e.message),
  );
}

describe("call decoding", () => {
  test("no-argument calls as <op/>, <op></op> and <op xsi:nil='true'/>", () => {
    for (const call of [
      "<getFeeds/>",
      "<x:getFeeds xmlns:x='urn:any'></x:getFeeds>",
      '<getFeeds xsi:nil="true"/>',
    ]) {
      const decoded = decode(call);
      assert.equal(decoded.operation, getFeeds);
      assert.deepEqual(decoded.args, {});
    }
  });

  test("base64-typed text (SOAP::Lite's raw API for any non-ASCII string) is read as UTF-8", () => {
    const b64 = Buffer.from("Grüße, 東京 😀").toString("base64");
    assert.deepEqual(
      args(
        `<c-gensym3 xsi:type="xsd:double">2</c-gensym3><c-gensym5 xsi:type="xsd:base64Binary">${b64}</c-gensym5>` +
          `<c-gensym7 xsi:type="enc:base64">${Buffer.from(" 7 ").toString("base64")}</c-gensym7>`,
      ),
      { limit: 2, searchTerms: "Grüße, 東京 😀", sincepost: "7" },
    );
    // Only the base64 types change how text is read; an unresolvable other type stays ignored.
    assert.equal(
      args('<searchTerms xsi:type="b:base64Binary" xmlns:b="urn:other">QQ==</searchTerms>').searchTerms,
      "QQ==",
    );
    assert.equal(args('<searchTerms xsi:type="nope:string">QQ==</searchTerms>').searchTerms, "QQ==");
    refusal(
      '<search><searchTerms xsi:type="xsd:base64Binary">not base64!</searchTerms></search>',
      "SOAP_BAD_ARGUMENT",
      /searchTerms argument is typed base64Binary but is not base64; got "not base64!"/,
    );
    refusal(
      `<search><searchTerms xsi:type="xsd:base64Binary">${Buffer.from([0xff, 0xfe]).toString("base64")}</searchTerms></search>`,
      "SOAP_BAD_ARGUMENT",
      /its bytes are not UTF-8 text/,
    );
  });

  test("doubles as 2, 2.0, -1, 1e3, with or without xsi:type of any prefix", () => {
    const cases: Array<[string, number]> = [
      ["<limit>2</limit>", 2],
      ['<limit xsi:type="xsd:double">2.0</limit>', 2],
      ['<limit xmlns:q="http://www.w3.org/2001/XMLSchema" xsi:type="q:int">-1</limit>', -1],
      ["<limit>1e3</limit>", 1000],
      ["<limit> 2.5 </limit>", 2.5],
      ["<limit>+1</limit>", 1],
      ["<limit>.5</limit>", 0.5],
      ['<limit xsi:type="xsd:string">7</limit>', 7],
    ];
    for (const [xml, value] of cases) assert.equal(args(xml).limit, value, xml);
  });

  test("empty strings as <p/>, <p></p>, <p xsi:type='xsd:string'/>, and nil strings as the empty string", () => {
    for (const xml of [
      "<searchTerms/>",
      "<searchTerms></searchTerms>",
      '<searchTerms xsi:type="xsd:string"/>',
      '<searchTerms xsi:nil="true"/>',
      '<searchTerms xsi:nil="1" xsi:type="xsd:string"/>',
    ]) {
      assert.equal(args(xml).searchTerms, "", xml);
    }
    assert.equal(args("<searchTerms>  a &amp; b <![CDATA[<c>]]></searchTerms>").searchTerms, "  a & b <c>");
  });

  test("anyType: nil, empty or blank means null; otherwise the trimmed text, whatever its xsi:type", () => {
    for (const xml of ['<sincepost xsi:nil="true"/>', "<sincepost/>", "<sincepost>  </sincepost>"]) {
      assert.equal(args(xml).sincepost, null, xml);
    }
    assert.equal(args('<sincepost xsi:type="xsd:double">42.0</sincepost>').sincepost, "42.0");
    assert.equal(
      args('<sincepost xsi:type="xsd:dateTime"> 2024-01-02T03:04:05Z </sincepost>').sincepost,
      "2024-01-02T03:04:05Z",
    );
  });

  test("a parameter not sent at all is undefined; extra elements are ignored", () => {
    assert.deepEqual(args("<limit>3</limit><unknown>x</unknown><other/>"), {
      limit: 3,
      searchTerms: undefined,
      sincepost: undefined,
    });
  });

  test("parameters by name in any order, or by position when no name matches (SOAP::Lite c-gensym)", () => {
    assert.deepEqual(args("<sincepost>9</sincepost><searchTerms>x</searchTerms><limit>1</limit>"), {
      limit: 1,
      searchTerms: "x",
      sincepost: "9",
    });
    assert.deepEqual(args("<c-gensym3>5</c-gensym3><c-gensym5>term</c-gensym5><c-gensym7/>"), {
      limit: 5,
      searchTerms: "term",
      sincepost: null,
    });
    // One declared name means the client names its parameters: `arg0` is then an ignored extra.
    assert.deepEqual(args("<arg0>hello</arg0><limit>4</limit>"), {
      limit: 4,
      searchTerms: undefined,
      sincepost: undefined,
    });
  });

  test("href parameters resolve against multiRef siblings in any order, including nil ones", () => {
    const decoded = decode(
      '<multiRef id="id2" enc:root="0" xsi:type="xsd:string">late</multiRef>' +
        '<m:search xmlns:m="http://webservices"><limit href="#id0"/><searchTerms href="#id2"/><sincepost href="#id1"/></m:search>' +
        '<multiRef id="id1" enc:root="0" xsi:nil="true"/>' +
        '<multiRef id="id0" enc:root="0" xsi:type="xsd:double">2.0</multiRef>',
    );
    assert.equal(decoded.operation, search);
    assert.deepEqual(decoded.args, { limit: 2, searchTerms: "late", sincepost: null });
  });

  test("the call element is the first Body child not marked soapenc:root='0'", () => {
    const decoded = decode('<multiRef id="a" enc:root="0">1</multiRef><getFeeds/><search/>');
    assert.equal(decoded.operation, getFeeds);
  });

  test("refusals name the parameter, the value received and what is allowed", () => {
    refusal(
      "<search><limit>ten</limit></search>",
      "SOAP_BAD_ARGUMENT",
      /^The limit argument must be a number .*; got "ten"\.$/,
    );
    refusal("<search><limit>INF</limit></search>", "SOAP_BAD_ARGUMENT", /limit.*"INF"/);
    refusal("<search><limit>0x10</limit></search>", "SOAP_BAD_ARGUMENT", /limit.*"0x10"/);
    refusal("<search><limit/></search>", "SOAP_BAD_ARGUMENT", /limit.*got ""/);
    refusal('<search><limit xsi:nil="true"/></search>', "SOAP_BAD_ARGUMENT", /limit.*got nil/);
    refusal(
      "<search><searchTerms><a>1</a></searchTerms></search>",
      "SOAP_BAD_ARGUMENT",
      /searchTerms.*child elements/,
    );
    refusal('<search><limit href="#nope"/></search>', "SOAP_BAD_REFERENCE", /limit.*#nope.*no element/);
    refusal(
      '<search><limit href="#a"/></search><multiRef id="a" href="#a"/>',
      "SOAP_BAD_REFERENCE",
      /limit.*more than 8 href/,
    );
    refusal(
      "<deleteEverything/>",
      "SOAP_UNKNOWN_OPERATION",
      /"deleteEverything".*operations are: search, getFeeds\./,
    );
    refusal('<multiRef id="a" enc:root="0"/>', "SOAP_NOT_ENVELOPE", /no call element/);
    refusal("", "SOAP_NOT_ENVELOPE", /no call element/);
  });

  test("a long received value is shortened in the message", () => {
    assert.throws(
      () => args(`<limit>${"9".repeat(500)}x</limit>`),
      (e: unknown) => e instanceof SoapError && e.message.length < 160 && e.message.includes("..."),
    );
  });
});

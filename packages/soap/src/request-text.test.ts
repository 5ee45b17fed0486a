import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeRequestText } from "./request-text.js";
import { SoapError } from "./soap-error.js";
import { joinSurrogateReferences } from "./surrogate-references.js";

const doc = (declaration: string) => `<?xml version="1.0"${declaration}?><a>Grüße – 東京</a>`;

test("UTF-8 by default, with or without a byte order mark", () => {
  assert.equal(decodeRequestText(Buffer.from(doc(""))), doc(""));
  assert.equal(
    decodeRequestText(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(doc(""))])),
    doc(""),
  );
});

test("the Content-Type charset wins over the XML declaration (RFC 7303 §3.2)", () => {
  const latin = '<?xml version="1.0" encoding="UTF-8"?><a>Köln</a>';
  assert.equal(decodeRequestText(Buffer.from(latin, "latin1"), 'text/xml; charset="ISO-8859-1"'), latin);
});

test("the XML declaration's encoding when the Content-Type names none", () => {
  const xml = '<?xml version="1.0" encoding="ISO-8859-1"?><a>Köln</a>';
  assert.equal(decodeRequestText(Buffer.from(xml, "latin1"), "text/xml"), xml);
});

test("UTF-16 by its byte order mark", () => {
  const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(doc(' encoding="UTF-16"'), "utf16le")]);
  assert.equal(decodeRequestText(bytes, "text/xml"), doc(' encoding="UTF-16"'));
});

test("refuses invalid bytes and unknown charsets with a message that says which", () => {
  assert.throws(
    () => decodeRequestText(Buffer.from([0x3c, 0x61, 0x3e, 0xff, 0x3c]), "text/xml; charset=utf-8"),
    (e: unknown) =>
      e instanceof SoapError && e.code === "SOAP_MALFORMED_XML" && /not valid UTF-8/.test(e.message),
  );
  assert.throws(
    () => decodeRequestText(Buffer.from("<a/>"), "text/xml; charset=klingon-1"),
    (e: unknown) =>
      e instanceof SoapError && e.code === "SOAP_UNSUPPORTED_CHARSET" && /"klingon-1".*UTF-8/.test(e.message),
  );
});

test("surrogate-pair references (Axis 1.x's astral characters) become the character; others stay", () => {
  assert.equal(joinSurrogateReferences("<t>&#xD83D;&#xDE00; &#55357;&#56832;</t>"), "<t>😀 😀</t>");
  assert.equal(joinSurrogateReferences("<t>&#xFC;&#xDF;</t>"), "<t>&#xFC;&#xDF;</t>");
  // Axis writes every non-ASCII character as a reference: the pair may follow another one.
  assert.equal(
    joinSurrogateReferences("<t>&#xFC;&#xD83D;&#xDE00;&#252;&#55357;&#56832;</t>"),
    "<t>&#xFC;😀&#252;😀</t>",
  );
  // Every high and low surrogate, at the edges of their ranges, in both notations.
  for (const [h, l] of [
    [0xd800, 0xdc00],
    [0xdbff, 0xdfff],
    [0xd83d, 0xde00],
  ] as const) {
    const expected = `<t>${String.fromCharCode(h, l)}</t>`;
    assert.equal(joinSurrogateReferences(`<t>&#x${h.toString(16)};&#x${l.toString(16)};</t>`), expected);
    assert.equal(joinSurrogateReferences(`<t>&#${h};&#${l};</t>`), expected);
  }
  assert.equal(joinSurrogateReferences("<t>&#55295;&#56320;</t>"), "<t>&#55295;&#56320;</t>");
  assert.equal(joinSurrogateReferences("<t>&#55296;&#57344;</t>"), "<t>&#55296;&#57344;</t>");
  // A lone or reversed surrogate is left for the parser to refuse.
  assert.equal(joinSurrogateReferences("<t>&#xDE00;&#xD83D;</t>"), "<t>&#xDE00;&#xD83D;</t>");
  assert.equal(joinSurrogateReferences("<t>&#xD83D;x</t>"), "<t>&#xD83D;x</t>");
});

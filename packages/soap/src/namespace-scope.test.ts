import assert from "node:assert/strict";
import { test } from "node:test";
import { readEnvelope } from "./envelope-reader.js";
import { SoapError } from "./soap-error.js";

const env = "http://schemas.xmlsoap.org/soap/envelope/";
const wrap = (body: string, decl = "") =>
  `<e:Envelope xmlns:e="${env}"${decl}><e:Body>${body}</e:Body></e:Envelope>`;

function malformed(xml: string, message: RegExp) {
  assert.throws(
    () => readEnvelope(xml),
    (e: unknown) => e instanceof SoapError && e.code === "SOAP_MALFORMED_XML" && message.test(e.message),
    xml,
  );
}

test("declarations are scoped to their element: siblings and parents do not see them", () => {
  const [a, b] = readEnvelope(
    wrap('<p:a xmlns:p="urn:one"><p:c xmlns:p="urn:two"/><p:d/></p:a><b xmlns="urn:three"><c xmlns=""/></b>'),
  );
  assert.equal(a!.uri, "urn:one");
  assert.deepEqual(
    a!.children.map((c) => c.uri),
    ["urn:two", "urn:one"],
  );
  assert.equal(b!.uri, "urn:three");
  assert.equal(b!.children[0]!.uri, "");
  malformed(wrap('<p:a xmlns:p="urn:one"/><p:b/>'), /unbound namespace prefix: p/);
});

test("unprefixed attributes have no namespace; prefixed ones resolve by their own prefix", () => {
  const [call] = readEnvelope(
    wrap(
      '<op xmlns="urn:x" xmlns:i="http://www.w3.org/2001/XMLSchema-instance" nil="true"><a i:nil="true"/></op>',
    ),
  );
  assert.equal(call!.nil, false);
  assert.equal(call!.children[0]!.nil, true);
});

test("refuses what Namespaces in XML forbids, as not well-formed", () => {
  malformed(wrap('<op p:attr="1"/>'), /unbound namespace prefix: p/);
  malformed(wrap('<op xmlns:p=""/>'), /prefix p is declared with an empty namespace/);
  malformed(wrap('<op xmlns:xml="urn:not-xml"/>'), /reserved prefix/);
  malformed(wrap('<op xmlns:xmlns="urn:x"/>'), /reserved prefix/);
  malformed(wrap("<a:b:c/>", ' xmlns:a="urn:a"'), /not a valid qualified name/);
  malformed(wrap("<op :x='1'/>"), /not (a valid qualified name|well-formed)/);
  // Prefixes are compared as strings, not looked up as object keys: Object.prototype names stay unbound.
  malformed(wrap("<constructor:op/>"), /unbound namespace prefix: constructor/);
  malformed(wrap("<__proto__:op/>"), /unbound namespace prefix: __proto__/);
});

test("the xml prefix is always bound and an attribute may merely start with xmlns", () => {
  const [call] = readEnvelope(wrap('<op xml:lang="en" xmlnsExtra="1"><p>x</p></op>'));
  assert.equal(call!.local, "op");
  assert.equal(call!.children[0]!.text, "x");
});

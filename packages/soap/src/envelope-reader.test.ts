import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { readEnvelope } from "./envelope-reader.js";
import { requestLimits } from "./service-types.js";
import { SoapError } from "./soap-error.js";

const env = "http://schemas.xmlsoap.org/soap/envelope/";

function refused(xml: string, code: string, message: RegExp) {
  assert.throws(
    () => readEnvelope(xml),
    (e: unknown) => e instanceof SoapError && e.code === code && message.test(e.message),
    xml.slice(0, 80),
  );
}

function nested(depth: number): string {
  return `<e:Envelope xmlns:e="${env}"><e:Body>${"<a>".repeat(depth)}${"</a>".repeat(depth)}</e:Body></e:Envelope>`;
}

describe("envelope reading", () => {
  test("matches by namespace URI whatever the prefixes, default namespace included", () => {
    for (const xml of [
      `<soapenv:Envelope xmlns:soapenv="${env}"><soapenv:Body><op/></soapenv:Body></soapenv:Envelope>`,
      `<Envelope xmlns="${env}"><Body><op xmlns=""/></Body></Envelope>`,
      `<X:Envelope xmlns:X="${env}" xmlns:Y="${env}"><Y:Body><op/></Y:Body></X:Envelope>`,
    ]) {
      const body = readEnvelope(xml);
      assert.equal(body.length, 1, xml);
      assert.equal(body[0]!.local, "op");
    }
  });

  test("ignores a Header, empty or full, and anything after the Body", () => {
    const body = readEnvelope(
      `<e:Envelope xmlns:e="${env}"><e:Header><auth e:mustUnderstand="0"><user>x</user></auth></e:Header>` +
        `<e:Body><op><p>1</p></op></e:Body><trailer><op2/></trailer></e:Envelope>`,
    );
    assert.deepEqual(
      body.map((e) => [e.local, e.children.map((c) => [c.local, c.text])]),
      [["op", [["p", "1"]]]],
    );
    assert.equal(
      readEnvelope(`<e:Envelope xmlns:e="${env}"><e:Header/><e:Body><op/></e:Body></e:Envelope>`).length,
      1,
    );
  });

  test("keeps only what decoding needs: nil, href, id, soapenc:root", () => {
    const [call, ref] = readEnvelope(
      `<e:Envelope xmlns:e="${env}" xmlns:i="http://www.w3.org/2001/XMLSchema-instance" ` +
        `xmlns:c="http://schemas.xmlsoap.org/soap/encoding/"><e:Body>` +
        `<op><a href="#id0"/><b i:nil="true"/></op><multiRef id="id0" c:root="0">2</multiRef></e:Body></e:Envelope>`,
    );
    assert.equal(call!.notRoot, false);
    assert.equal(call!.children[0]!.href, "id0");
    assert.equal(call!.children[1]!.nil, true);
    assert.equal(ref!.id, "id0");
    assert.equal(ref!.notRoot, true);
    assert.equal(ref!.text, "2");
  });

  test("refuses a DOCTYPE before any entity is expanded", () => {
    refused(
      `<!DOCTYPE e [<!ENTITY boom "${"x".repeat(100)}">]><e:Envelope xmlns:e="${env}"><e:Body><op>&boom;</op></e:Body></e:Envelope>`,
      "SOAP_DOCTYPE_REFUSED",
      /DOCTYPE/,
    );
    refused(`<!DOCTYPE e SYSTEM "file:///etc/passwd"><e/>`, "SOAP_DOCTYPE_REFUSED", /DOCTYPE/);
  });

  test("refuses text that is not well-formed XML, saying so", () => {
    refused(
      `<e:Envelope xmlns:e="${env}"><e:Body><op></e:Body></e:Envelope>`,
      "SOAP_MALFORMED_XML",
      /not well-formed XML/,
    );
    refused("", "SOAP_MALFORMED_XML", /not well-formed/);
    refused("hello", "SOAP_MALFORMED_XML", /not well-formed/);
    refused(
      `<e:Envelope xmlns:e="${env}"><e:Body><x:op/></e:Body></e:Envelope>`,
      "SOAP_MALFORMED_XML",
      /prefix/,
    );
    refused(
      `<e:Envelope xmlns:e="${env}"><e:Body><op>&nbsp;</op></e:Body></e:Envelope>`,
      "SOAP_MALFORMED_XML",
      /entity/,
    );
  });

  test("refuses documents that are not a SOAP 1.1 envelope, naming what was found", () => {
    refused("<html><body/></html>", "SOAP_NOT_ENVELOPE", /SOAP 1\.1 envelope.*root element named html/);
    refused(
      `<e:Envelope xmlns:e="urn:other"><e:Body/></e:Envelope>`,
      "SOAP_NOT_ENVELOPE",
      /named e:Envelope/,
    );
    refused(`<e:Envelope xmlns:e="${env}"><e:Header/></e:Envelope>`, "SOAP_NOT_ENVELOPE", /Body is missing/);
    refused(
      `<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope"><e:Body/></e:Envelope>`,
      "SOAP_NOT_ENVELOPE",
      /SOAP 1\.2.*SOAP 1\.1 only/,
    );
  });

  test(`caps depth at ${requestLimits.maxDepth} and elements at ${requestLimits.maxElements}`, () => {
    // Envelope and Body are two levels: 30 more reach the limit exactly.
    assert.equal(readEnvelope(nested(requestLimits.maxDepth - 2)).length, 1);
    refused(nested(requestLimits.maxDepth - 1), "SOAP_LIMIT_EXCEEDED", /33 deep; at most 32/);
    const many = (n: number) =>
      `<e:Envelope xmlns:e="${env}"><e:Body><op>${"<p/>".repeat(n)}</op></e:Body></e:Envelope>`;
    assert.equal(
      readEnvelope(many(requestLimits.maxElements - 3))[0]!.children.length,
      requestLimits.maxElements - 3,
    );
    refused(many(requestLimits.maxElements - 2), "SOAP_LIMIT_EXCEEDED", /more than 10000 elements/);
    // The Header counts too: it cannot be used to slip past the limits.
    refused(
      `<e:Envelope xmlns:e="${env}"><e:Header>${"<h>".repeat(40)}${"</h>".repeat(40)}</e:Header><e:Body/></e:Envelope>`,
      "SOAP_LIMIT_EXCEEDED",
      /deep/,
    );
  });
});

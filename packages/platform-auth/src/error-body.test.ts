import assert from "node:assert/strict";
import { test } from "node:test";
import { parseErrorBody } from "./error-body.js";
import { redactSecrets } from "./errors.js";

const h = (o: Record<string, string> = {}) => new Headers(o);

test("identity-service shape, with x-debug-id", () => {
  const r = parseErrorBody(
    401,
    h({ "x-debug-id": "dbg-1" }),
    '{"error":"invalid_client","error_description":"invalid client_secret parameter"}',
  );
  assert.deepEqual(r, {
    serviceCode: "invalid_client",
    message: "invalid client_secret parameter",
    requestId: "dbg-1",
  });
});

test("gateway shape", () => {
  const r = parseErrorBody(
    401,
    h({ "x-request-id": "r1" }),
    '{"error_code":"401013","message":"Oauth token is not valid"}',
  );
  assert.deepEqual(r, { serviceCode: "401013", message: "Oauth token is not valid", requestId: "r1" });
});

test("service problem-details shape: code from type, request id from report", () => {
  const body = JSON.stringify({
    type: "https://ns.adobe.com/aep/errors/XDM-1521-404",
    title: "Not Found",
    status: 404,
    detail: "No such class",
    report: { requestId: "rep-9" },
  });
  assert.deepEqual(parseErrorBody(404, h(), body), {
    serviceCode: "XDM-1521-404",
    message: "Not Found: No such class",
    requestId: "rep-9",
  });
});

test("nested, list, bare message, non-JSON, HTML and empty bodies", () => {
  assert.equal(parseErrorBody(400, h(), '{"error":{"code":"C1","message":"m1"}}').serviceCode, "C1");
  assert.equal(parseErrorBody(400, h(), '{"errors":[{"code":"E","message":"one"}]}').message, "one");
  assert.deepEqual(parseErrorBody(500, h(), '{"message":"boom","code":42}'), {
    serviceCode: "42",
    message: "boom",
    requestId: undefined,
  });
  assert.equal(parseErrorBody(500, h(), "plain words").message, "plain words");
  assert.equal(
    parseErrorBody(502, h(), "<html><style>x{}</style><h1>Bad  Gateway</h1></html>").message,
    "Bad Gateway",
  );
  assert.equal(parseErrorBody(503, h(), "").message, "HTTP 503");
  assert.equal(parseErrorBody(503, h(), "[1,2]").message, "[1,2]");
  assert.equal(parseErrorBody(500, h(), "x".repeat(1000)).message.length, 301);
});

test("redactSecrets removes every occurrence and ignores values too short to be secrets", () => {
  assert.equal(
    redactSecrets("a s3cr3t-value b s3cr3t-value", ["s3cr3t-value", undefined, "ab"]),
    "a [redacted] b [redacted]",
  );
});

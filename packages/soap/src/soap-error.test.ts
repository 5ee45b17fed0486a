import assert from "node:assert/strict";
import { test } from "node:test";
import { SoapError } from "./index.js";

test("SoapError carries its code and message", () => {
  const err = new SoapError("SOAP_TOO_LARGE", "The request body is larger than 1 MiB.");
  assert.equal(err.code, "SOAP_TOO_LARGE");
  assert.equal(err.message, "The request body is larger than 1 MiB.");
  assert.ok(err instanceof Error);
});

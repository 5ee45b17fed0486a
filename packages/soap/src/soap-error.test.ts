import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { SoapError, soapErrorCodes } from "./index.js";

test("SoapError carries its code and message, and knows whether the client was at fault", () => {
  const err = new SoapError("SOAP_TOO_LARGE", "The request body is larger than 1 MiB.");
  assert.equal(err.code, "SOAP_TOO_LARGE");
  assert.equal(err.message, "The request body is larger than 1 MiB.");
  assert.ok(err instanceof Error);
  assert.equal(err.isClientFault, true);
  assert.equal(new SoapError("SOAP_BAD_ARGUMENT", "x").isClientFault, false);
});

test("every error code is documented in the README with its meaning", () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  for (const [code, { description }] of Object.entries(soapErrorCodes))
    assert.ok(readme.includes(`| \`${code}\` | ${description} |`), `${code} missing from README.md`);
});

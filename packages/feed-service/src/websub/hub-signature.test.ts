import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { test } from "node:test";
import { hubSignatureIsValid } from "./hub-signature.js";

const body = Buffer.from('<feed xmlns="http://www.w3.org/2005/Atom"><title>T</title></feed>');
const secret = "the-subscription-secret";
const digest = (method: string, key = secret) => createHmac(method, key).update(body).digest("hex");

test("X-Hub-Signature: each method the Recommendation names, hex in either case", () => {
  for (const method of ["sha1", "sha256", "sha384", "sha512"]) {
    assert.ok(hubSignatureIsValid(`${method}=${digest(method)}`, body, secret), method);
    assert.ok(hubSignatureIsValid(`${method.toUpperCase()}=${digest(method).toUpperCase()}`, body, secret));
  }
});

test("X-Hub-Signature: anything else is invalid", () => {
  const good = digest("sha256");
  for (const header of [
    undefined,
    "",
    good,
    `sha256=${digest("sha256", "another-secret")}`,
    `sha256=${digest("sha1")}`,
    `sha256=${good.slice(0, -1)}`,
    `sha256=${good}00`,
    `md5=${createHmac("md5", secret).update(body).digest("hex")}`,
    `sha256=${good.replace(/^./, "g")}`,
    `sha256 = ${good}`,
  ]) {
    assert.equal(hubSignatureIsValid(header, body, secret), false, String(header));
  }
  assert.equal(hubSignatureIsValid([`sha256=${good}`, `sha256=${good}`], body, secret), false);
  assert.equal(hubSignatureIsValid(`sha256=${good}`, Buffer.concat([body, Buffer.from(" ")]), secret), false);
});

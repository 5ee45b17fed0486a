import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { decodeCall } from "./call-decoder.js";
import { readEnvelope } from "./envelope-reader.js";
import { decodeRequestText } from "./request-text.js";
import type { OperationSpec } from "./service-types.js";
import { joinSurrogateReferences } from "./surrogate-references.js";

// Real request bytes as seven client stacks sent them (Axis 1.4 stubs and Call API, PHP
// SoapClient, SOAP::Lite in WSDL and raw mode, zeep, suds, gSOAP, node-soap), kept outside the
// repository in the shared corpora folder next to it.
const corpus = fileURLToPath(new URL("../../../../shared/corpora/soap-requests/", import.meta.url));

const operations = new Map<string, OperationSpec>([
  ["getLanguages", { name: "getLanguages", parameters: [], columns: [{ name: "languageId", type: "int" }] }],
  [
    "getMostRecentPosts",
    {
      name: "getMostRecentPosts",
      parameters: [
        { name: "limit", type: "double" },
        { name: "offset", type: "double" },
        { name: "languageIds", type: "string" },
      ],
      columns: [{ name: "postId", type: "int" }],
    },
  ],
]);

/** Splits a captured HTTP request at the first blank line into its head and body bytes. */
function splitCapture(raw: Buffer): { head: string; body: Buffer } {
  const crlf = raw.indexOf("\r\n\r\n");
  const lf = raw.indexOf("\n\n");
  const [at, skip] = crlf >= 0 && (lf < 0 || crlf < lf) ? [crlf, 4] : [lf, 2];
  return { head: raw.subarray(0, at).toString("latin1"), body: raw.subarray(at + skip) };
}

const expected: Record<string, Record<string, unknown>> = {
  getLanguages: {},
  getMostRecentPosts: { limit: 2, offset: 10, languageIds: "1,2" },
};

test("every captured client request decodes into the same call", (t) => {
  if (!existsSync(corpus)) {
    const message = `the captured requests are missing (${corpus}); the decoder is untested against real client bytes`;
    if (process.env.CI === "true") assert.fail(`CI=true: ${message}`);
    console.warn(`\n!!! SKIPPED: ${message} !!!\n`);
    t.skip(message);
    return;
  }
  const files = readdirSync(corpus).filter((f) => f.endsWith(".xml"));
  // Seven stacks, two calls each: a shrinking corpus must not pass silently.
  assert.ok(files.length >= 18, `expected at least 18 captures, found ${files.length}`);
  const clients = new Set<string>();
  for (const file of files) {
    const { head, body } = splitCapture(readFileSync(join(corpus, file)));
    const contentType = /^content-type:\s*(.+)$/im.exec(head)?.[1]?.trim();
    const call = decodeCall(
      readEnvelope(joinSurrogateReferences(decodeRequestText(body, contentType))),
      operations,
    );
    const operation = file.slice(file.indexOf("--") + 2, -".xml".length);
    clients.add(file.slice(0, file.indexOf("--")));
    assert.equal(call.operation.name, operation, file);
    assert.deepEqual(call.args, expected[operation], file);
  }
  assert.deepEqual([...clients].sort(), [
    "axis-call-wsdl",
    "axis-stub",
    "gsoap",
    "node-soap",
    "perl-raw",
    "perl-wsdl",
    "php",
    "suds",
    "zeep",
  ]);
});

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { missingTool, toolAvailable } from "../test-support/external-tool.js";
import { createProbeService, startProbeServer } from "../test-support/probe-service.js";

const run = promisify(execFile);
const script = fileURLToPath(new URL("./php-client.php", import.meta.url));

test("PHP SoapClient (WSDL mode) calls every probe operation and decodes every shape", async (t) => {
  if (!(await toolAvailable("php", ["-m"], /^soap$/m))) {
    missingTool(t, "php with the soap extension", "Debian php8.2-cli and php8.2-soap");
    return;
  }
  const internalErrors: unknown[] = [];
  const probe = await startProbeServer(createProbeService(internalErrors));
  try {
    const { stdout } = await run("php", [script, `${probe.url}?wsdl`], { timeout: 60_000 });
    const got = JSON.parse(stdout);
    assert.deepEqual(got.functions, [
      "QueryBean echoArguments(double $number, string $text, anyType $anything)",
      "QueryBean getSamples()",
      "QueryBean getNothing(double $limit)",
      "QueryBean failWith(string $reason)",
      "QueryBean crash()",
    ]);
    assert.deepEqual(got.echo, {
      columns: ["numberValue", "textValue", "anyValue"],
      rows: [[2.5, "Grüße 東京😀", "2024-01-02T03:04:05Z"]],
    });
    // A nil anyType argument comes back as a nil cell, in its place.
    assert.deepEqual(got.echoNull.rows, [[-1.0, "", null]]);
    assert.deepEqual(got.samples, {
      columns: ["sampleId", "sampleName", "score", "createdAt", "note"],
      rows: [
        [1, "Grüße aus Köln", 0.5, "2024-02-29T12:30:45.123Z", "first"],
        [2, "東京の天気", 2.0, "1999-12-31T23:59:59.000Z", null],
        [3, "emoji 😀 & <tags>", -1250.0, null, "third"],
      ],
    });
    // PHP kept the wire types: xsd:int cells are integers, xsd:double cells floats ("2.0").
    assert.match(stdout, /\[2,"東京の天気",2\.0,"1999/);
    assert.deepEqual(got.nothing, { columns: ["sampleId", "sampleName"], rows: [] });
    assert.deepEqual(got.fault, {
      code: "soapenv:Server.userException",
      string: "ComponentInvocationException: Failed on purpose: because",
    });
    assert.equal(got.crash.code, "soapenv:Server.userException");
    assert.doesNotMatch(got.crash.string, /ECONNREFUSED|secret|internal:5432/);
    assert.equal(internalErrors.length, 1);
  } finally {
    await probe.close();
  }
});

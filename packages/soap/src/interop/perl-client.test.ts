import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { internalErrorMessage } from "../soap-service.js";
import { missingTool, toolAvailable } from "../test-support/external-tool.js";
import { createProbeService, startProbeServer } from "../test-support/probe-service.js";

const run = promisify(execFile);
const script = fileURLToPath(new URL("./perl-client.pl", import.meta.url));

// SOAP::Lite gives every scalar as its text (doubles as Perl prints them: "2", "-1250") and nil
// cells as undef, in their place.
const expected = {
  echo: {
    columns: ["numberValue", "textValue", "anyValue"],
    rows: [["2.5", "Grüße, 東京, emoji 😀", "2024-01-02T03:04:05Z"]],
  },
  echoNull: { columns: ["numberValue", "textValue", "anyValue"], rows: [["-1", "", null]] },
  samples: {
    columns: ["sampleId", "sampleName", "score", "createdAt", "note"],
    rows: [
      ["1", "Grüße aus Köln", "0.5", "2024-02-29T12:30:45.123Z", "first"],
      ["2", "東京の天気", "2", "1999-12-31T23:59:59.000Z", null],
      ["3", "emoji 😀 & <tags>", "-1250", null, "third"],
    ],
  },
  nothing: { columns: ["sampleId", "sampleName"], rows: [] },
  fault: {
    code: "soapenv:Server.userException",
    string: "ComponentInvocationException: Failed on purpose: because",
  },
  crash: {
    code: "soapenv:Server.userException",
    string: `ComponentInvocationException: ${internalErrorMessage}`,
  },
};

// WSDL mode types each argument from the WSDL; the raw API names them c-gensymN (matched by
// position) and types non-ASCII text as base64Binary, which the decoder reads back as UTF-8.
for (const mode of ["wsdl", "raw"] as const) {
  test(`Perl SOAP::Lite (${mode === "wsdl" ? "WSDL mode, ->service" : "raw call API"}) calls every probe operation`, async (t) => {
    if (!(await toolAvailable("perl", ["-MSOAP::Lite", "-MJSON::PP", "-e", "1"]))) {
      missingTool(t, "perl with SOAP::Lite", "Debian libsoap-lite-perl");
      return;
    }
    const internalErrors: unknown[] = [];
    const probe = await startProbeServer(createProbeService(internalErrors));
    try {
      const { stdout } = await run("perl", [script, mode, probe.url], { timeout: 60_000 });
      assert.deepEqual(JSON.parse(stdout), expected);
      assert.equal(internalErrors.length, 1);
    } finally {
      await probe.close();
    }
  });
}

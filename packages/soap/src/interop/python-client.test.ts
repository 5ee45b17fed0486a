import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { internalErrorMessage } from "../soap-service.js";
import { missingTool, toolAvailable } from "../test-support/external-tool.js";
import { createProbeService, startProbeServer } from "../test-support/probe-service.js";

const run = promisify(execFile);
const script = fileURLToPath(new URL("./python-client.py", import.meta.url));
// Debian's own Python, where python3-zeep and python3-suds live (a python3 earlier on PATH, from
// pyenv for instance, does not see them).
const python = "/usr/bin/python3";

// What both Python clients must decode: each cell as [Python type, value]. Types come from the
// cells' xsi:type, so ints stay int, doubles float and instants timezone-aware datetimes.
const expected = {
  echo: {
    columns: ["numberValue", "textValue", "anyValue"],
    rows: [
      [
        ["float", 2.5],
        ["str", "Grüße, 東京, emoji 😀"],
        ["str", "2024-01-02T03:04:05Z"],
      ],
    ],
  },
  // A nil anyType argument comes back as a nil cell, and "" as "", each in its place.
  echoNull: {
    columns: ["numberValue", "textValue", "anyValue"],
    rows: [
      [
        ["float", -1],
        ["str", ""],
        ["NoneType", null],
      ],
    ],
  },
  samples: {
    columns: ["sampleId", "sampleName", "score", "createdAt", "note"],
    rows: [
      [
        ["int", 1],
        ["str", "Grüße aus Köln"],
        ["float", 0.5],
        ["datetime", "2024-02-29T12:30:45.123+00:00"],
        ["str", "first"],
      ],
      [
        ["int", 2],
        ["str", "東京の天気"],
        ["float", 2],
        ["datetime", "1999-12-31T23:59:59.000+00:00"],
        ["NoneType", null],
      ],
      [
        ["int", 3],
        ["str", "emoji 😀 & <tags>"],
        ["float", -1250],
        ["NoneType", null],
        ["str", "third"],
      ],
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

for (const client of ["zeep", "suds"] as const) {
  test(`Python ${client} (WSDL mode) calls every probe operation and decodes every shape`, async (t) => {
    if (!(await toolAvailable(python, ["-c", `import ${client}`]))) {
      missingTool(t, `${python} with ${client}`, `Debian python3-${client}`);
      return;
    }
    const internalErrors: unknown[] = [];
    const probe = await startProbeServer(createProbeService(internalErrors));
    try {
      const { stdout } = await run(python, [script, client, `${probe.url}?wsdl`], { timeout: 60_000 });
      assert.deepEqual(JSON.parse(stdout), expected);
      assert.equal(internalErrors.length, 1);
    } finally {
      await probe.close();
    }
  });
}

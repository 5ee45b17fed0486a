// -har: the -http view's exchanges as HAR 1.2, checked by a HAR schema validator from npm
// (har-validator) and imported by Chromium's own DevTools HAR importer in the real browser.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import * as harValidator from "har-validator/lib/promise.js";
import { parseFault } from "./fault-spec.js";
import { startRelay } from "./relay-server.js";
import { launchChromium } from "./test-support/chromium.js";
import { missingTool, toolAvailable } from "./test-support/external-tool.js";
import { Transcript } from "./test-support/sockets.js";

const dir = mkdtempSync(join(tmpdir(), "tcp-relay-har-"));
after(() => rmSync(dir, { recursive: true, force: true }));

interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    queryString: { name: string; value: string }[];
    postData?: { text: string };
    bodySize: number;
  };
  response: {
    status: number;
    content: { size: number; mimeType: string; text?: string; encoding?: string; comment?: string };
    cookies: { name: string }[];
  };
  timings: { send: number; wait: number; receive: number };
  comment?: string;
}
type Har = { log: { version: string; creator: { name: string }; entries: HarEntry[] } };

/** A server with a few kinds of answers: text with a query, JSON to a POST, binary, chunked, 404. */
async function server() {
  const binary = Buffer.from([0, 1, 2, 250, 255, 10, 13]);
  const s = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (c: Buffer) => parts.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://x");
      if (url.pathname === "/text") {
        res.setHeader("set-cookie", "session=abc; Path=/");
        res.setHeader("content-type", "text/plain; charset=utf-8");
        res.end(`hello ${url.searchParams.get("name")}`);
      } else if (url.pathname === "/json") {
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ got: JSON.parse(Buffer.concat(parts).toString()) }));
      } else if (url.pathname === "/bin") {
        res.setHeader("content-type", "application/octet-stream");
        res.end(binary);
      } else if (url.pathname === "/chunked") {
        res.setHeader("content-type", "text/plain");
        res.write("one,");
        setTimeout(() => res.end("two"), 20);
      } else {
        res.statusCode = 404;
        res.end("no such page");
      }
    });
  });
  s.listen(0, "127.0.0.1");
  await once(s, "listening");
  return { server: s, port: (s.address() as AddressInfo).port, binary };
}

async function recordSession(harFile: string, harBody?: number) {
  const backend = await server();
  const console = new Transcript();
  const relay = await startRelay({
    host: "127.0.0.1",
    remotePort: backend.port,
    localPort: 0,
    bind: "127.0.0.1",
    http: true,
    json: true,
    har: harFile,
    harBody,
    console,
    faults: [parseFault("-delay", "s2c:30")],
  });
  const base = `http://127.0.0.1:${relay.port}`;
  assert.equal(await (await fetch(`${base}/text?name=relay`)).text(), "hello relay");
  const posted = await fetch(`${base}/json`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ a: 1 }),
  });
  assert.deepEqual(await posted.json(), { got: { a: 1 } });
  assert.ok(Buffer.from(await (await fetch(`${base}/bin`)).arrayBuffer()).equals(backend.binary));
  assert.equal(await (await fetch(`${base}/chunked`)).text(), "one,two");
  return { backend, relay, console, base };
}

test("-har: every exchange as valid HAR 1.2 (har-validator), with bodies, and the -http view's times", async () => {
  const file = join(dir, "session.har");
  const { backend, relay, console, base } = await recordSession(file);
  if (await toolAvailable("curl", ["--version"])) {
    await new Promise((done) => execFile("curl", ["-s", "--noproxy", "*", `${base}/missing`], done));
  } else {
    await fetch(`${base}/missing`).then((r) => r.text());
  }
  // SIGUSR2's write, the relay going on: what is there so far.
  await relay.writeHar();
  const early = JSON.parse(readFileSync(file, "utf8")) as Har;
  assert.equal(early.log.entries.length, 5);
  await relay.close();
  backend.server.close();
  const har = JSON.parse(readFileSync(file, "utf8")) as Har;
  await harValidator.har(har);
  assert.equal(har.log.version, "1.2");
  assert.equal(har.log.creator.name, "tcp-relay");
  const byPath = new Map(har.log.entries.map((e) => [new URL(e.request.url).pathname, e]));
  const text = byPath.get("/text")!;
  assert.deepEqual(text.request.queryString, [{ name: "name", value: "relay" }]);
  assert.equal(text.response.content.text, "hello relay");
  assert.deepEqual(
    text.response.cookies.map((c) => c.name),
    ["session"],
  );
  const json = byPath.get("/json")!;
  assert.equal(json.request.method, "POST");
  assert.equal(json.request.postData?.text, '{"a":1}');
  assert.equal(json.response.content.text, '{"got":{"a":1}}');
  const bin = byPath.get("/bin")!;
  assert.equal(bin.response.content.encoding, "base64");
  assert.ok(Buffer.from(bin.response.content.text!, "base64").equals(backend.binary));
  assert.equal(byPath.get("/chunked")!.response.content.text, "one,two");
  assert.equal(byPath.get("/chunked")!.response.content.size, 7);
  assert.match(byPath.get("/chunked")!.comment ?? "", /faults: delay_s2c/);
  assert.equal(byPath.get("/missing")!.response.status, 404);
  // The same clock as -http: each entry's times are its http object's.
  const records = console
    .text()
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { type: string; target?: string; ttfbMs?: number; totalMs?: number })
    .filter((r) => r.type === "http");
  assert.equal(records.length, 5);
  for (const r of records) {
    const entry = byPath.get(new URL(r.target!, "http://x").pathname)!;
    assert.equal(entry.time, r.totalMs);
    assert.equal(entry.timings.wait, r.ttfbMs);
    assert.equal(entry.timings.send + entry.timings.wait + entry.timings.receive, entry.time);
  }
});

test("-harbody keeps the first bytes of each body and says the rest was cut", async () => {
  const file = join(dir, "cut.har");
  const { backend, relay } = await recordSession(file, 5);
  await relay.close();
  backend.server.close();
  const har = JSON.parse(readFileSync(file, "utf8")) as Har;
  await harValidator.har(har);
  const text = har.log.entries.find((e) => e.request.url.includes("/text"))!;
  assert.equal(text.response.content.text, "hello");
  assert.equal(text.response.content.size, 11);
  assert.match(text.response.content.comment ?? "", /truncated to its first 5 bytes/);
});

test("Chromium's DevTools imports the HAR file: its own importer gives back every request", async (t) => {
  const file = join(dir, "devtools.har");
  const { backend, relay } = await recordSession(file);
  await relay.close();
  backend.server.close();
  const browser = await launchChromium(t);
  if (browser === null) return;
  try {
    const page = await browser.newPage();
    // The DevTools front end bundled with Chromium, and the modules its Network panel's
    // "Import HAR file" runs: HARRoot parses the document, the Importer makes its requests.
    await page.goto("devtools://devtools/bundled/devtools_app.html");
    const imported = await page.evaluate(
      async (text: string) => {
        const path = "./models/har/har.js";
        const har = await import(path);
        const root = new har.HARFormat.HARRoot(JSON.parse(text));
        const requests = har.Importer.Importer.requestsFromHARLog(root.log) as {
          url(): string;
          requestMethod: string;
          statusCode: number;
        }[];
        return requests.map((r) => ({ url: r.url(), method: r.requestMethod, status: r.statusCode }));
      },
      readFileSync(file, "utf8"),
    );
    const expected = (JSON.parse(readFileSync(file, "utf8")) as Har).log.entries.map((e) => ({
      url: e.request.url,
      method: e.request.method,
      status: e.response.status,
    }));
    assert.equal(imported.length, 4);
    assert.deepEqual(imported, expected);
  } finally {
    await browser.close();
  }
});

test("-har without -http is refused, naming what it needs", async () => {
  await assert.rejects(
    startRelay({
      host: "127.0.0.1",
      remotePort: 1,
      localPort: 0,
      har: join(dir, "x.har"),
      console: new Transcript(),
    }),
    /har \(-har\) needs the HTTP view \(-http\)/,
  );
  if (!(await toolAvailable("curl", ["--version"]))) missingTool({ skip() {} }, "curl", "Debian's curl");
});

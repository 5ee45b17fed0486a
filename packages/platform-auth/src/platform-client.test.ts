import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { decodeTokenClaims } from "./access-token.js";
import { PlatformAuthError } from "./errors.js";
import { type ClientEvent, PlatformClient, type PlatformClientOptions } from "./platform-client.js";
import { type EmulatorFixture, keyBody, startEmulator } from "./test-support/emulator-fixture.js";
import { SecretSweep } from "./test-support/secret-sweep.js";

const CLASSES = "/data/foundation/schemaregistry/global/classes";
const XED_ID = { accept: "application/vnd.adobe.xed-id+json" };
const sweep = new SecretSweep();
const issued: string[] = [];
let fx: EmulatorFixture;

before(async () => {
  fx = await startEmulator({ classCount: 700, onTokenIssued: (t) => issued.push(t) });
});
after(() => fx.close());

function client(extra: PlatformClientOptions = {}, events: ClientEvent[] = []): PlatformClient {
  return new PlatformClient({
    clientId: fx.clientId,
    clientSecret: fx.clientSecret,
    orgId: fx.orgId,
    authUrl: fx.url,
    baseUrl: fx.url,
    env: fx.env,
    cwd: fx.dir,
    retry: { baseDelayMs: 5, random: () => 0.5 },
    onEvent: (e) => {
      events.push(e);
      sweep.add("event", JSON.stringify(e));
    },
    ...extra,
  });
}

async function rejects(p: Promise<unknown>, where: string): Promise<PlatformAuthError> {
  try {
    await p;
  } catch (err) {
    sweep.addError(where, err);
    assert.ok(err instanceof PlatformAuthError, `expected a PlatformAuthError, got ${String(err)}`);
    return err;
  }
  assert.fail(`${where}: expected a rejection`);
}

test("OAuth end to end: one mint, every page of the global classes in order", async () => {
  const before = fx.emulator.stats();
  const c = client();
  const records = await c.all<{ title: string; "meta:altId": string }>(CLASSES, { headers: XED_ID });
  assert.equal(records.length, 700);
  assert.deepEqual(
    records.map((r) => r.title),
    [...records.map((r) => r.title)].sort(),
  );
  assert.equal(new Set(records.map((r) => r.title)).size, 700, "no record twice across pages");
  assert.ok(records.some((r) => r["meta:altId"] === "_xdm.context.profile"));
  const after = fx.emulator.stats();
  assert.equal(after.mints - before.mints, 1);
  assert.equal(after.apiCalls - before.apiCalls, 3, "700 records at 300 a page is 3 pages");
  const token = await c.accessToken();
  assert.equal(token.method, "oauth");
  // expires_in is seconds for OAuth: 86 399 s, i.e. about a day, not 86 s and not 1000 days.
  assert.ok(Math.abs(token.expiresAt - token.obtainedAt - 86_399_000) < 5000);
  assert.equal(decodeTokenClaims(token.accessToken)?.type, "access_token");
  await c.close();
});

test("paging with a small limit follows _page.next across many pages", async () => {
  const c = client();
  const pages: { _page: { count: number } }[] = [];
  for await (const p of c.pages<{ _page: { count: number } }>(`${CLASSES}?limit=100`, { headers: XED_ID }))
    pages.push(p);
  assert.deepEqual(
    pages.map((p) => p._page.count),
    [100, 100, 100, 100, 100, 100, 100],
  );
  await c.close();
});

test("JWT end to end: signed assertion accepted, expires_in read as milliseconds", async () => {
  const before = fx.emulator.stats().mints;
  const c = client({
    authMethod: "jwt",
    technicalAccountId: fx.technicalAccountId,
    privateKeyFile: fx.privateKeyFile,
  });
  const page = await c.json<{ results: unknown[] }>(`${CLASSES}?limit=5`, { headers: XED_ID });
  assert.equal(page.results.length, 5);
  const token = await c.accessToken();
  assert.equal(token.method, "jwt");
  assert.ok(Math.abs(token.expiresAt - token.obtainedAt - 86_399_000) < 5000);
  assert.equal(fx.emulator.stats().mints - before, 1);
  await c.close();
});

test("JWT signed with another key is refused with the identity service's code", async () => {
  const { generateKeyPairSync } = await import("node:crypto");
  const other = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({
    type: "pkcs8",
    format: "pem",
  });
  const c = client({
    authMethod: "jwt",
    technicalAccountId: fx.technicalAccountId,
    privateKey: other.toString(),
  });
  const err = await rejects(c.accessToken(), "jwt wrong key");
  assert.equal(err.code, "PA_AUTH_FAILED");
  assert.equal(err.status, 401);
  assert.equal(err.serviceCode, "invalid_token");
  assert.ok(err.requestId, "x-debug-id is carried");
  await c.close();
});

test("wrong client secret: one PA_AUTH_FAILED with invalid_client, and the secret is not in it", async () => {
  const c = client({ clientSecret: "wrong-secret-value-123456" });
  const err = await rejects(c.accessToken(), "wrong secret");
  assert.equal(err.code, "PA_AUTH_FAILED");
  assert.equal(err.status, 401);
  assert.equal(err.serviceCode, "invalid_client");
  assert.doesNotMatch(err.message, /wrong-secret-value/);
  await c.close();
});

test("a scope the credential lacks is a 400 invalid_scope", async () => {
  const c = client({ scopes: "openid,no_such_scope" });
  const err = await rejects(c.accessToken(), "bad scope");
  assert.equal(err.status, 400);
  assert.equal(err.serviceCode, "invalid_scope");
  assert.match(err.message, /no_such_scope/);
  await c.close();
});

test("1,000 concurrent calls on a cold cache mint exactly one token", async () => {
  const before = fx.emulator.stats();
  const c = client();
  const answers = await Promise.all(
    Array.from({ length: 1000 }, () =>
      c.json<{ results: unknown[] }>(`${CLASSES}?limit=1`, { headers: XED_ID }),
    ),
  );
  assert.equal(answers.length, 1000);
  assert.ok(answers.every((a) => a.results.length === 1));
  const after = fx.emulator.stats();
  assert.equal(after.mints - before.mints, 1);
  assert.equal(after.tokenRequests - before.tokenRequests, 1);
  await c.close();
});

test("a token the gateway calls invalid is re-minted once and the call succeeds", async () => {
  const events: ClientEvent[] = [];
  const c = client({}, events);
  await c.json(`${CLASSES}?limit=1`, { headers: XED_ID });
  const first = (await c.accessToken()).accessToken;
  fx.emulator.revokeTokens();
  const before = fx.emulator.stats().mints;
  const page = await c.json<{ results: unknown[] }>(`${CLASSES}?limit=1`, { headers: XED_ID });
  assert.equal(page.results.length, 1);
  assert.equal(fx.emulator.stats().mints - before, 1);
  assert.notEqual((await c.accessToken()).accessToken, first);
  assert.equal(events.filter((e) => e.type === "remint").length, 1);
  await c.close();
});

test("a 401 that persists is re-minted only once, then reported with the gateway's code", async () => {
  const c = client();
  await c.accessToken();
  const before = fx.emulator.stats();
  fx.emulator.failNext({ status: 401, count: 2 });
  const err = await rejects(c.json(CLASSES, { headers: XED_ID }), "persistent 401");
  assert.equal(err.code, "PA_API_ERROR");
  assert.equal(err.status, 401);
  assert.equal(err.serviceCode, "401013");
  const after = fx.emulator.stats();
  assert.equal(after.mints - before.mints, 1);
  assert.equal(after.apiCalls - before.apiCalls, 2);
  await c.close();
});

test("an emulator issuing expired tokens ends in one clear 401 after one re-mint, not a loop", async () => {
  fx.emulator.setExpiredTokens(true);
  try {
    const before = fx.emulator.stats().mints;
    const c = client();
    const err = await rejects(c.json(CLASSES, { headers: XED_ID }), "expired tokens");
    assert.equal(err.status, 401);
    assert.equal(fx.emulator.stats().mints - before, 2);
    // The token's own created_at + expires_in claims were cross-checked: it is known to be expired.
    assert.ok((await c.accessToken()).expiresAt < Date.now());
    await c.close();
  } finally {
    fx.emulator.setExpiredTokens(false);
  }
});

test("429 with Retry-After: waits at least that long, then succeeds", async () => {
  const events: ClientEvent[] = [];
  const c = client({}, events);
  await c.accessToken();
  fx.emulator.failNext({ status: 429, retryAfter: 1 });
  const started = Date.now();
  const page = await c.json<{ results: unknown[] }>(`${CLASSES}?limit=2`, { headers: XED_ID });
  const waited = Date.now() - started;
  assert.equal(page.results.length, 2);
  assert.ok(waited >= 1000, `waited ${waited} ms, Retry-After said 1 s`);
  const retries = events.filter((e) => e.type === "retry");
  assert.equal(retries.length, 1);
  assert.ok(retries[0].type === "retry" && retries[0].delayMs >= 1000 && retries[0].reason === "HTTP 429");
  await c.close();
});

test("5xx: exponential backoff within the attempt budget, then the last answer as an error", async () => {
  const events: ClientEvent[] = [];
  const c = client({ retry: { maxAttempts: 3, baseDelayMs: 20, random: () => 1 } }, events);
  await c.accessToken();
  const before = fx.emulator.stats().apiCalls;
  fx.emulator.failNext({ status: 503, count: 3 });
  const err = await rejects(c.json(CLASSES, { headers: XED_ID }), "503s");
  assert.equal(err.status, 503);
  assert.equal(fx.emulator.stats().apiCalls - before, 3);
  assert.deepEqual(
    events.filter((e) => e.type === "retry").map((e) => (e.type === "retry" ? e.delayMs : 0)),
    [20, 40],
  );
  await c.close();
});

test("a POST is not sent again after a 502 (it may have been processed)", async () => {
  const c = client();
  await c.accessToken();
  const before = fx.emulator.stats().apiCalls;
  fx.emulator.failNext({ status: 502 });
  const res = await c.fetch(CLASSES, { method: "POST", body: "{}", headers: XED_ID });
  assert.equal(res.status, 502);
  await res.arrayBuffer();
  assert.equal(fx.emulator.stats().apiCalls - before, 1);
  await c.close();
});

test("every error body shape becomes one error with status, code, message and request id", async () => {
  const c = client();
  await c.accessToken();
  const cases: { body: unknown; contentType?: string; status: number; code?: string; message: RegExp }[] = [
    {
      status: 403,
      body: { error_code: "403003", message: "Api Key is invalid" },
      code: "403003",
      message: /Api Key is invalid/,
    },
    {
      status: 400,
      body: {
        type: "http://ns.adobe.com/aep/errors/XDM-1010-400",
        title: "Bad Request",
        status: 400,
        detail: "limit is out of range",
        report: { requestId: "rep-1" },
      },
      code: "XDM-1010-400",
      message: /Bad Request: limit is out of range/,
    },
    {
      status: 400,
      body: { error: "invalid_request", error_description: "bad grant" },
      code: "invalid_request",
      message: /bad grant/,
    },
    {
      status: 409,
      body: { error: { code: "EXEG-0504-409", message: "conflict here" } },
      code: "EXEG-0504-409",
      message: /conflict here/,
    },
    {
      status: 422,
      body: {
        errors: [
          { code: "E1", message: "first problem" },
          { code: "E2", message: "second" },
        ],
      },
      code: "E1",
      message: /first problem \(and 1 more\)/,
    },
    { status: 500, body: "upstream exploded", contentType: "text/plain", message: /upstream exploded/ },
    {
      status: 502,
      body: "<html><head><title>502</title></head><body><h1>Bad Gateway</h1></body></html>",
      contentType: "text/html",
      message: /Bad Gateway/,
    },
    { status: 418, body: "", contentType: "text/plain", message: /HTTP 418/ },
  ];
  for (const k of cases) {
    fx.emulator.failNext({ status: k.status, body: k.body, contentType: k.contentType });
    // POST so that the 5xx cases are not retried: each shape is read from exactly one answer.
    const err = await rejects(c.json(CLASSES, { method: "POST", headers: XED_ID }), `shape ${k.status}`);
    assert.equal(err.code, "PA_API_ERROR");
    assert.equal(err.status, k.status);
    assert.equal(err.serviceCode, k.code);
    assert.match(err.message, k.message);
    assert.match(err.requestId ?? "", /^[0-9a-f-]{36}$/, "request id from x-request-id");
  }
  await c.close();
});

test("missing settings, bad URLs and foreign origins are named errors before any request", async () => {
  const missing = await rejects(
    (async () => new PlatformClient({ env: fx.env, cwd: fx.dir, clientId: "abc" }))(),
    "missing",
  );
  assert.equal(missing.code, "PA_CONFIG_MISSING");
  assert.match(missing.message, /client secret, org id/);
  const insecure = await rejects(
    (async () => client({ baseUrl: "http://platform.example.com" }))(),
    "insecure",
  );
  assert.equal(insecure.code, "PA_CONFIG_INVALID");
  assert.match(insecure.message, /use https/);
  const c = client();
  const foreign = await rejects(c.fetch("https://elsewhere.example.com/x"), "foreign origin");
  assert.equal(foreign.code, "PA_USAGE");
  await c.close();
});

test("an unreachable service is PA_NETWORK after the bounded attempts", async () => {
  const { createServer } = await import("node:net");
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
  const port = (probe.address() as { port: number }).port;
  await new Promise((r) => probe.close(r));
  const c = client({ authUrl: `http://127.0.0.1:${port}`, retry: { maxAttempts: 2, baseDelayMs: 1 } });
  const err = await rejects(c.accessToken(), "unreachable");
  assert.equal(err.code, "PA_NETWORK");
  assert.ok(
    err.message.includes(`could not reach http://127.0.0.1:${port}/ims/token/v3 after 2 attempts`),
    err.message,
  );
  assert.match(
    err.message,
    /connection refused \(ECONNREFUSED\).*check the auth URL \(--auth-url, AEP_AUTH_URL\)/,
  );
  await c.close();
});

test("a port that fetch refuses (a Fetch-standard bad port) is named with the URL, not as 'bad port'", async () => {
  const c = client({ baseUrl: "http://127.0.0.1:6000", retry: { maxAttempts: 1 } });
  await c.accessToken();
  const err = await rejects(c.json(CLASSES, { headers: XED_ID }), "bad port");
  assert.equal(err.code, "PA_NETWORK");
  assert.match(
    err.message,
    /^could not reach http:\/\/127\.0\.0\.1:6000\/data\/foundation\/schemaregistry\/global\/classes after 1 attempt: /,
  );
  assert.match(
    err.message,
    /"bad port" of the Fetch standard.*check the base URL \(--base-url, AEP_BASE_URL\)/,
  );
  await c.close();
});

test("a slow answer is PA_TIMEOUT after the per-attempt timeout, retried within the attempt budget", async () => {
  // undici checks these timeouts on a ~0.5 s tick, so the figures here are seconds, not milliseconds.
  const c = client({ retry: { attemptTimeoutMs: 1000, maxAttempts: 2, baseDelayMs: 1 } });
  await c.accessToken();
  const before = fx.emulator.stats().apiCalls;
  fx.emulator.setDelay(2200);
  try {
    const err = await rejects(c.json(CLASSES, { headers: XED_ID }), "timeout");
    assert.equal(err.code, "PA_TIMEOUT");
    assert.match(
      err.message,
      /^could not reach http:\/\/127\.0\.0\.1:\d+\/data\/\S+ after 2 attempts: no answer within the attempt timeout/,
    );
    assert.equal(fx.emulator.stats().apiCalls - before, 2);
  } finally {
    fx.emulator.setDelay(0);
  }
  await c.close();
});

test("options are checked at construction with named errors", async () => {
  const bad = await rejects((async () => client({ retry: { maxAttempts: 0 } }))(), "bad retry");
  assert.match(bad.message, /retry option maxAttempts must be a number ≥ 1/);
  const margin = await rejects((async () => client({ refreshMarginMs: -1 }))(), "bad margin");
  assert.match(margin.message, /refreshMarginMs/);
  const key = await rejects(
    (async () =>
      client({ authMethod: "jwt", technicalAccountId: "t@techacct.adobe.com", privateKey: "not a key" }))(),
    "bad key",
  );
  assert.equal(key.code, "PA_KEY_INVALID");
  const c = client();
  const body = await rejects(c.fetch(CLASSES, { method: "POST", body: {} as unknown as string }), "bad body");
  assert.match(body.message, /request body must be a string/);
  await c.close();
});

test("no secret or token appears in any error, event or inspected object of this file", async () => {
  const c = client();
  await c.accessToken();
  sweep.add("inspect(client)", (await import("node:util")).inspect(c, { depth: 6, showHidden: true }));
  sweep.add("describe()", JSON.stringify(c.describe()));
  await c.close();
  assert.ok(issued.length > 5, "tokens were issued to check against");
  assert.ok(sweep.captured.length > 40);
  const secrets = [
    { name: "client secret", value: fx.clientSecret },
    ...keyBody(fx.privateKeyPem).map((value, i) => ({ name: `private key line ${i}`, value })),
    ...issued.map((value, i) => ({ name: `token ${i}`, value, isToken: true })),
  ];
  assert.deepEqual(sweep.leaks(secrets), []);
});

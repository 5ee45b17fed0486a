// The emulator's production behaviours (rate budget, revocation mid-run, identity internal_error,
// slow answers) and what the real client does against each.
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { PlatformAuthError } from "../errors.js";
import { GLOBAL_CLASSES_PATH } from "../global-classes.js";
import { type ClientEvent, PlatformClient, type PlatformClientOptions } from "../platform-client.js";
import { type EmulatorFixture, startEmulator } from "../test-support/emulator-fixture.js";
import { PlatformEmulator } from "./platform-emulator.js";

const XED_ID = { accept: "application/vnd.adobe.xed-id+json" };
let fx: EmulatorFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

function client(
  f: EmulatorFixture,
  events: ClientEvent[],
  extra: PlatformClientOptions = {},
): PlatformClient {
  return new PlatformClient({
    clientId: f.clientId,
    clientSecret: f.clientSecret,
    orgId: f.orgId,
    authUrl: f.url,
    baseUrl: f.url,
    env: f.env,
    cwd: f.dir,
    retry: { baseDelayMs: 1, random: () => 0 },
    onEvent: (e) => events.push(e),
    ...extra,
  });
}

test("rate budget: over it, 429 with Retry-After = the rest of the window; the client waits it out", async () => {
  fx = await startEmulator({ rateLimit: { requests: 3, perSeconds: 1 } });
  // Straight to the emulator first: the answer itself.
  const raw = [];
  for (let i = 0; i < 4; i++) {
    raw.push(await fetch(`${fx.url}${GLOBAL_CLASSES_PATH}`, { headers: { "x-api-key": fx.clientId } }));
  }
  assert.deepEqual(
    raw.map((r) => r.status),
    [401, 401, 401, 429],
  );
  assert.equal(raw[3].headers.get("retry-after"), "1");
  assert.deepEqual(await raw[3].json(), { error_code: "429050", message: "Too many requests" });

  const events: ClientEvent[] = [];
  const c = client(fx, events);
  // The budget (mint + 2 calls) is spent within the window the raw calls opened or the next one.
  const started = Date.now();
  for (let i = 0; i < 4; i++) await c.json(GLOBAL_CLASSES_PATH, { headers: XED_ID });
  const retries = events.filter((e) => e.type === "retry");
  assert.ok(retries.length >= 1, "at least one 429 was retried");
  for (const r of retries) {
    assert.equal(r.reason, "HTTP 429");
    assert.ok(r.delayMs >= 1000, `waited ${r.delayMs} ms, at least Retry-After`);
  }
  assert.ok(Date.now() - started >= 1000);
  await c.close();
});

test("rate budget spent with no retries left: PA_API_ERROR with reason throttled and its fix", async () => {
  fx = await startEmulator({ rateLimit: { requests: 2, perSeconds: 60 } });
  const c = client(fx, [], { retry: { maxAttempts: 2, baseDelayMs: 1, maxTotalMs: 5_000 } });
  await c.json(GLOBAL_CLASSES_PATH, { headers: XED_ID });
  await assert.rejects(c.json(GLOBAL_CLASSES_PATH, { headers: XED_ID }), (err: unknown) => {
    assert.ok(err instanceof PlatformAuthError);
    assert.equal(err.code, "PA_API_ERROR");
    assert.equal(err.status, 429);
    assert.equal(err.reason, "throttled");
    assert.match(err.fix ?? "", /shares this credential/);
    return true;
  });
  await c.close();
});

test("a token revoked in the middle of a run: 401013 on the next call, one re-mint, the run goes on", async () => {
  fx = await startEmulator();
  const events: ClientEvent[] = [];
  const c = client(fx, events);
  await c.json(GLOBAL_CLASSES_PATH, { headers: XED_ID });
  fx.emulator.revokeAfter(2);
  const raw = async () =>
    fetch(`${fx?.url}${GLOBAL_CLASSES_PATH}`, { headers: { ...(await c.headers()), ...XED_ID } });
  assert.equal((await raw()).status, 200);
  assert.equal((await raw()).status, 200);
  const refused = await raw();
  assert.equal(refused.status, 401);
  assert.deepEqual(await refused.json(), { error_code: "401013", message: "Oauth token is not valid" });
  const mints0 = fx.emulator.stats().mints;
  await c.json(GLOBAL_CLASSES_PATH, { headers: XED_ID });
  assert.equal(fx.emulator.stats().mints - mints0, 1);
  assert.deepEqual(
    events.filter((e) => e.type === "remint").map((e) => e.type === "remint" && e.reason),
    ["401013"],
  );
  await c.close();
});

test("identity internal_error: the token request fails with reason identity_unavailable, not as bad credentials", async () => {
  fx = await startEmulator();
  fx.emulator.failNext({ status: 500, target: "token" });
  const c = client(fx, []);
  await assert.rejects(c.accessToken(), (err: unknown) => {
    assert.ok(err instanceof PlatformAuthError);
    assert.equal(err.code, "PA_API_ERROR");
    assert.equal(err.serviceCode, "internal_error");
    assert.equal(err.reason, "identity_unavailable");
    assert.match(err.message, /^the identity service could not issue a token \(HTTP 500\) internal_error/);
    return true;
  });
  // 503 from the identity service is retried (it says the request was not processed).
  fx.emulator.failNext({ status: 503, target: "token", count: 2 });
  const events: ClientEvent[] = [];
  const again = client(fx, events);
  await again.accessToken();
  assert.equal(events.filter((e) => e.type === "retry").length, 2);
  await c.close();
  await again.close();
});

test("slow identity answers within the timeout are waited for; the emulator's own checks of its switches", async () => {
  fx = await startEmulator({ delayMs: 300 });
  const c = client(fx, []);
  const started = Date.now();
  await c.accessToken();
  assert.ok(Date.now() - started >= 300);
  assert.throws(() => fx?.emulator.revokeAfter(-1), /integer ≥ 0/);
  assert.throws(() => fx?.emulator.retireSecret(1), /one secret must remain/);
  const credentials = [{ clientId: "a", clientSecret: "b", orgId: "c@AdobeOrg" }];
  assert.throws(
    () => new PlatformEmulator({ credentials, rateLimit: { requests: 0, perSeconds: 1 } }),
    /rateLimit must be \{ requests: integer ≥ 1, perSeconds: number > 0 \}/,
  );
  await c.close();
});

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { refreshTimeOf } from "./access-token.js";
import { PlatformClient } from "./platform-client.js";
import { type EmulatorFixture, startEmulator } from "./test-support/emulator-fixture.js";

// One fake clock shared by the emulator and the clients, so that tokens age without waiting.
let now = Date.UTC(2026, 0, 1);
const clock = () => now;
let fx: EmulatorFixture;
const HOUR = 3_600_000;
const MIN = 60_000;

before(async () => {
  fx = await startEmulator({ now: clock, tokenLifetimeSeconds: 3600 });
});
after(() => fx.close());

function client(method: "oauth" | "jwt", refreshMarginMs?: number): PlatformClient {
  return new PlatformClient({
    clientId: fx.clientId,
    clientSecret: fx.clientSecret,
    orgId: fx.orgId,
    authUrl: fx.url,
    baseUrl: fx.url,
    env: fx.env,
    cwd: fx.dir,
    now: clock,
    refreshMarginMs,
    ...(method === "jwt"
      ? { authMethod: "jwt", technicalAccountId: fx.technicalAccountId, privateKeyFile: fx.privateKeyFile }
      : {}),
  });
}

for (const method of ["oauth", "jwt"] as const) {
  test(`${method}: a 1 h token is reused until 10 min before expiry, then re-minted`, async () => {
    const c = client(method);
    const start = now;
    const mints = () => fx.emulator.stats().mints;
    const m0 = mints();
    const first = await c.accessToken();
    // The unit of expires_in is right for the method: exactly one hour, by the fake clock.
    assert.equal(first.expiresAt - start, HOUR);
    now = start + 49 * MIN + 59_000;
    assert.equal((await c.accessToken()).accessToken, first.accessToken);
    assert.equal(mints() - m0, 1);
    now = start + 50 * MIN + 1000;
    const second = await c.accessToken();
    assert.notEqual(second.accessToken, first.accessToken);
    assert.equal(mints() - m0, 2);
    assert.equal(second.expiresAt, now + HOUR);
    await c.close();
  });
}

test("the margin never exceeds half a token's lifetime, so a short-lived token is still used", async () => {
  // A 2 h margin on a 1 h token: refresh after 30 min, not at once.
  const c = client("oauth", 2 * HOUR);
  const start = now;
  const m0 = fx.emulator.stats().mints;
  const first = await c.accessToken();
  now = start + 29 * MIN;
  assert.equal((await c.accessToken()).accessToken, first.accessToken);
  now = start + 31 * MIN;
  assert.notEqual((await c.accessToken()).accessToken, first.accessToken);
  assert.equal(fx.emulator.stats().mints - m0, 2);
  await c.close();
});

test("refreshTimeOf: margin, capped at half the lifetime", () => {
  const t = { accessToken: "x", obtainedAt: 0, expiresAt: 86_400_000, method: "oauth" as const };
  assert.equal(refreshTimeOf(t, 600_000), 86_400_000 - 600_000);
  const short = { ...t, expiresAt: 60_000 };
  assert.equal(refreshTimeOf(short, 600_000), 30_000);
});

test("concurrent callers after expiry share one re-mint", async () => {
  const c = client("jwt");
  await c.accessToken();
  now += 2 * HOUR;
  const m0 = fx.emulator.stats().mints;
  const tokens = await Promise.all(Array.from({ length: 200 }, () => c.accessToken()));
  assert.equal(new Set(tokens.map((t) => t.accessToken)).size, 1);
  assert.equal(fx.emulator.stats().mints - m0, 1);
  await c.close();
});

import assert from "node:assert/strict";
import { chmodSync, existsSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { PlatformAuthError } from "./errors.js";
import { PlatformClient } from "./platform-client.js";
import { type EmulatorFixture, startEmulator } from "./test-support/emulator-fixture.js";
import { TokenFileStore, tokenCacheKey } from "./token-file-store.js";

let fx: EmulatorFixture;
before(async () => {
  fx = await startEmulator();
});
after(() => fx.close());

const client = (tokenCache: string, scopes?: string) =>
  new PlatformClient({
    clientId: fx.clientId,
    clientSecret: fx.clientSecret,
    orgId: fx.orgId,
    authUrl: fx.url,
    baseUrl: fx.url,
    env: fx.env,
    cwd: fx.dir,
    tokenCache,
    scopes,
  });

test("the cache file is owner-only (0600 in a 0700 folder) and spares the next process a mint", async () => {
  const file = join(fx.dir, "cache", "platform-auth", "tokens.json");
  const m0 = fx.emulator.stats().mints;
  const a = client(file);
  const t1 = await a.accessToken();
  await a.close();
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(statSync(join(fx.dir, "cache", "platform-auth")).mode & 0o777, 0o700);
  const b = client(file);
  assert.equal((await b.accessToken()).accessToken, t1.accessToken);
  await b.close();
  assert.equal(fx.emulator.stats().mints - m0, 1);
  // Another scope set is another key: it mints its own token and keeps the first.
  const c = client(file, "openid");
  assert.notEqual((await c.accessToken()).accessToken, t1.accessToken);
  await c.close();
  assert.equal(fx.emulator.stats().mints - m0, 2);
});

test("a cache file others can read is refused with the fix in the message", async () => {
  const file = join(fx.dir, "loose.json");
  writeFileSync(file, "{}", { mode: 0o644 });
  chmodSync(file, 0o644);
  const c = client(file);
  await assert.rejects(c.accessToken(), (err: unknown) => {
    assert.ok(err instanceof PlatformAuthError);
    assert.equal(err.code, "PA_CACHE");
    assert.match(err.message, /mode 644.*chmod 600/);
    return true;
  });
  await c.close();
});

test("a damaged cache file costs a mint, not a failure; remove() keeps a newer token", () => {
  const file = join(fx.dir, "damaged.json");
  writeFileSync(file, "{not json", { mode: 0o600 });
  const store = new TokenFileStore(file);
  const key = tokenCacheKey({
    method: "oauth",
    authUrl: fx.url,
    clientId: "c",
    orgId: "o",
    scopes: ["b", "a"],
  });
  assert.equal(
    key,
    tokenCacheKey({ method: "oauth", authUrl: fx.url, clientId: "c", orgId: "o", scopes: ["a", "b"] }),
  );
  assert.equal(store.load(key), undefined);
  const token = {
    accessToken: "new-token-value",
    expiresAt: Date.now() + 1000,
    obtainedAt: Date.now(),
    method: "oauth" as const,
  };
  store.save(key, token);
  store.remove(key, "old-token-value");
  assert.equal(store.load(key)?.accessToken, "new-token-value");
  store.remove(key, "new-token-value");
  assert.equal(store.load(key), undefined);
});

test("the mint lock: held by one at a time, a stale lock is taken over, a live one is waited for only so long", async () => {
  const store = new TokenFileStore(join(fx.dir, "locks", "tokens.json"));
  const order: string[] = [];
  const slow = store.withLock(async () => {
    order.push("a start");
    await new Promise((r) => setTimeout(r, 150));
    order.push("a end");
  });
  await new Promise((r) => setTimeout(r, 20));
  await store.withLock(async () => {
    order.push("b");
  });
  await slow;
  assert.deepEqual(order, ["a start", "a end", "b"]);
  assert.equal(existsSync(`${store.path}.lock`), false, "released");

  writeFileSync(`${store.path}.lock`, "", { mode: 0o600 });
  utimesSync(`${store.path}.lock`, new Date(Date.now() - 120_000), new Date(Date.now() - 120_000));
  const t0 = Date.now();
  assert.equal(await store.withLock(async () => "ran"), "ran");
  assert.ok(Date.now() - t0 < 1000, "a stale lock does not make anyone wait");

  writeFileSync(`${store.path}.lock`, "", { mode: 0o600 });
  const t1 = Date.now();
  assert.equal(await store.withLock(async () => "ran anyway", { maxWaitMs: 200 }), "ran anyway");
  assert.ok(Date.now() - t1 >= 200);
  assert.equal(existsSync(`${store.path}.lock`), true, "someone else's live lock is left alone");
});

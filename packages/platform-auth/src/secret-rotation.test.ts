// A client secret rotation as the Developer Console runs it: two secrets accepted for a while, then
// the old one deleted. The client must keep working throughout and say once that a secret died.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { PlatformAuthError } from "./errors.js";
import { GLOBAL_CLASSES_PATH } from "./global-classes.js";
import { type ClientEvent, PlatformClient } from "./platform-client.js";
import { type EmulatorFixture, startEmulator } from "./test-support/emulator-fixture.js";

const XED_ID = { accept: "application/vnd.adobe.xed-id+json" };
let fx: EmulatorFixture;

before(async () => {
  fx = await startEmulator({}, { rotation: true });
});
after(() => fx.close());

function client(secrets: string[], events: ClientEvent[]): PlatformClient {
  return new PlatformClient({
    clientId: fx.clientId,
    clientSecrets: secrets,
    orgId: fx.orgId,
    authUrl: fx.url,
    baseUrl: fx.url,
    env: fx.env,
    cwd: fx.dir,
    retry: { baseDelayMs: 1 },
    onEvent: (e) => events.push(e),
  });
}

test("during the window both secrets work; after the old one is retired the next is used, said once", async () => {
  const events: ClientEvent[] = [];
  const c = client([fx.clientSecret, fx.nextSecret], events);
  const requests0 = fx.emulator.stats().tokenRequests;
  await c.json(GLOBAL_CLASSES_PATH, { headers: XED_ID });
  assert.equal(fx.emulator.stats().tokenRequests - requests0, 1, "the first secret works in the window");

  fx.emulator.retireSecret(1);
  fx.emulator.revokeTokens();
  await c.json(GLOBAL_CLASSES_PATH, { headers: XED_ID });
  const rejected = events.filter((e) => e.type === "secret-rejected");
  assert.deepEqual(rejected, [{ type: "secret-rejected", rejected: 1, accepted: 2, of: 2 }]);
  assert.equal(fx.emulator.stats().tokenRequests - requests0, 3, "one refused request, one accepted");

  // The secret that worked is tried first from now on: no more refused requests, no second warning.
  fx.emulator.revokeTokens();
  await c.json(GLOBAL_CLASSES_PATH, { headers: XED_ID });
  assert.equal(fx.emulator.stats().tokenRequests - requests0, 4);
  assert.equal(events.filter((e) => e.type === "secret-rejected").length, 1);
  assert.ok(!JSON.stringify(events).includes(fx.clientSecret), "events carry positions, not secrets");
  await c.close();
});

test("when no secret is accepted the last refusal is the error, with its reason and fix", async () => {
  const events: ClientEvent[] = [];
  const c = client(["p8e-wrong-one-000000", "p8e-wrong-two-000000"], events);
  const requests0 = fx.emulator.stats().tokenRequests;
  await assert.rejects(c.accessToken(), (err: unknown) => {
    assert.ok(err instanceof PlatformAuthError);
    assert.equal(err.code, "PA_AUTH_FAILED");
    assert.equal(err.reason, "invalid_client_secret");
    assert.match(err.fix ?? "", /Retrieve a current client secret/);
    assert.ok(!err.message.includes("p8e-wrong"), "no secret in the message");
    return true;
  });
  assert.equal(fx.emulator.stats().tokenRequests - requests0, 2, "each secret tried once");
  assert.equal(events.filter((e) => e.type === "secret-rejected").length, 0);
  await c.close();
});

test("a refusal that is not invalid_client is not retried with the other secret", async () => {
  const c = new PlatformClient({
    clientId: fx.clientId,
    // The first secret is good (the old one was retired above), so the scope is what fails.
    clientSecrets: [fx.nextSecret, "p8e-never-tried-0000"],
    orgId: fx.orgId,
    scopes: "openid,not_a_scope",
    authUrl: fx.url,
    baseUrl: fx.url,
    env: fx.env,
    cwd: fx.dir,
  });
  const requests0 = fx.emulator.stats().tokenRequests;
  await assert.rejects(c.accessToken(), (err: unknown) => {
    assert.ok(err instanceof PlatformAuthError);
    assert.equal(err.reason, "invalid_scope");
    return true;
  });
  assert.equal(fx.emulator.stats().tokenRequests - requests0, 1);
  await c.close();
});

test("settings: AEP_CLIENT_SECRETS lists several; a secret set in a higher layer replaces the list", async () => {
  const fromEnv = new PlatformClient({
    env: {
      ...fx.env,
      AEP_CLIENT_ID: fx.clientId,
      AEP_ORG_ID: fx.orgId,
      AEP_CLIENT_SECRETS: `${fx.clientSecret}, ${fx.nextSecret}`,
    },
    cwd: fx.dir,
  });
  assert.equal(fromEnv.describe().clientSecretCount, 2);
  const overridden = new PlatformClient({
    clientSecret: fx.nextSecret,
    env: {
      ...fx.env,
      AEP_CLIENT_ID: fx.clientId,
      AEP_ORG_ID: fx.orgId,
      AEP_CLIENT_SECRETS: "a1b2c3d4e5,f6g7h8i9j0",
    },
    cwd: fx.dir,
  });
  assert.equal(overridden.describe().clientSecretCount, 1);
  assert.ok(!JSON.stringify(fromEnv.describe()).includes(fx.clientSecret));
  await fromEnv.close();
  await overridden.close();
});

test("between processes: the next CLI run tries the live secret first and does not warn again", async () => {
  // By now the emulator accepts only the next secret (the first was retired above).
  const bin = fileURLToPath(new URL("../bin/platform-auth.js", import.meta.url));
  const env = {
    ...fx.env,
    AEP_CLIENT_ID: fx.clientId,
    AEP_CLIENT_SECRETS: `${fx.clientSecret},${fx.nextSecret}`,
    AEP_ORG_ID: fx.orgId,
    AEP_AUTH_URL: fx.url,
    AEP_BASE_URL: fx.url,
  };
  const run = () => promisify(execFile)(process.execPath, [bin, "token", "--no-cache"], { env, cwd: fx.dir });
  const r0 = fx.emulator.stats().tokenRequests;
  const first = await run();
  assert.match(
    first.stderr,
    /warning: client secret #1 of 2 is no longer accepted \(invalid_client\); #2 worked/,
  );
  const r1 = fx.emulator.stats().tokenRequests;
  assert.equal(r1 - r0, 2);
  const second = await run();
  assert.equal(second.stderr, "");
  assert.equal(fx.emulator.stats().tokenRequests - r1, 1, "the live secret first");
  const memory = join(fx.env.XDG_CACHE_HOME, "platform-auth", "secrets.json");
  assert.equal(statSync(memory).mode & 0o777, 0o600);
  const text = readFileSync(memory, "utf8");
  assert.ok(!text.includes(fx.clientSecret) && !text.includes(fx.nextSecret), "fingerprints only");
  assert.match(text, /"working":"[0-9a-f]{16}","refused":\["[0-9a-f]{16}"\]/);
});

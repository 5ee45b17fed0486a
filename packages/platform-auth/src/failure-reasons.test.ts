// Each identity and gateway answer the client can meet, from the emulator, ends in its reason.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { PlatformAuthError } from "./errors.js";
import type { FailureReasonCode } from "./failure-reasons.js";
import { GLOBAL_CLASSES_PATH } from "./global-classes.js";
import { PlatformClient, type PlatformClientOptions } from "./platform-client.js";
import { type EmulatorFixture, startEmulator } from "./test-support/emulator-fixture.js";

const XED_ID = { accept: "application/vnd.adobe.xed-id+json" };
let fx: EmulatorFixture;
before(async () => {
  fx = await startEmulator({ sandboxes: ["prod"] });
});
after(() => fx.close());

function client(extra: PlatformClientOptions = {}): PlatformClient {
  return new PlatformClient({
    clientId: fx.clientId,
    clientSecret: fx.clientSecret,
    orgId: fx.orgId,
    authUrl: fx.url,
    baseUrl: fx.url,
    env: fx.env,
    cwd: fx.dir,
    retry: { maxAttempts: 1 },
    ...extra,
  });
}

async function reasonOf(run: (c: PlatformClient) => Promise<unknown>, extra: PlatformClientOptions = {}) {
  const c = client(extra);
  try {
    await run(c);
  } catch (err) {
    assert.ok(err instanceof PlatformAuthError, String(err));
    assert.ok(err.fix && err.fix.length > 20, "a reason always comes with a fix");
    return { reason: err.reason, code: err.code };
  } finally {
    await c.close();
  }
  assert.fail("expected a failure");
}

const list = (c: PlatformClient) => c.json(GLOBAL_CLASSES_PATH, { headers: XED_ID });

test("identity refusals: unknown client id, wrong secret, scope not granted", async () => {
  assert.deepEqual(await reasonOf((c) => c.accessToken(), { clientId: "nosuchclient0000" }), {
    reason: "invalid_client_id",
    code: "PA_AUTH_FAILED",
  });
  assert.deepEqual(await reasonOf((c) => c.accessToken(), { clientSecret: "p8e-not-it-000000" }), {
    reason: "invalid_client_secret",
    code: "PA_AUTH_FAILED",
  });
  assert.deepEqual(await reasonOf((c) => c.accessToken(), { scopes: "openid,ent_nope" }), {
    reason: "invalid_scope",
    code: "PA_AUTH_FAILED",
  });
});

test("gateway answers: org of another credential, unknown sandbox, revoked token", async () => {
  assert.equal(
    (await reasonOf(list, { orgId: "FFFFFFFFFFFFFFFFFFFFFFFF@AdobeOrg" })).reason,
    "org_not_entitled",
  );
  assert.equal((await reasonOf(list, { sandbox: "nosuch" })).reason, "sandbox_unknown");
  // A revoked token is re-minted once; when the next one is refused too, that is the reason.
  fx.emulator.failNext({ status: 401, count: 2 });
  assert.equal((await reasonOf(list)).reason, "token_rejected");
});

test("403 with and without a product profile, 429 and 5xx", async () => {
  const cases: [unknown, number, FailureReasonCode][] = [
    [{ error_code: "403027", message: "User region is missing" }, 403, "no_product_profile"],
    [
      {
        type: "https://ns.adobe.com/aep/errors/EXEG-0503-403",
        title: "Forbidden",
        detail: "Missing permission",
      },
      403,
      "permission_missing",
    ],
    [{ error_code: "403003", message: "Api Key is invalid" }, 403, "api_key_mismatch"],
    [undefined, 429, "throttled"],
    [undefined, 502, "service_failed"],
  ];
  for (const [body, status, reason] of cases) {
    fx.emulator.failNext({ status, body });
    assert.equal((await reasonOf(list)).reason, reason, `${status} ${JSON.stringify(body)}`);
  }
  fx.emulator.failNext({ status: 429, target: "token" });
  assert.deepEqual(await reasonOf((c) => c.accessToken(), { tokenCache: "off" }), {
    reason: "identity_throttled",
    code: "PA_API_ERROR",
  });
});

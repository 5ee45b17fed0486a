import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type EmulatorFixture, startEmulator } from "../test-support/emulator-fixture.js";

const CLASSES = "/data/foundation/schemaregistry/global/classes";
let fx: EmulatorFixture;
let token: string;

before(async () => {
  fx = await startEmulator({ sandboxes: ["prod", "dev"] });
  const res = await fetch(`${fx.url}/ims/token/v3`, {
    method: "POST",
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: fx.clientId,
      client_secret: fx.clientSecret,
      scope: "openid,AdobeID",
    }),
  });
  const body = (await res.json()) as { access_token: string; expires_in: number; token_type: string };
  assert.equal(body.expires_in, 86_399, "OAuth expires_in is seconds");
  token = body.access_token;
});
after(() => fx.close());

const good = () => ({
  authorization: `Bearer ${token}`,
  "x-api-key": fx.clientId,
  "x-gw-ims-org-id": fx.orgId,
  accept: "application/vnd.adobe.xed-id+json",
});

async function call(headers: Record<string, string>, path = CLASSES) {
  const res = await fetch(fx.url + path, { headers });
  return {
    status: res.status,
    body: (await res.json()) as Record<string, unknown>,
    requestId: res.headers.get("x-request-id"),
  };
}

test("its tokens look like the platform's: a JWT with type, client_id, scope, created_at and expires_in in ms", () => {
  const payload = JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString());
  assert.equal(payload.type, "access_token");
  assert.equal(payload.client_id, fx.clientId);
  assert.equal(payload.scope, "openid,AdobeID");
  assert.match(payload.created_at, /^\d{13}$/);
  assert.equal(payload.expires_in, "86399000");
});

test("each missing or wrong header is answered the way the gateway and registry do", async () => {
  const { "x-api-key": _k, ...noKey } = good();
  assert.deepEqual((await call(noKey)).body, { error_code: "403000", message: "Api Key is required" });
  const { authorization: _a, ...noAuth } = good();
  const r401 = await call(noAuth);
  assert.equal(r401.status, 401);
  assert.equal(r401.body.error_code, "401013");
  assert.equal((await call({ ...good(), authorization: `Bearer ${token}x` })).status, 401);
  const wrongKey = await call({ ...good(), "x-api-key": "someone-else" });
  assert.deepEqual([wrongKey.status, wrongKey.body.error_code], [403, "403003"]);
  const { "x-gw-ims-org-id": _o, ...noOrg } = good();
  const r400 = await call(noOrg);
  assert.equal(r400.status, 400);
  assert.match(String(r400.body.detail), /x-gw-ims-org-id/);
  assert.equal((await call({ ...good(), "x-gw-ims-org-id": "OTHER@AdobeOrg" })).body.error_code, "403025");
  const sbx = await call({ ...good(), "x-sandbox-name": "nope" });
  assert.deepEqual([sbx.status, sbx.body.title], [403, "Sandbox not found"]);
  assert.equal((await call({ ...good(), "x-sandbox-name": "dev" })).status, 200);
  const r406 = await call({ ...good(), accept: "application/json" });
  assert.equal(r406.status, 406);
  assert.match(r406.requestId ?? "", /^[0-9a-f-]{36}$/);
  assert.equal((await call(good(), `${CLASSES}?limit=301`)).status, 400);
  assert.equal((await call(good(), "/data/foundation/catalog/dataSets")).status, 404);
});

test("pages: records ordered by title with _page.next and _links.next, full records on request", async () => {
  const p1 = await call(good(), `${CLASSES}?limit=10`);
  const page = p1.body._page as { next: string; count: number; orderby: string };
  assert.deepEqual([page.count, page.orderby], [10, "title"]);
  const links = p1.body._links as { next: { href: string } };
  assert.equal(
    links.next.href,
    `${CLASSES}?start=${encodeURIComponent(page.next).replace(/%20/g, "+")}&limit=10`,
  );
  const p2 = await call(good(), links.next.href);
  const page2 = p2.body._page as { next: string; count: number };
  assert.equal(page2.count, 10);
  const p3 = await call(good(), `${CLASSES}?limit=10&start=${encodeURIComponent(page2.next)}`);
  assert.deepEqual(p3.body._page, { orderby: "title", next: null, count: 5 }, "25 classes: 10 + 10 + 5");
  assert.deepEqual(p3.body._links, {});
  const titles = [p1, p2, p3].flatMap((p) => (p.body.results as { title: string }[]).map((r) => r.title));
  assert.equal(new Set(titles).size, 25);
  assert.deepEqual(titles, [...titles].sort());
  const full = await call({ ...good(), accept: "application/vnd.adobe.xed+json" }, `${CLASSES}?limit=1`);
  assert.equal((full.body.results as { type: string }[])[0].type, "object");
});

test("identity errors: 400 for a malformed request, 401 for bad credentials; bad input never crashes it", async () => {
  const post = async (path: string, body: string | URLSearchParams, headers?: Record<string, string>) => {
    const res = await fetch(fx.url + path, { method: "POST", body, headers });
    return { status: res.status, body: await res.text(), debugId: res.headers.get("x-debug-id") };
  };
  const missing = await post("/ims/token/v3", new URLSearchParams({ grant_type: "client_credentials" }));
  assert.equal(missing.status, 400);
  assert.match(missing.body, /"error":"invalid_request".*client_id, client_secret/);
  const badSecret = await post(
    "/ims/token/v3",
    new URLSearchParams({
      grant_type: "client_credentials",
      client_id: fx.clientId,
      client_secret: "nope-nope",
    }),
  );
  assert.equal(badSecret.status, 401);
  assert.ok(badSecret.debugId);
  assert.equal((await post("/ims/token/v3", "{}", { "content-type": "application/json" })).status, 400);
  assert.equal(
    (
      await post(
        "/ims/exchange/jwt",
        new URLSearchParams({ client_id: fx.clientId, client_secret: fx.clientSecret, jwt_token: "x.y" }),
      )
    ).status,
    400,
  );
  const huge = await post("/ims/token/v3", "a=".padEnd(70_000, "b"), {
    "content-type": "application/x-www-form-urlencoded",
  });
  assert.equal(huge.status, 400);
  const garbled = await post("/ims/token/v3", "--x\r\nnot multipart", {
    "content-type": "multipart/form-data; boundary=zz",
  });
  assert.equal(garbled.status, 400);
  for (const r of [missing, badSecret, huge, garbled])
    assert.doesNotMatch(r.body, /at .*\.ts|\/work\/|node:internal/);
  // Still serving after all of it.
  assert.equal((await call(good())).status, 200);
});

test("switches: delay, injected failures with Retry-After, revocation, and the admin endpoints", async () => {
  fx.emulator.setDelay(120);
  const t0 = Date.now();
  await call(good(), `${CLASSES}?limit=1`);
  assert.ok(Date.now() - t0 >= 110);
  fx.emulator.setDelay(0);
  const q = await fetch(`${fx.url}/__emulator/fail`, {
    method: "POST",
    body: JSON.stringify({ status: 429, retryAfter: 3 }),
  });
  assert.equal(q.status, 200);
  const res = await fetch(fx.url + CLASSES, { headers: good() });
  assert.equal(res.status, 429);
  assert.equal(res.headers.get("retry-after"), "3");
  await res.arrayBuffer();
  const bad = await fetch(`${fx.url}/__emulator/fail`, {
    method: "POST",
    body: JSON.stringify({ status: 200 }),
  });
  assert.equal(bad.status, 400);
  assert.match(await bad.text(), /400-599/);
  await fetch(`${fx.url}/__emulator/revoke`, { method: "POST" });
  assert.equal((await call(good())).status, 401);
  const stats = (await (await fetch(`${fx.url}/__emulator/stats`)).json()) as { mints: number };
  assert.equal(stats.mints, fx.emulator.stats().mints);
  assert.ok(stats.mints >= 1);
  // This fixture has one secret: retiring it would leave none, and is refused with the reason.
  const retire = await fetch(`${fx.url}/__emulator/retire-secret`, {
    method: "POST",
    body: JSON.stringify({ position: 1 }),
  });
  assert.equal(retire.status, 400);
  assert.match(await retire.text(), /position must be 1 to 1, and one secret must remain/);
});

test("admin: retire-secret over HTTP ends a rotation window", async () => {
  const rotating = await startEmulator({}, { rotation: true });
  const mint = (secret: string) =>
    fetch(`${rotating.url}/ims/token/v3`, {
      method: "POST",
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: rotating.clientId,
        client_secret: secret,
      }),
    }).then((r) => r.status);
  try {
    assert.deepEqual([await mint(rotating.clientSecret), await mint(rotating.nextSecret)], [200, 200]);
    const r = await fetch(`${rotating.url}/__emulator/retire-secret`, {
      method: "POST",
      body: JSON.stringify({ position: 1 }),
    });
    assert.deepEqual(await r.json(), { retired: true });
    assert.deepEqual([await mint(rotating.clientSecret), await mint(rotating.nextSecret)], [401, 200]);
  } finally {
    await rotating.close();
  }
});

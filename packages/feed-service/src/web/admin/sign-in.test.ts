/**
 * Signing in as an attacker would try it, on a real server on 127.0.0.1 over SQLite and
 * PostgreSQL, with clients at several loopback addresses (127.0.0.x) standing for several
 * machines: guessing one name from many addresses, and many names from one address, are both
 * stopped after 5 failures with 429 and Retry-After, a right password included, until 15 minutes
 * have passed; an unknown name and a known one get the same answer after the same work; and the
 * cookie carries Secure on an https site.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { hashPassword } from "../../admin/passwords.js";
import { AdminClient, formErrorText } from "../../test-support/admin-client.js";
import { fixtureNow, type RunningService, startTestService } from "../../test-support/service-fixture.js";
import { postgresBackend, sqliteBackend, type TestBackend } from "../../test-support/test-backends.js";

const password = "correct horse battery";
const minute = 60_000;

async function startSite(backend: TestBackend, publicUrl?: string) {
  const clock = { now: fixtureNow };
  const service: RunningService = await startTestService({ backend, now: () => clock.now, publicUrl });
  await service.store.admin.addUser("cli:setup", "ann", await hashPassword(password), clock.now);
  return { service, clock };
}

/** One try from its own client (and address); the answer of the POST. */
async function attempt(base: string, from: string, name: string, pw: string) {
  const client = new AdminClient(base, from);
  await client.get("/admin/sign-in");
  const started = performance.now();
  const answer = await client.post("/admin/sign-in", { name, password: pw, next: "/admin" });
  return { ...answer, ms: performance.now() - started, client };
}

const backends: TestBackend[] = [sqliteBackend, postgresBackend()];
after(() => Promise.all(backends.map((b) => b.stop())));

for (const backend of backends) {
  describe(`sign-in (${backend.name})`, () => {
    it("6 wrong passwords for one name from 6 addresses: 429 with Retry-After, the right one refused until the wait is over", async () => {
      const { service, clock } = await startSite(backend);
      try {
        for (let i = 1; i <= 5; i++) {
          const wrong = await attempt(service.baseUrl, `127.0.0.${10 + i}`, "ann", `guess number ${i}`);
          assert.equal(wrong.status, 401);
          assert.equal(formErrorText(wrong.body), "The name or password is wrong.");
          clock.now += minute;
        }
        // The name is blocked, from any address, whatever the case it is typed in.
        const sixth = await attempt(service.baseUrl, "127.0.0.20", "ANN", "guess number 6");
        assert.equal(sixth.status, 429);
        // The first failure was 5 minutes ago: 10 minutes are left.
        assert.equal(sixth.headers.get("retry-after"), String(10 * 60));
        assert.match(formErrorText(sixth.body) ?? "", /Too many failed sign-ins\. Try again in 10 minutes\./);
        const right = await attempt(service.baseUrl, "127.0.0.21", "ann", password);
        assert.equal(right.status, 429);
        assert.equal(right.client.session(), undefined);
        // A second before the wait is over it still holds; then the right password gets in.
        clock.now += 10 * minute - 1000;
        assert.equal((await attempt(service.baseUrl, "127.0.0.22", "ann", password)).status, 429);
        clock.now += 1000;
        const later = await attempt(service.baseUrl, "127.0.0.23", "ann", password);
        assert.equal(later.status, 303);
        assert.match(later.client.session() ?? "", /^[A-Za-z0-9_-]{43}$/);
      } finally {
        await service.close();
      }
    });

    it("5 failures for many names from one address block that address, a right password included; other addresses go on", async () => {
      const { service, clock } = await startSite(backend);
      try {
        for (const name of ["root", "admin", "administrator", "ann", "test"]) {
          assert.equal((await attempt(service.baseUrl, "127.0.0.30", name, "password123456")).status, 401);
        }
        const blocked = await attempt(service.baseUrl, "127.0.0.30", "ann", password);
        assert.equal(blocked.status, 429);
        assert.equal(blocked.headers.get("retry-after"), String(15 * 60));
        assert.equal(blocked.client.session(), undefined);
        const elsewhere = await attempt(service.baseUrl, "127.0.0.31", "ann", password);
        assert.equal(elsewhere.status, 303);
        clock.now += 15 * minute;
        assert.equal((await attempt(service.baseUrl, "127.0.0.30", "ann", password)).status, 303);
      } finally {
        await service.close();
      }
    });

    it("an unknown name and a known one get the same answer, after the same password work", async () => {
      const { service } = await startSite(backend);
      try {
        const known = [];
        const unknown = [];
        for (let i = 0; i < 4; i++) {
          known.push(await attempt(service.baseUrl, `127.0.0.${40 + i}`, "ann", "not the password"));
          unknown.push(
            await attempt(service.baseUrl, `127.0.0.${50 + i}`, "nobody-here", "not the password"),
          );
        }
        const page = (body: string) =>
          body
            .replace(/value="[A-Za-z0-9_-]{43}"/g, 'value="token"')
            .replace(/value="(ann|nobody-here)"/, 'value="name"');
        for (let i = 0; i < 4; i++) {
          assert.equal(unknown[i]!.status, known[i]!.status);
          assert.equal(page(unknown[i]!.body), page(known[i]!.body));
        }
        // Both run scrypt (tens of milliseconds); without it an unknown name would answer in one or
        // two, a ratio near 0.03. The fastest of four each, with wide bounds: a loaded machine
        // stretches single answers by several times, never the scrypt-free path up to scrypt's cost.
        const fastest = (runs: Array<{ ms: number }>) => Math.min(...runs.map((r) => r.ms));
        const ratio = fastest(unknown) / fastest(known);
        assert.ok(ratio > 0.25 && ratio < 4, `unknown ${fastest(unknown)} ms, known ${fastest(known)} ms`);
      } finally {
        await service.close();
      }
    });

    it("on an https public URL the cookie is Secure and the origin checked is the public one", async () => {
      const { service } = await startSite(backend, "https://feeds.example.org");
      try {
        const client = new AdminClient(service.baseUrl);
        await client.get("/admin/sign-in");
        const local = await client.post("/admin/sign-in", { name: "ann", password, next: "/admin" });
        assert.equal(local.status, 403);
        const signIn = await client.post(
          "/admin/sign-in",
          { name: "ann", password, next: "/admin" },
          { origin: "https://feeds.example.org" },
        );
        assert.equal(signIn.status, 303);
        const cookie = signIn.headers.getSetCookie().find((c) => c.startsWith("feed_admin="))!;
        assert.match(cookie, /; Path=\/admin; HttpOnly; SameSite=Strict; Secure$/);
      } finally {
        await service.close();
      }
    });
  });
}

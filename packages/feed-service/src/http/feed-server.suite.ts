/**
 * The HTTP surface beside the operations: WSDL routes and soap:address, /click, /healthz, size and
 * time limits, HTTP/1.0 and keep-alive, 404/405, and failures that never leak server details.
 *
 * The suite runs once per backend (SQLite and PostgreSQL): one body, the same assertions.
 *
 * @example
 * feedServerSuite(sqliteBackend);
 */
import assert from "node:assert/strict";
import { Agent, request as httpRequest } from "node:http";
import { connect } from "node:net";
import { after, before, describe, test } from "node:test";
import {
  type Fixture,
  fixtureNow,
  type RunningService,
  seedFixture,
  startTestService,
} from "../test-support/service-fixture.js";
import { buildRequest, callOperation, postSoap, readSoapResponse } from "../test-support/soap-test-client.js";
import type { TestBackend } from "../test-support/test-backends.js";

export function feedServerSuite(backend: TestBackend): void {
  describe(`feed server (${backend.name})`, () => {
    let service: RunningService;
    let fx: Fixture;
    let clock = fixtureNow;

    before(async () => {
      service = await startTestService({ backend, now: () => clock });
      fx = await seedFixture(service.store);
    });
    after(() => service.close());

    function soapAddress(wsdl: string): string | undefined {
      return (
        /<wsdlsoap:address location="([^"]*)"/.exec(wsdl)?.[1] ?? /address location="([^"]*)"/.exec(wsdl)?.[1]
      );
    }

    test("WSDL on ?wsdl and ?WSDL on both paths; soap:address follows the requested path and Host", async () => {
      for (const path of ["/webservices/FeedAggregator", "/webservices/mxna2.cfc"]) {
        for (const q of ["wsdl", "WSDL"]) {
          const res = await fetch(`${service.baseUrl}${path}?${q}`);
          assert.equal(res.status, 200);
          assert.equal(res.headers.get("content-type"), "text/xml; charset=utf-8");
          const wsdl = await res.text();
          assert.match(wsdl, /<wsdl:portType name="FeedAggregator">/);
          assert.match(wsdl, /<wsdl:service name="FeedAggregatorService">/);
          assert.equal(
            (wsdl.match(/<wsdl:operation name="/g) ?? []).length,
            32,
            "16 in the port type, 16 in the binding",
          );
          assert.equal(soapAddress(wsdl), `${service.baseUrl}${path}`);
        }
      }
      const viaHost = await rawRequest(
        `GET /webservices/mxna2.cfc?wsdl HTTP/1.1\r\nHost: feeds.example.org:8443\r\nConnection: close\r\n\r\n`,
      );
      assert.match(viaHost, /location="http:\/\/feeds\.example\.org:8443\/webservices\/mxna2\.cfc"/);
      // A Host header that is not a host name is not reflected into the document.
      const hostile = await rawRequest(
        `GET /webservices/FeedAggregator?wsdl HTTP/1.1\r\nHost: x"><script>\r\nConnection: close\r\n\r\n`,
      );
      assert.doesNotMatch(hostile, /<script>/);
      assert.match(hostile, /location="http:\/\/127\.0\.0\.1:\d+\/webservices\/FeedAggregator"/);
    });

    test("a configured public URL sets soap:address and tracking links", async () => {
      const other = await startTestService({ backend, publicUrl: "https://feeds.example.org/base/" });
      try {
        await seedFixture(other.store);
        const wsdl = await (await fetch(`${other.baseUrl}/webservices/mxna2.cfc?wsdl`)).text();
        assert.equal(soapAddress(wsdl), "https://feeds.example.org/base/webservices/mxna2.cfc");
        const r = await callOperation(other.baseUrl, "getMostRecentPosts", {
          limit: 1,
          offset: 0,
          languageIds: "",
        });
        assert.match(String(r.rows![0][11]), /^https:\/\/feeds\.example\.org\/base\/click\/\d+$/);
      } finally {
        await other.close();
      }
    });

    test("/click counts once per client per post per 10 minutes and redirects; unknown ids are 404", async () => {
      const clicksOf = async (postId: number) => {
        const r = await callOperation(service.baseUrl, "getPostsByFeed", {
          limit: 20,
          offset: 0,
          feedId: fx.feeds.zeta,
        });
        return r.rows!.find((row) => row[0] === postId)![10];
      };
      const id = fx.posts.d1;
      assert.equal(await clicksOf(id), 0);
      const first = await fetch(`${service.baseUrl}/click/${id}`, { redirect: "manual" });
      assert.equal(first.status, 302);
      assert.equal(first.headers.get("location"), "https://example.org/d1");
      await fetch(`${service.baseUrl}/click/${id}`, { redirect: "manual" });
      assert.equal(await clicksOf(id), 1, "a repeat within 10 minutes counts once");
      clock = fixtureNow + 9 * 60_000;
      await fetch(`${service.baseUrl}/click/${id}`, { redirect: "manual" });
      assert.equal(await clicksOf(id), 1);
      clock = fixtureNow + 20 * 60_000;
      await fetch(`${service.baseUrl}/click/${id}`, { redirect: "manual" });
      assert.equal(await clicksOf(id), 2, "after the window it counts again");
      clock = fixtureNow;
      for (const bad of ["999999", "abc", "-1", "0", "1e3", ""]) {
        const res = await fetch(`${service.baseUrl}/click/${bad}`, { redirect: "manual" });
        assert.equal(res.status, 404, `/click/${bad}`);
      }
    });

    test("the mxna2.cfc alias answers the same operations", async () => {
      const viaAlias = await callOperation(service.baseUrl, "getCategories", {}, "/webservices/mxna2.cfc");
      const viaMain = await callOperation(service.baseUrl, "getCategories", {});
      assert.equal(viaAlias.status, 200);
      assert.deepEqual(viaAlias.rows, viaMain.rows);
      assert.equal(viaAlias.rows!.length, 3);
    });

    test("/healthz, 404 and 405", async () => {
      const health = await fetch(`${service.baseUrl}/healthz`);
      assert.equal(health.status, 200);
      assert.deepEqual(await health.json(), { status: "ok" });
      assert.equal((await fetch(`${service.baseUrl}/nothing-here`)).status, 404);
      assert.equal(
        (await fetch(`${service.baseUrl}/webservices/FeedAggregator`, { method: "PUT", body: "x" })).status,
        405,
      );
    });

    test("every answer, plain text, errors and cached SOAP answers included, says nosniff", async () => {
      const soapCall = () =>
        fetch(`${service.baseUrl}/webservices/FeedAggregator`, {
          method: "POST",
          headers: { "Content-Type": "text/xml; charset=utf-8", SOAPAction: '""' },
          body: buildRequest("getCategories", {}),
        });
      const answers: Array<[string, Response]> = [
        ["404 text", await fetch(`${service.baseUrl}/nothing-here`)],
        [
          "405 text",
          await fetch(`${service.baseUrl}/webservices/FeedAggregator`, { method: "PUT", body: "x" }),
        ],
        ["health", await fetch(`${service.baseUrl}/healthz`)],
        ["metrics", await fetch(`${service.baseUrl}/metrics`)],
        ["click 404", await fetch(`${service.baseUrl}/click/999999`, { redirect: "manual" })],
        ["click 302", await fetch(`${service.baseUrl}/click/${fx.posts.a1}`, { redirect: "manual" })],
        ["wsdl", await fetch(`${service.baseUrl}/webservices/FeedAggregator?wsdl`)],
        ["json", await fetch(`${service.baseUrl}/api/v1/languages`)],
        ["problem", await fetch(`${service.baseUrl}/api/v1/posts?limit=x`)],
        ["feed", await fetch(`${service.baseUrl}/feeds/recent.rss`)],
        ["page", await fetch(`${service.baseUrl}/`)],
      ];
      for (const [name, res] of answers) {
        await res.arrayBuffer();
        assert.equal(res.headers.get("x-content-type-options"), "nosniff", name);
      }
      // A path that does not decode never reaches a route: still nosniff, and nothing echoed.
      for (const [path, type] of [
        ["/%zz", "text/plain; charset=utf-8"],
        ["/api/v1/%zz", "application/problem+json; charset=utf-8"],
        ["/feeds/recent.%zz", "application/problem+json; charset=utf-8"],
      ]) {
        const answer = await rawRequest(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
        assert.match(answer, /^HTTP\/1\.1 400 /, path);
        assert.match(answer, /\r\nx-content-type-options: nosniff\r\n/i, path);
        assert.match(answer, new RegExp(`\r\ncontent-type: ${type.replace(/[+]/g, "\\+")}\r\n`, "i"), path);
        assert.doesNotMatch(answer, /%zz/, `${path} is not echoed`);
      }
      // The second identical SOAP call is answered from the cache by the fast lane, outside Fastify.
      for (const round of ["miss", "hit"]) {
        const res = await soapCall();
        assert.equal(res.status, 200, round);
        await res.arrayBuffer();
        assert.equal(res.headers.get("x-content-type-options"), "nosniff", `SOAP ${round}`);
      }
    });

    test("a body over 1 MiB gets 413 with a Client fault", async () => {
      const big = Buffer.alloc(1024 * 1024 + 10, 0x20);
      const res = await fetch(`${service.baseUrl}/webservices/FeedAggregator`, {
        method: "POST",
        headers: { "Content-Type": "text/xml" },
        body: big,
      });
      assert.equal(res.status, 413);
      const r = readSoapResponse(res.status, res.headers.get("content-type"), await res.text());
      assert.equal(r.fault?.code, "soapenv:Client");
      // Without a Content-Length (chunked), the limit still holds.
      const chunked = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(
          `${service.baseUrl}/webservices/FeedAggregator`,
          { method: "POST", headers: { "Content-Type": "text/xml" } },
          (r2) => {
            r2.resume();
            resolve(r2.statusCode ?? 0);
          },
        );
        req.on("error", reject);
        for (let i = 0; i < 17; i++) req.write(Buffer.alloc(64 * 1024, 0x20));
        req.end();
      });
      assert.equal(chunked, 413);
    });

    test("HTTP/1.0 and keep-alive; SOAPAction in any form", async () => {
      const body = buildRequest("getLanguages", {});
      const http10 = await rawRequest(
        `POST /webservices/FeedAggregator HTTP/1.0\r\nContent-Type: text/xml\r\nSOAPAction: ""\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      assert.match(http10, /^HTTP\/1\.1 200 OK/);
      assert.match(http10, /<columnList[^>]*>languageId<\/columnList>/);
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const reused: boolean[] = [];
      for (let i = 0; i < 3; i++) {
        reused.push(
          await new Promise<boolean>((resolve, reject) => {
            const req = httpRequest(
              `${service.baseUrl}/webservices/FeedAggregator`,
              {
                method: "POST",
                agent,
                headers: { "Content-Type": "text/xml", soapaction: i === 0 ? "getLanguages" : '"x"' },
              },
              (res) => {
                res.resume();
                res.on("end", () => resolve(req.reusedSocket));
              },
            );
            req.on("error", reject);
            req.end(body);
          }),
        );
      }
      agent.destroy();
      assert.deepEqual(reused, [false, true, true]);
    });

    test("a request body that does not arrive in time is cut off", async () => {
      const slow = await startTestService({ backend, bodyTimeoutMs: 1000 });
      try {
        const started = Date.now();
        const answer = await rawRequest(
          `POST /webservices/FeedAggregator HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nContent-Length: 500\r\n\r\n<soapenv:Envelope`,
          slow.baseUrl,
        );
        const elapsed = Date.now() - started;
        assert.ok(elapsed < 5000, `took ${elapsed} ms`);
        assert.ok(answer === "" || /^HTTP\/1\.1 408/.test(answer), answer.slice(0, 80));
      } finally {
        await slow.close();
      }
    });

    test("a store that fails answers a generic fault and 503 health, never its internals", async () => {
      const broken = await startTestService({ backend });
      try {
        await broken.store.close();
        const r = await callOperation(broken.baseUrl, "getMostRecentPosts", {
          limit: 5,
          offset: 0,
          languageIds: "",
        });
        assert.equal(r.status, 500);
        assert.equal(r.fault?.code, "soapenv:Server.userException");
        assert.doesNotMatch(
          r.body,
          /sqlite|postgres|pool|127\.0\.0\.1|database connection|\/tmp\/|\.db|\bat \S+ \(/i,
        );
        const health = await fetch(`${broken.baseUrl}/healthz`);
        assert.equal(health.status, 503);
        const click = await fetch(`${broken.baseUrl}/click/1`, { redirect: "manual" });
        assert.equal(click.status, 500);
        assert.doesNotMatch(await click.text(), /sqlite|postgres|127\.0\.0\.1|\/tmp\//i);
      } finally {
        await broken.close().catch(() => {});
      }
    });

    test("a post request without a body, or with a UTF-16 body, is still answered", async () => {
      const url = `${service.baseUrl}/webservices/FeedAggregator`;
      const empty = await postSoap(url, "");
      assert.equal(empty.fault?.code, "soapenv:Client");
      const utf16 = Buffer.from(
        `\ufeff${buildRequest("getCategories", {}).replace('encoding="UTF-8"', 'encoding="UTF-16"')}`,
        "utf16le",
      );
      const r = await postSoap(url, utf16, { "Content-Type": "text/xml; charset=utf-16" });
      assert.equal(r.fault, undefined, r.fault?.string);
      assert.equal(r.rows!.length, 3);
    });

    function rawRequest(text: string, baseUrl = service.baseUrl): Promise<string> {
      const { port } = new URL(baseUrl);
      return new Promise((resolve, reject) => {
        const socket = connect(Number(port), "127.0.0.1", () => socket.write(text));
        const chunks: Buffer[] = [];
        socket.on("data", (c) => chunks.push(c));
        socket.on("close", () => resolve(Buffer.concat(chunks).toString("utf8")));
        socket.on("error", reject);
        socket.setTimeout(10_000, () => socket.destroy());
      });
    }
  });
}

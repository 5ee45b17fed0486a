/**
 * A real WebSub publisher and hub for the tests, on node:http at 127.0.0.1 (port 0): it serves
 * feeds that name it as their hub (in the document, or only in Link headers), takes subscription
 * requests at /hub, verifies each with the subscriber before answering 202 (as a synchronous hub
 * does, so a subscriber that saves its state only after the request fails), and pushes signed
 * content to callbacks.
 */
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import { hubSignature } from "../websub/hub-signature.js";

export interface HubRequestRecord {
  params: Record<string, string>;
  /**
   * The verification that followed: the callback's status, whether it echoed the challenge, and
   * whether the answer forbade content sniffing (`X-Content-Type-Options: nosniff`).
   */
  verification?: { status: number; echoed: boolean; nosniff: boolean };
}

export interface TestHub {
  readonly base: string;
  readonly requests: HubRequestRecord[];
  /** The lease the hub grants in its verifications. */
  leaseSeconds: number;
  /** Answer subscription requests with this status instead of verifying and answering 202. */
  refuseWith: number | null;
  /** Accept subscription requests (202) but never verify them (a hub that cannot reach us). */
  silent: boolean;
  atomFeed(entries: ReadonlyArray<{ id: string; title: string }>): string;
  /** GET the callback as a hub verifying intent; the answer's status and body. */
  verify(
    callback: string,
    params: Record<string, string>,
  ): Promise<{ status: number; body: string; headers: Headers }>;
  /** POST content to a callback, signed with `secret` (or with the given header). */
  push(
    callback: string,
    body: string | Buffer,
    sign: { secret: string; method?: "sha1" | "sha256" | "sha384" | "sha512" } | { header: string } | null,
  ): Promise<number>;
  close(): Promise<void>;
}

export async function startTestHub(): Promise<TestHub> {
  let base = "";
  const atom = (entries: ReadonlyArray<{ id: string; title: string }>) =>
    `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Hubbed</title><id>urn:hubbed</id>
<link rel="hub" href="${base}/hub"/><link rel="self" href="${base}/atom"/>
<link rel="alternate" href="${base}/"/><updated>2026-01-10T00:00:00Z</updated>
${entries
  .map(
    (e) => `<entry><id>${e.id}</id><title>${e.title}</title><link href="${base}/posts/${e.id}"/>
<updated>2026-01-10T00:00:00Z</updated><content type="html">&lt;p&gt;${e.title}&lt;/p&gt;</content></entry>`,
  )
  .join("\n")}
</feed>`;
  const hub: TestHub = {
    base: "",
    requests: [],
    leaseSeconds: 1000,
    refuseWith: null,
    silent: false,
    atomFeed: atom,
    async verify(callback, params) {
      const url = new URL(callback);
      for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
      const res = await fetch(url);
      return { status: res.status, body: await res.text(), headers: res.headers };
    },
    async push(callback, body, sign) {
      const bytes = typeof body === "string" ? Buffer.from(body) : body;
      const headers: Record<string, string> = { "content-type": "application/atom+xml" };
      if (sign && "header" in sign) headers["x-hub-signature"] = sign.header;
      else if (sign) headers["x-hub-signature"] = hubSignature(sign.method ?? "sha256", bytes, sign.secret);
      const res = await fetch(callback, { method: "POST", headers, body: bytes });
      await res.arrayBuffer();
      return res.status;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        if (req.method === "GET" && req.url === "/atom") {
          res.writeHead(200, { "content-type": "application/atom+xml" });
          return res.end(atom([{ id: "urn:polled-1", title: "Polled one" }]));
        }
        if (req.method === "GET" && req.url === "/linked.rss") {
          // No hub in the document: only the Link headers name it.
          res.writeHead(200, {
            "content-type": "application/rss+xml",
            link: `<${base}/hub>; rel="hub", <${base}/linked.rss>; rel="self"`,
          });
          return res.end(
            '<rss version="2.0"><channel><title>Linked</title><link>https://l.test/</link></channel></rss>',
          );
        }
        if (req.method === "POST" && req.url === "/hub") {
          const params = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString()));
          const record: HubRequestRecord = { params };
          hub.requests.push(record);
          if (hub.refuseWith !== null) {
            res.writeHead(hub.refuseWith, { "content-type": "text/plain" });
            return res.end("Topic not allowed\u0007 here");
          }
          if (hub.silent) {
            res.writeHead(202);
            return res.end();
          }
          const challenge = randomBytes(12).toString("hex");
          const answer = await hub.verify(params["hub.callback"]!, {
            "hub.mode": params["hub.mode"]!,
            "hub.topic": params["hub.topic"]!,
            "hub.challenge": challenge,
            "hub.lease_seconds": String(hub.leaseSeconds),
          });
          record.verification = {
            status: answer.status,
            echoed: answer.body === challenge,
            nosniff: answer.headers.get("x-content-type-options") === "nosniff",
          };
          res.writeHead(202);
          return res.end();
        }
        res.writeHead(404);
        res.end();
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  (hub as { base: string }).base = base;
  return hub;
}

/** A port free right now on 127.0.0.1 (for a service that must know its public URL before listening). */
export async function freePort(): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

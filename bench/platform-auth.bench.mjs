#!/usr/bin/env node
// 10,000 sequential calls to the emulator's global-classes listing (limit=1) through PlatformClient,
// against the same calls with plain fetch and hand-written headers, in the same run and against the
// same emulator. A third peer, undici 7's fetch with hand-written headers, isolates the client's
// own cost from the HTTP stack's. The client adds the cached-token lookup, the header set, the retry
// wrapper and its pooled dispatcher. Targets: client / plain fetch <= 1.1, and exactly one mint.
// Needs the built package: run `npx tsc -b` first.
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

// The client's own HTTP stack (undici 7, resolved from the platform-auth package as the client
// resolves it), to separate what the client adds from the difference between undici 7 and the
// fetch bundled with this Node.
const fromPackage = createRequire(new URL("../packages/platform-auth/package.json", import.meta.url));
const { Agent, fetch: undiciFetch } = await import(pathToFileURL(fromPackage.resolve("undici")).href);

import { PlatformClient, PlatformEmulator } from "../packages/platform-auth/dist/index.js";

const CALLS = Number(process.env.CALLS ?? 10_000);
const WARMUP = 500;
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const PATH = "/data/foundation/schemaregistry/global/classes?limit=1";
const cred = { clientId: "bench-client", clientSecret: "bench-secret-value", orgId: "BENCH@AdobeOrg" };

const emulator = new PlatformEmulator({ credentials: [cred], classCount: 25 });
const url = await emulator.start();
const client = new PlatformClient({ ...cred, authUrl: url, baseUrl: url, env: {}, cwd: "/nonexistent" });

async function viaClient(n) {
  for (let i = 0; i < n; i++) {
    await client.json(PATH, { headers: { accept: "application/vnd.adobe.xed-id+json" } });
  }
}

// The peer: what a user writes by hand with a token obtained once.
const tokenRes = await fetch(`${url}/ims/token/v3`, {
  method: "POST",
  body: new URLSearchParams({
    grant_type: "client_credentials",
    client_id: cred.clientId,
    client_secret: cred.clientSecret,
    scope: "openid",
  }),
});
const { access_token: handToken } = await tokenRes.json();
const handHeaders = {
  authorization: `Bearer ${handToken}`,
  "x-api-key": cred.clientId,
  "x-gw-ims-org-id": cred.orgId,
  accept: "application/vnd.adobe.xed-id+json",
};
async function viaFetch(n) {
  for (let i = 0; i < n; i++) {
    const res = await fetch(url + PATH, { headers: handHeaders });
    if (!res.ok) throw new Error(`plain fetch got HTTP ${res.status}`);
    await res.json();
  }
}

const agent = new Agent({ connections: 32 });
async function viaUndici(n) {
  for (let i = 0; i < n; i++) {
    const res = await undiciFetch(url + PATH, { headers: handHeaders, dispatcher: agent });
    if (!res.ok) throw new Error(`undici fetch got HTTP ${res.status}`);
    await res.json();
  }
}
const SIDES = { fetch: viaFetch, undici: viaUndici, client: viaClient };

const mintsBefore = emulator.stats().mints;
await viaClient(WARMUP);
await viaFetch(WARMUP);
await viaUndici(WARMUP);
// Each round sends CALLS calls per side in blocks of BLOCK, alternating sides block by block, so
// that the load of other work on this shared machine falls on both alike.
const BLOCK = 1000;
const times = { client: [], fetch: [], undici: [] };
for (let r = 0; r < ROUNDS; r++) {
  const sum = { client: 0, fetch: 0, undici: 0 };
  for (let done = 0; done < CALLS; done += BLOCK) {
    const n = Math.min(BLOCK, CALLS - done);
    const names = Object.keys(SIDES);
    const k = (done / BLOCK) % names.length;
    const order = [...names.slice(k), ...names.slice(0, k)];
    for (const name of order) {
      const t0 = performance.now();
      await SIDES[name](n);
      sum[name] += performance.now() - t0;
    }
  }
  for (const name of Object.keys(SIDES)) times[name].push(sum[name]);
}
const clientMints = emulator.stats().mints - mintsBefore;
await client.close();
await agent.close();
await emulator.close();

const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const base = median(times.fetch);
const undiciBase = median(times.undici);
const rows = [
  ["plain fetch (bundled) + hand headers", median(times.fetch), "-"],
  ["undici 7 fetch + hand headers", median(times.undici), "-"],
  ["PlatformClient.json", median(times.client), String(clientMints)],
];
console.log(
  `${CALLS} sequential calls per peer, median of ${ROUNDS} rounds (blocks of ${BLOCK}, rotated), node ${process.version}`,
);
console.log(
  `${"peer".padEnd(38)}${"ms".padStart(8)}${"calls/s".padStart(9)}${"vs fetch".padStart(10)}${"vs undici".padStart(11)}${"mints".padStart(7)}`,
);
for (const [name, ms, mints] of rows) {
  console.log(
    `${name.padEnd(38)}${ms.toFixed(0).padStart(8)}${((CALLS / ms) * 1000).toFixed(0).padStart(9)}${(ms / base).toFixed(2).padStart(10)}${(ms / undiciBase).toFixed(2).padStart(11)}${mints.padStart(7)}`,
  );
}
const all = Object.entries(times).map(([k, v]) => `${k} ${v.map((t) => t.toFixed(0)).join("/")}`);
console.log(`all rounds (ms): ${all.join("; ")}`);
console.log(
  `targets: client/plain fetch <= 1.10 -> ${median(times.client) / base <= 1.1 ? "met" : "NOT met"}; mints == 1 -> ${clientMints === 1 ? "met" : "NOT met"}`,
);

// The emulator as users run it: the built bin in its own process, stopped by a real signal.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

const bin = fileURLToPath(new URL("../../bin/platform-auth.js", import.meta.url));
const home = mkdtempSync(join(tmpdir(), "platform-auth-emu-bin-"));
after(() => rmSync(home, { recursive: true, force: true }));

const env = {
  PATH: process.env.PATH ?? "",
  HOME: home,
  XDG_CONFIG_HOME: join(home, "config"),
  XDG_CACHE_HOME: join(home, "cache"),
  AEP_CLIENT_ID: "bin-emulator-client",
  AEP_CLIENT_SECRET: "bin-emulator-secret-0123",
  AEP_ORG_ID: "BIN@AdobeOrg",
};

interface Running {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

function run(args: string[]): Running {
  const child = spawn(process.execPath, [bin, ...args], { env, cwd: home });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => {
    out += d;
  });
  child.stderr.on("data", (d) => {
    err += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((r) =>
    child.on("exit", (code, signal) => r({ code, signal, at: Date.now() })),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

async function listeningUrl(r: Running): Promise<string> {
  for (let i = 0; i < 250; i++) {
    const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(r.stdout());
    if (m) return m[1];
    await new Promise((res) => setTimeout(res, 20));
  }
  r.child.kill("SIGKILL");
  throw new Error(`the emulator printed no URL: ${r.stdout()} ${r.stderr()}`);
}

const tokenRequest = (url: string) =>
  fetch(`${url}/ims/token/v3`, {
    method: "POST",
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: env.AEP_CLIENT_ID,
      client_secret: env.AEP_CLIENT_SECRET,
      scope: "openid",
    }),
  });

test("a port already in use: exit 1 at once, naming the address and how to pick another", async () => {
  const taken = createServer();
  await new Promise<void>((r) => taken.listen(0, "127.0.0.1", r));
  const { port } = taken.address() as { port: number };
  try {
    const r = run(["emulator", "--port", String(port)]);
    const { code } = await r.exited;
    assert.equal(code, 1);
    assert.equal(r.stdout(), "");
    assert.equal(
      r.stderr(),
      `platform-auth: the emulator could not listen: 127.0.0.1:${port} is already in use (another emulator or service listens there); pick another with --port N, or --port 0 for any free port [PA_LISTEN]\n`,
    );
  } finally {
    await new Promise((r) => taken.close(r));
  }
});

test("SIGTERM: no new requests, the one in flight finishes, exit 0", async () => {
  const r = run(["emulator", "--delay", "800"]);
  const url = await listeningUrl(r);
  const inFlight = tokenRequest(url);
  await new Promise((res) => setTimeout(res, 200));
  const signalled = Date.now();
  r.child.kill("SIGTERM");
  const answer = await inFlight;
  assert.equal(answer.status, 200, "the request in flight was answered");
  assert.match(((await answer.json()) as { access_token: string }).access_token, /^eyJ/);
  const { code, at } = await r.exited;
  assert.equal(code, 0, r.stderr());
  assert.ok(at - signalled < 3000, `stopped ${at - signalled} ms after the signal`);
  assert.match(r.stderr(), /stopping: no new requests; those in flight get 3 s/);
  assert.match(r.stderr(), /emulator stopped after 1 mint\n$/);
  await assert.rejects(tokenRequest(url), "the port no longer answers");
});

test("SIGINT with a request that would take a minute: it is cut after the grace time, exit 0", async () => {
  const r = run(["emulator", "--delay", "60000"]);
  const url = await listeningUrl(r);
  const inFlight = tokenRequest(url).then(
    (res) => res.status,
    () => "cut",
  );
  await new Promise((res) => setTimeout(res, 200));
  const signalled = Date.now();
  r.child.kill("SIGINT");
  const { code, at } = await r.exited;
  assert.equal(code, 0, r.stderr());
  assert.equal(await inFlight, "cut");
  assert.ok(at - signalled < 6000, `stopped ${at - signalled} ms after the signal`);
});

test("a second signal while draining cuts the requests in flight at once", async () => {
  const r = run(["emulator", "--delay", "60000"]);
  const url = await listeningUrl(r);
  const inFlight = tokenRequest(url).then(
    (res) => res.status,
    () => "cut",
  );
  await new Promise((res) => setTimeout(res, 200));
  r.child.kill("SIGTERM");
  for (let i = 0; i < 100 && !r.stderr().includes("stopping:"); i++)
    await new Promise((res) => setTimeout(res, 20));
  const second = Date.now();
  r.child.kill("SIGTERM");
  const { code, at } = await r.exited;
  assert.equal(code, 0, r.stderr());
  assert.equal(await inFlight, "cut");
  assert.ok(at - second < 2000, `stopped ${at - second} ms after the second signal`);
});

test("--rate-limit, --revoke-after and --retire-secret: a rotation window, a revocation, throttling", async () => {
  const old = "bin-emulator-secret-0123";
  const next = "bin-emulator-secret-4567";
  const child = spawn(
    process.execPath,
    [bin, "emulator", "--rate-limit", "5/60", "--revoke-after", "1", "--retire-secret", "1"],
    { env: { ...env, AEP_CLIENT_SECRET: "", AEP_CLIENT_SECRETS: `${old},${next}` }, cwd: home },
  );
  let out = "";
  child.stdout.on("data", (d) => {
    out += d;
  });
  const exited = new Promise((r) => child.on("exit", r));
  const r: Running = { child, stdout: () => out, stderr: () => "", exited: exited as Running["exited"] };
  const url = await listeningUrl(r);
  const mint = (secret: string) =>
    fetch(`${url}/ims/token/v3`, {
      method: "POST",
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: env.AEP_CLIENT_ID,
        client_secret: secret,
      }),
    });
  const refused = await mint(old);
  assert.equal(refused.status, 401, "the retired secret is refused");
  const ok = await mint(next);
  assert.equal(ok.status, 200, "the next secret works");
  const { access_token } = (await ok.json()) as { access_token: string };
  const call = () =>
    fetch(`${url}/data/foundation/schemaregistry/global/classes`, {
      headers: {
        authorization: `Bearer ${access_token}`,
        "x-api-key": env.AEP_CLIENT_ID,
        "x-gw-ims-org-id": env.AEP_ORG_ID,
        accept: "application/vnd.adobe.xed-id+json",
      },
    });
  assert.equal((await call()).status, 200);
  const revoked = await call();
  assert.equal(revoked.status, 401);
  assert.deepEqual(await revoked.json(), { error_code: "401013", message: "Oauth token is not valid" });
  assert.equal((await call()).status, 401, "the fifth request is still within the budget");
  const throttled = await call();
  assert.equal(throttled.status, 429);
  assert.match(throttled.headers.get("retry-after") ?? "", /^([1-9]|[1-5]\d|60)$/);
  child.kill("SIGTERM");
  await exited;
});

test("--json: the URL as one JSON line, for scripts", async () => {
  const r = run(["emulator", "--json"]);
  for (let i = 0; i < 250 && !r.stdout().includes("\n"); i++) await new Promise((res) => setTimeout(res, 20));
  const { url } = JSON.parse(r.stdout()) as { url: string };
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal((await fetch(`${url}/__emulator/stats`)).status, 200);
  r.child.kill("SIGTERM");
  assert.equal((await r.exited).code, 0);
});

test("emulator switches with bad values are usage errors naming the flag", async () => {
  for (const [args, message] of [
    [["--rate-limit", "lots"], /--rate-limit "lots" must look like REQUESTS\/SECONDS, e\.g\. 100\/60/],
    [["--retire-secret", "2"], /--retire-secret 2 needs that many secrets in AEP_CLIENT_SECRETS/],
  ] as const) {
    const r = run(["emulator", ...args]);
    const { code } = await r.exited;
    assert.equal(code, 2, r.stderr());
    assert.match(r.stderr(), message);
  }
});

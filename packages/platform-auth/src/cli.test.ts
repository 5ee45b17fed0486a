import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createPublicKey } from "node:crypto";
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { jwtVerify } from "jose";
import { main } from "./cli.js";
import { type EmulatorFixture, keyBody, startEmulator } from "./test-support/emulator-fixture.js";
import { SecretSweep } from "./test-support/secret-sweep.js";

const bin = fileURLToPath(new URL("../bin/platform-auth.js", import.meta.url));
const CLASSES = "/data/foundation/schemaregistry/global/classes";
const sweep = new SecretSweep();
const issued: string[] = [];
let fx: EmulatorFixture;
let env: Record<string, string>;
let cwd: string;

before(async () => {
  fx = await startEmulator({
    classCount: 350,
    sandboxes: ["prod", "dev"],
    onTokenIssued: (t) => issued.push(t),
  });
  cwd = join(fx.dir, "work");
  mkdirSync(cwd, { recursive: true });
  env = {
    ...fx.env,
    AEP_CLIENT_ID: fx.clientId,
    AEP_CLIENT_SECRET: fx.clientSecret,
    AEP_ORG_ID: fx.orgId,
    AEP_AUTH_URL: fx.url,
    AEP_BASE_URL: fx.url,
  };
});
after(() => fx.close());

/** A loopback port that nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
  const { port } = probe.address() as AddressInfo;
  await new Promise((r) => probe.close(r));
  return port;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in this process with captured output; every byte goes to the secret sweep. */
async function cli(
  args: string[],
  extraEnv: Record<string, string | undefined> = {},
  signal?: AbortSignal,
): Promise<Run> {
  let stdout = "";
  let stderr = "";
  const code = await main(args, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    env: { ...env, ...extraEnv },
    cwd,
    signal,
  });
  const printsTokens = ["token", "headers", "jwt"].includes(args[0]);
  sweep.add(`stdout of ${args.join(" ")}`, stdout, printsTokens);
  sweep.add(`stderr of ${args.join(" ")}`, stderr);
  return { code, stdout, stderr };
}

test("the built bin prints usage on --help and exits 0", async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [bin, "--help"]);
  assert.match(stdout, /^usage: platform-auth /);
});

test("the built bin mints a token, and a second process reuses it from the owner-only cache file", async () => {
  const run = () => promisify(execFile)(process.execPath, [bin, "token"], { env, cwd });
  const m0 = fx.emulator.stats().mints;
  const a = await run();
  const b = await run();
  sweep.add("bin token stdout", a.stdout + b.stdout, true);
  sweep.add("bin token stderr", a.stderr + b.stderr);
  assert.match(a.stdout, /^eyJ[\w-]+\.[\w-]+\.[\w-]+\n$/);
  assert.equal(a.stdout, b.stdout);
  assert.equal(fx.emulator.stats().mints - m0, 1);
  const file = join(env.XDG_CACHE_HOME, "platform-auth", "tokens.json");
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal((await cli(["token", "--no-cache"])).code, 0);
  assert.equal(fx.emulator.stats().mints - m0, 2, "--no-cache mints");
  const json = await cli(["token", "--json"]);
  const parsed = JSON.parse(json.stdout);
  assert.equal(parsed.accessToken, a.stdout.trim());
  assert.equal(parsed.method, "oauth");
  assert.ok(Date.parse(parsed.expiresAt) - Date.now() > 86_000_000);
});

test("processes started together on a cold cache file mint once between them (file lock)", async () => {
  const cacheEnv = { ...env, XDG_CACHE_HOME: join(fx.dir, "parallel-cache") };
  const m0 = fx.emulator.stats().mints;
  const runs = await Promise.all(
    Array.from({ length: 4 }, () =>
      promisify(execFile)(process.execPath, [bin, "token"], { env: cacheEnv, cwd }),
    ),
  );
  for (const r of runs) {
    sweep.add("parallel bin token stdout", r.stdout, true);
    sweep.add("parallel bin token stderr", r.stderr);
  }
  assert.equal(new Set(runs.map((r) => r.stdout)).size, 1);
  assert.equal(fx.emulator.stats().mints - m0, 1);
});

test("headers: curl, json and env formats carry all credential headers and the sandbox", async () => {
  const token = (await cli(["token"])).stdout.trim();
  const curl = await cli(["headers", "--sandbox", "dev"]);
  assert.equal(curl.code, 0);
  assert.equal(
    curl.stdout,
    `-H 'Authorization: Bearer ${token}' -H 'x-api-key: ${fx.clientId}' -H 'x-gw-ims-org-id: ${fx.orgId}' -H 'x-sandbox-name: dev'\n`,
  );
  const json = JSON.parse((await cli(["headers", "--format", "json"])).stdout);
  assert.deepEqual(json, {
    Authorization: `Bearer ${token}`,
    "x-api-key": fx.clientId,
    "x-gw-ims-org-id": fx.orgId,
  });
  assert.deepEqual(JSON.parse((await cli(["headers", "--json"])).stdout), json);
  const both = await cli(["headers", "--json", "--format", "env"]);
  assert.equal(both.code, 2);
  assert.match(both.stderr, /headers: --json and --format env contradict each other/);
  const envOut = (await cli(["headers", "--format", "env"])).stdout;
  assert.match(
    envOut,
    /^export AUTHORIZATION='Bearer eyJ.*'\nexport X_API_KEY='.*'\nexport X_GW_IMS_ORG_ID='.*'\n$/,
  );
  const bad = await cli(["headers", "--format", "yaml"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--format "yaml" is not allowed; use curl, json or env/);
});

test("test: a table and exit 0 when the credentials work; --json gives the raw answer", async () => {
  const ok = await cli(["test"]);
  assert.equal(ok.code, 0);
  assert.match(ok.stdout, /^TITLE +VERSION +ALT ID\n/);
  assert.match(ok.stdout, /\nEmulated Class 00006 +1\.6\.6 +_emulator\.classes\.c6\n/);
  assert.equal(ok.stdout.trim().split("\n").length, 301);
  assert.match(ok.stderr, /credentials work: 300 global classes/);
  const json = JSON.parse((await cli(["test", "--json"])).stdout);
  assert.equal(json.results.length, 300);
  assert.equal(json._page.count, 300);
});

test("test: non-zero exit with the reason when the credentials do not work", async () => {
  const bad = await cli(["test", "--no-cache"], { AEP_CLIENT_SECRET: "not-the-secret-at-all" });
  assert.equal(bad.code, 3);
  assert.match(bad.stderr, /invalid_client: invalid client_secret parameter \[PA_AUTH_FAILED\]\n/);
  assert.match(
    bad.stderr,
    /\n {2}fix \(invalid_client_secret\): Retrieve a current client secret in the Developer Console/,
  );
  const sandbox = await cli(["test", "--sandbox", "nosuch"]);
  assert.equal(sandbox.code, 4);
  assert.match(sandbox.stderr, /HTTP 403 XDM-1008-403: Sandbox not found/);
  const missing = await cli(["test"], { AEP_CLIENT_ID: undefined, AEP_ORG_ID: undefined });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /missing 2 settings for the oauth method: client id, org id/);
  const unknown = await cli(["test", "--frobnicate"]);
  assert.equal(unknown.code, 2);
  assert.match(
    unknown.stderr,
    /^platform-auth: test: unknown option --frobnicate; test takes --json, --auth-url, .*; see platform-auth --help \[PA_USAGE\]\n$/,
  );
  const near = await cli(["headers", "--formt", "json"]);
  assert.match(near.stderr, /unknown option --formt \(did you mean --format\?\)/);
  const noValue = await cli(["call", "GET", "/x", "--accept"]);
  assert.equal(noValue.code, 2);
  assert.match(noValue.stderr, /call: --accept needs a value \(--accept VALUE or --accept=VALUE\)/);
  const flagAsValue = await cli(["emulator", "--port", "--count-mints"]);
  assert.match(flagAsValue.stderr, /emulator: --port needs a value/);
  const negative = await cli(["emulator", "--retry-after", "-1"]);
  assert.equal(negative.code, 2);
  assert.match(negative.stderr, /emulator: --retry-after must be a number ≥ 0, got "-1"/);
  const switchValue = await cli(["test", "--json=yes"]);
  assert.match(switchValue.stderr, /test: --json is a switch and takes no value \(got "yes"\)/);
  const closed = await closedPort();
  const unreachable = await cli(["test", "--no-cache", "--auth-url", `http://127.0.0.1:${closed}`]);
  assert.equal(unreachable.code, 5);
  assert.ok(
    unreachable.stderr.includes(
      `could not reach http://127.0.0.1:${closed}/ims/token/v3 after 4 attempts: connection refused (ECONNREFUSED)`,
    ),
    unreachable.stderr,
  );
  const badPort = await cli(["test", "--no-cache", "--base-url", "http://127.0.0.1:6000"]);
  assert.equal(badPort.code, 5);
  assert.match(
    badPort.stderr,
    /could not reach http:\/\/127\.0\.0\.1:6000\/data\/\S+ after 1 attempt: the port is one that fetch refuses/,
  );
});

test("call: any method and path, --all follows every page, errors exit non-zero", async () => {
  const all = await cli(["call", "GET", CLASSES, "--accept", "application/vnd.adobe.xed-id+json", "--all"]);
  assert.equal(all.code, 0);
  assert.equal(JSON.parse(all.stdout).length, 350);
  const one = await cli([
    "call",
    "get",
    `${CLASSES}?limit=2`,
    "-H",
    "Accept: application/vnd.adobe.xed+json",
  ]);
  assert.equal(JSON.parse(one.stdout).results[0].type, "object");
  const notAcceptable = await cli(["call", "GET", CLASSES]);
  assert.equal(notAcceptable.code, 4);
  assert.match(notAcceptable.stderr, /HTTP 406/);
  writeFileSync(join(cwd, "body.json"), '{"title":"x"}');
  const post = await cli(["call", "POST", CLASSES, "--data", "@body.json"]);
  assert.equal(post.code, 4);
  assert.match(post.stderr, /HTTP 405/);
  for (const [args, message] of [
    [["call", "GET"], /expected <METHOD> <path>/],
    [["call", "FETCH", "/x"], /method "FETCH" is not allowed/],
    [["call", "GET", "x"], /must start with "\/"/],
    [["call", "GET", "/x", "-H", "nocolon"], /must look like 'Name: value'/],
    [["call", "POST", "/x", "--data", "{oops"], /--data is not valid JSON/],
  ] as const) {
    const r = await cli([...args]);
    assert.equal(r.code, 2, args.join(" "));
    assert.match(r.stderr, message);
  }
});

test("jwt: warns that the method is deprecated and prints an RS256 JWT with the right claims", async () => {
  const jwtEnv = { AEP_TECHNICAL_ACCOUNT_ID: fx.technicalAccountId, AEP_PRIVATE_KEY_FILE: fx.privateKeyFile };
  const r = await cli(["jwt"], { ...jwtEnv, AEP_CLIENT_SECRET: undefined });
  assert.equal(r.code, 0);
  assert.match(r.stderr, /warning: the JWT .* deprecated/);
  const asJson = await cli(["jwt", "--json"], { ...jwtEnv, AEP_CLIENT_SECRET: undefined });
  assert.match(JSON.parse(asJson.stdout).jwt, /^eyJ[\w-]+\.[\w-]+\.[\w-]+$/);
  const { payload, protectedHeader } = await jwtVerify(r.stdout.trim(), createPublicKey(fx.privateKeyPem), {
    audience: `${fx.url}/c/${fx.clientId}`,
    issuer: fx.orgId,
    subject: fx.technicalAccountId,
  });
  assert.equal(protectedHeader.alg, "RS256");
  assert.equal(payload[`${fx.url}/s/ent_dataservices_sdk`], true);
  assert.ok(payload.exp && Math.abs(payload.exp - (Date.now() / 1000 + 300)) < 5);
  const viaJwt = await cli(["test", "--auth-method", "jwt", "--no-cache"], jwtEnv);
  assert.equal(viaJwt.code, 0);
  const badKey = await cli(["jwt", "--private-key-file", join(fx.dir, "nope.pem")], jwtEnv);
  assert.equal(badKey.code, 2);
  assert.match(badKey.stderr, /private key file .*nope\.pem could not be read \(ENOENT\)/);
});

test("inspect: expiry, scopes and client id of the cached token, and no token", async () => {
  await cli(["token"]);
  const r = await cli(["inspect", "--json"]);
  assert.equal(r.code, 0);
  const info = JSON.parse(r.stdout);
  assert.equal(info.clientId, fx.clientId);
  assert.match(info.expiresAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.ok(Date.parse(info.expiresAt) - Date.now() > 86_000_000);
  assert.deepEqual(info.scopes, [
    "openid",
    "session",
    "AdobeID",
    "read_organizations",
    "additional_info.projectedProductContext",
  ]);
  assert.match((await cli(["inspect"])).stdout, /^clientId +emu0client/);
  const none = await cli(["inspect", "--scopes", "openid,AdobeID"]);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /no cached token .*run "platform-auth token" first/);
});

test("profiles and .env through the CLI: --profile picks the sandbox, .env supplies the secret", async () => {
  const cfgDir = join(env.XDG_CONFIG_HOME, "platform-auth");
  mkdirSync(cfgDir, { recursive: true });
  writeFileSync(
    join(cfgDir, "config.json"),
    JSON.stringify({ profiles: { dev: { clientId: fx.clientId, orgId: fx.orgId, sandbox: "dev" } } }),
  );
  writeFileSync(join(cwd, ".env"), `AEP_CLIENT_SECRET=${fx.clientSecret}\n`);
  try {
    const r = await cli(["headers", "--profile", "dev", "--format", "json"], {
      AEP_CLIENT_ID: undefined,
      AEP_ORG_ID: undefined,
      AEP_CLIENT_SECRET: undefined,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout)["x-sandbox-name"], "dev");
    const flagWins = await cli(["headers", "--profile", "dev", "--sandbox", "prod", "--format", "json"]);
    assert.equal(JSON.parse(flagWins.stdout)["x-sandbox-name"], "prod");
  } finally {
    writeFileSync(join(cwd, ".env"), "");
  }
});

test("emulator command: serves until stopped, injects failures, counts mints", async () => {
  const stop = new AbortController();
  const emuEnv = {
    AEP_CLIENT_ID: "cli-emulator-client",
    AEP_CLIENT_SECRET: "cli-emulator-secret-77",
    AEP_ORG_ID: "CLI@AdobeOrg",
  };
  let out = "";
  let err = "";
  const running = main(
    ["emulator", "--classes", "3", "--fail", "503:1", "--retry-after", "0", "--count-mints"],
    {
      stdout: (t) => {
        out += t;
      },
      stderr: (t) => {
        err += t;
      },
      env: { ...env, ...emuEnv },
      cwd,
      signal: stop.signal,
    },
  );
  for (let i = 0; i < 100 && !out.includes("listening on"); i++) await new Promise((r) => setTimeout(r, 20));
  const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
  assert.ok(url, `emulator printed its URL: ${out} ${err}`);
  const r = await cli(["test", "--verbose", "--no-cache"], {
    ...emuEnv,
    AEP_AUTH_URL: url,
    AEP_BASE_URL: url,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim().split("\n").length, 4);
  assert.match(r.stderr, /attempt 1 failed \(HTTP 503\), retrying/);
  assert.match(r.stderr, /minted a oauth token/);
  stop.abort();
  assert.equal(await running, 0);
  assert.match(err, /mint #1\n/);
  assert.match(err, /emulator stopped after 1 mint\n/);
  sweep.add("emulator stdout", out);
  sweep.add("emulator stderr", err);
  const bad = await cli(["emulator", "--fail", "abc"], emuEnv);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--fail "abc" must look like 429/);
});

test("unknown commands and no command are usage errors (exit 2)", async () => {
  const r = await cli(["frob"]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /unknown command "frob"; commands: token, headers/);
  assert.equal((await cli([])).code, 2);
});

test("no client secret, private key or token in any output, except tokens on stdout of token/headers/jwt", () => {
  assert.ok(issued.length >= 3, `${issued.length} tokens issued`);
  assert.ok(sweep.captured.length > 50, `${sweep.captured.length} outputs captured`);
  const secrets = [
    { name: "client secret", value: fx.clientSecret },
    { name: "emulator client secret", value: "cli-emulator-secret-77" },
    ...keyBody(fx.privateKeyPem).map((value, i) => ({ name: `private key line ${i}`, value })),
    ...issued.map((value, i) => ({ name: `token ${i}`, value, isToken: true })),
  ];
  assert.deepEqual(sweep.leaks(secrets), []);
  // The check can fail: a token on the standard error would be found.
  const probe = new SecretSweep();
  probe.add("stderr", `oops ${issued[0]}`);
  assert.equal(probe.leaks(secrets).length, 1);
});

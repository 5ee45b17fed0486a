// `platform-auth doctor` through the CLI against the emulator: each way credentials go wrong ends
// in the step that found it, its fix, and the CLI's exit code for it.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { main } from "../cli.js";
import { type EmulatorFixture, startEmulator } from "../test-support/emulator-fixture.js";
import { SecretSweep } from "../test-support/secret-sweep.js";
import { runDoctor } from "./doctor.js";
import type { DoctorReport } from "./doctor-report.js";

const sweep = new SecretSweep();
const issued: string[] = [];
let fx: EmulatorFixture;
let env: Record<string, string>;
let cwd: string;

before(async () => {
  fx = await startEmulator(
    { sandboxes: ["prod", "dev"], onTokenIssued: (t) => issued.push(t) },
    { rotation: true },
  );
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

async function doctor(args: string[], extraEnv: Record<string, string | undefined> = {}) {
  let stdout = "";
  let stderr = "";
  const code = await main(["doctor", ...args], {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    env: { ...env, ...extraEnv },
    cwd,
  });
  sweep.add(`doctor ${args.join(" ")} stdout`, stdout);
  sweep.add(`doctor ${args.join(" ")} stderr`, stderr);
  return { code, stdout, stderr };
}

async function doctorJson(args: string[], extraEnv: Record<string, string | undefined> = {}) {
  const r = await doctor(["--json", ...args], extraEnv);
  const report = JSON.parse(r.stdout) as DoctorReport;
  assert.equal(report.exitCode, r.code);
  const status = Object.fromEntries(report.steps.map((s) => [s.id, s.status]));
  return { ...r, report, status, step: (id: string) => report.steps.find((s) => s.id === id) };
}

test("working credentials: every step ok, the token's claims shown, never the token", async () => {
  const r = await doctor(["--sandbox", "dev"]);
  assert.equal(r.code, 0, r.stdout);
  assert.match(
    r.stdout,
    /^warn {2}settings +client id emu0client0id0a1b2c3d4e5f6 \(environment AEP_CLIENT_ID\)\n/,
  );
  assert.match(r.stdout, /1 client secret of \d+ characters \(environment AEP_CLIENT_SECRET\)/);
  assert.match(r.stdout, /\nok {4}identity service +http:\/\/127\.0\.0\.1:\d+ answered \(HTTP 400\)/);
  assert.match(r.stdout, /\nok {4}token +minted by oauth at .*, expires \d{4}-\d\d-\d\dT/);
  assert.match(r.stdout, /client emu0client0id0a1b2c3d4e5f6, org 0A1B2C3D4E5F60708090A0B0@AdobeOrg/);
  assert.match(
    r.stdout,
    /scopes openid,session,AdobeID,read_organizations,additional_info\.projectedProductContext/,
  );
  assert.match(
    r.stdout,
    /\nok {4}test call +GET \/data\/foundation\/schemaregistry\/global\/classes in the default sandbox: 25/,
  );
  assert.match(r.stdout, /\nok {4}sandbox +sandbox dev answered the test call/);
  assert.match(r.stdout, /\ncredentials work \(with warnings above\)\n$/);
  assert.match(
    r.stdout,
    /! client id is not 32 hexadecimal characters/,
    "the fixture's id is not Console-shaped",
  );
});

test("settings: quotes, whitespace, an org id without @AdobeOrg, a bad sandbox — each named with its source", async () => {
  writeFileSync(join(cwd, ".env"), `AEP_SANDBOX_NAME=Dev\n`);
  try {
    const r = await doctorJson([], {
      AEP_ORG_ID: '"0A1B2C3D4E5F60708090A0B0"',
      AEP_CLIENT_SECRET: `${fx.clientSecret} `,
    });
    assert.equal(r.code, 2);
    assert.deepEqual(r.status, {
      settings: "fail",
      identity: "skip",
      token: "skip",
      "test-call": "skip",
      sandbox: "skip",
    });
    const found = r.step("settings")?.found.join("\n") ?? "";
    assert.match(
      found,
      /org id "\\"0A1B2C3D4E5F60708090A0B0\\"" \(environment AEP_ORG_ID\) is wrapped in quotes/,
    );
    assert.match(
      found,
      /the client secret \(environment AEP_CLIENT_SECRET\) has leading or trailing whitespace/,
    );
    assert.match(found, /org id does not end in @AdobeOrg → Use the full org id/);
    assert.ok(
      found.includes(`sandbox "Dev" (AEP_SANDBOX_NAME in ${join(cwd, ".env")}) breaks the naming rules`),
      found,
    );
    assert.match(r.step("settings")?.fix ?? "", /^Remove the/);
  } finally {
    writeFileSync(join(cwd, ".env"), "");
  }
  const missing = await doctorJson([], { AEP_CLIENT_SECRET: undefined, AEP_ORG_ID: undefined });
  assert.equal(missing.code, 2);
  assert.match(
    missing.step("settings")?.found.join("\n") ?? "",
    /client secret: not set.*\n.*org id: not set/s,
  );
});

test("identity service unreachable: the URL and why, exit 5", async () => {
  const r = await doctorJson([], { AEP_AUTH_URL: "http://127.0.0.1:6000" });
  assert.equal(r.code, 5);
  assert.equal(r.status.identity, "fail");
  assert.equal(r.step("identity")?.reason, "unreachable");
  assert.match(
    r.step("identity")?.found[0] ?? "",
    /^could not reach http:\/\/127\.0\.0\.1:6000\/ims\/token\/v3/,
  );
  assert.equal(r.status.token, "skip");
});

test("token refused (wrong secret) exit 3; identity internal_error exit 4; each with its fix", async () => {
  const wrong = await doctorJson([], { AEP_CLIENT_SECRET: "p8e-wrong-secret-000" });
  assert.equal(wrong.code, 3);
  assert.equal(wrong.status.token, "fail");
  assert.equal(wrong.step("token")?.reason, "invalid_client_secret");
  assert.match(wrong.stdout, /Retrieve a current client secret/);
  // Two: the reachability step's request takes the first (any answer means reachable).
  fx.emulator.failNext({ status: 500, target: "token", count: 2 });
  const down = await doctorJson([]);
  assert.equal(down.code, 4);
  assert.equal(down.step("token")?.reason, "identity_unavailable");
});

test("test call refused: no product profile (403027), throttled (429) — the token step still passes", async () => {
  fx.emulator.failNext({ status: 403, body: { error_code: "403027", message: "User region is missing" } });
  const r = await doctor([]);
  assert.equal(r.code, 4);
  assert.match(r.stdout, /\nok {4}token /);
  assert.match(
    r.stdout,
    /\nFAIL {2}test call +GET \/data\/\S+ failed: HTTP 403 403027: User region is missing/,
  );
  assert.match(r.stdout, /fix \(no_product_profile\): In the Developer Console add a product profile/);
  assert.match(r.stdout, /\nskip {2}sandbox +needs a working test call\n/);
  // The doctor retries once, then reports.
  fx.emulator.failNext({ status: 429, count: 2 });
  const throttled = await doctorJson([]);
  assert.equal(throttled.step("test-call")?.reason, "throttled");
  fx.emulator.failNext({ status: 503 });
  const retried = await doctorJson([]);
  assert.equal(retried.code, 0);
  assert.equal(retried.status["test-call"], "warn");
  assert.match(
    retried.step("test-call")?.found.join("\n") ?? "",
    /! HTTP 503 on attempt 1, answered after a retry/,
  );
});

test("a token revoked between the test call and the sandbox call: re-minted, and said", async () => {
  fx.emulator.revokeAfter(1);
  const r = await doctorJson(["--sandbox", "dev"]);
  assert.equal(r.code, 0, r.stdout);
  assert.equal(r.status.sandbox, "warn");
  assert.match(
    r.step("sandbox")?.found.join("\n") ?? "",
    /! the gateway refused a token that had just worked \(401013\) and a new one was minted/,
  );
});

test("a rotation: the retired secret is reported as a warning and the doctor passes", async () => {
  fx.emulator.retireSecret(1);
  const r = await doctorJson([], {
    AEP_CLIENT_SECRET: undefined,
    AEP_CLIENT_SECRETS: `${fx.clientSecret},${fx.nextSecret}`,
  });
  assert.equal(r.code, 0);
  assert.equal(r.status.token, "warn");
  assert.match(
    r.step("token")?.found.join("\n") ?? "",
    /! client secret #1 of 2 is refused \(invalid_client\): remove it once the rotation is done.*\nclient secret #2 of 2: accepted/,
  );
});

test("no secret or token in anything the doctor printed", () => {
  assert.ok(issued.length >= 4);
  const secrets = [
    { name: "client secret", value: fx.clientSecret },
    { name: "next secret", value: fx.nextSecret },
    ...issued.map((value, i) => ({ name: `token ${i}`, value })),
  ];
  assert.deepEqual(sweep.leaks(secrets), []);
});

test("a rate budget spent: the doctor reports throttling instead of waiting out a minute", async () => {
  const limited = await startEmulator({ rateLimit: { requests: 2, perSeconds: 60 } });
  try {
    const started = Date.now();
    const report = await runDoctor({
      clientId: limited.clientId,
      clientSecret: limited.clientSecret,
      orgId: limited.orgId,
      authUrl: limited.url,
      baseUrl: limited.url,
      sandbox: "prod",
      env: limited.env,
      cwd: limited.dir,
    });
    assert.ok(Date.now() - started < 10_000);
    const sandbox = report.steps.find((s) => s.id === "sandbox");
    assert.deepEqual(
      report.steps.map((s) => s.status),
      ["warn", "ok", "ok", "ok", "fail"],
    );
    assert.equal(sandbox?.reason, "throttled");
    assert.equal(report.exitCode, 4);
    assert.match(sandbox?.found[0] ?? "", /HTTP 429 429050: Too many requests/);
  } finally {
    await limited.close();
  }
});

test("slow answers: a timeout at the identity step names the URL and the reason", async () => {
  const slow = await startEmulator({ delayMs: 2600 });
  try {
    const report = await runDoctor({
      clientId: slow.clientId,
      clientSecret: slow.clientSecret,
      orgId: slow.orgId,
      authUrl: slow.url,
      baseUrl: slow.url,
      env: slow.env,
      cwd: slow.dir,
      attemptTimeoutMs: 1000,
    });
    const identity = report.steps.find((s) => s.id === "identity");
    assert.equal(identity?.status, "fail");
    assert.equal(identity?.reason, "timeout");
    assert.equal(report.exitCode, 5);
    assert.match(
      identity?.found[0] ?? "",
      /^could not reach http:\/\/127\.0\.0\.1:\d+\/ims\/token\/v3 after 1 attempt: no answer within/,
    );
  } finally {
    await slow.close();
  }
});

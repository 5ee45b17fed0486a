// The no-secret rule, end to end: every command of the built bin, with --verbose (and Node's own
// NODE_DEBUG for two of them), in success and in
// failure, and the emulator itself; then every byte they printed and every file they left is
// searched for the client secrets, the private key and the tokens. Secrets may sit only in the
// owner-only files that exist to hold them (config.json, tokens.json, the key file), and tokens
// only on the standard output of token, headers and jwt.
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { type EmulatorFixture, keyBody, startEmulator } from "./test-support/emulator-fixture.js";
import { SecretSweep } from "./test-support/secret-sweep.js";

const bin = fileURLToPath(new URL("../bin/platform-auth.js", import.meta.url));
const fixtures = new URL("./test-support/fixtures/", import.meta.url);
const sweep = new SecretSweep();
const issued: string[] = [];
const EMU_SECRET = "sweep-bin-emulator-secret-4711";
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
    AEP_CLIENT_SECRETS: `${fx.clientSecret},${fx.nextSecret}`,
    AEP_ORG_ID: fx.orgId,
    AEP_AUTH_URL: fx.url,
    AEP_BASE_URL: fx.url,
  };
});
after(() => fx.close());

function run(args: string[], extra: Record<string, string> = {}): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { env: { ...env, ...extra }, cwd }, (err, stdout, stderr) => {
      const tokensAllowed = ["token", "headers", "jwt"].includes(args[0]);
      sweep.add(`stdout of ${args.join(" ")}`, stdout, tokensAllowed);
      sweep.add(`stderr of ${args.join(" ")}`, stderr);
      resolve({ code: err ? Number(err.code) : 0, stdout });
    });
  });
}

test("every command, verbose, in success and failure, then the bin emulator", async () => {
  const jwtEnv = { AEP_TECHNICAL_ACCOUNT_ID: fx.technicalAccountId, AEP_PRIVATE_KEY_FILE: fx.privateKeyFile };
  const data = JSON.parse(readFileSync(new URL("console-oauth-project.json", fixtures), "utf8"));
  data.project.workspace.details.credentials[0].oauth_server_to_server.client_secrets = [
    fx.clientSecret,
    fx.nextSecret,
  ];
  writeFileSync(join(cwd, "project.json"), JSON.stringify(data), { mode: 0o600 });
  const v = "--verbose";
  // Node's own debug output too: what a user turns on when nothing else helps.
  const nodeDebug = { NODE_DEBUG: "undici,fetch,http,net,tls" };
  const runs: [string[], Record<string, string>?][] = [
    [["test", "--no-cache", v], nodeDebug],
    [["doctor", v], nodeDebug],
    [["token", v]],
    [["headers", v]],
    [["headers", "--format", "json", v]],
    [["headers", "--format", "env", "--sandbox", "dev", v]],
    [["test", v]],
    [["test", "--json", v]],
    [
      [
        "call",
        "GET",
        "/data/foundation/schemaregistry/global/classes?limit=2",
        "--accept",
        "application/vnd.adobe.xed+json",
        v,
      ],
    ],
    [
      [
        "call",
        "GET",
        "/data/foundation/schemaregistry/global/classes",
        "--accept",
        "application/vnd.adobe.xed-id+json",
        "--all",
        v,
      ],
    ],
    [["inspect", v]],
    [["inspect", "--json", v]],
    [["jwt", v], jwtEnv],
    [["test", "--auth-method", "jwt", "--no-cache", v], jwtEnv],
    [["doctor", v]],
    [["doctor", "--json", "--sandbox", "dev", v]],
    [["import", "project.json", "--profile", "sweep", v]],
    [["usage", v, "--calls-per-hour", "5"]],
    [["usage", "--json", v]],
    // Failures: refused secret, refused scope, unknown sandbox, unknown flag, unreachable, bad data.
    [["test", "--no-cache", v], { AEP_CLIENT_SECRETS: "p8e-wrong-secret-000000" }],
    [["test", "--no-cache", "--scopes", "openid,nope", v]],
    [["test", "--sandbox", "nosuch", v]],
    [["test", "--frobnicate", v]],
    [["test", "--no-cache", "--auth-url", "http://127.0.0.1:6000", v]],
    [["doctor", "--json", v], { AEP_CLIENT_SECRETS: ` "${fx.clientSecret}" ` }],
    [["call", "POST", "/x", "--data", "{oops", v]],
  ];
  const codes: string[] = [];
  for (const [args, extra] of runs) codes.push(`${args[0]} ${(await run(args, extra)).code}`);
  // The runs did what they were meant to: the last seven fail with their codes, the others succeed.
  const exits = codes.map((c) => c.split(" ")[1]);
  assert.deepEqual(exits.slice(-7), ["3", "3", "4", "2", "5", "2", "2"], codes.join(", "));
  assert.ok(
    exits.slice(0, -7).every((c) => c === "0"),
    codes.join(", "),
  );
  // A revoked token and a rotation on the way: the re-mint and the secret warning, verbose.
  fx.emulator.revokeTokens();
  fx.emulator.retireSecret(1);
  await run(["test", v]);
  assert.ok(issued.length >= 5, `${issued.length} tokens issued`);

  // The emulator as a process, with its counters on, and a command against it.
  const emu = spawn(process.execPath, [bin, "emulator", "--count-mints", v], {
    env: {
      ...fx.env,
      AEP_CLIENT_ID: "sweep-emulator-client",
      AEP_CLIENT_SECRET: EMU_SECRET,
      AEP_ORG_ID: "SWEEP@AdobeOrg",
    },
    cwd,
  });
  let out = "";
  let err = "";
  emu.stdout.on("data", (d) => {
    out += d;
  });
  emu.stderr.on("data", (d) => {
    err += d;
  });
  for (let i = 0; i < 250 && !out.includes("listening on"); i++) await new Promise((r) => setTimeout(r, 20));
  const url = /listening on (\S+)/.exec(out)?.[1];
  assert.ok(url, out + err);
  const emuEnv = {
    AEP_CLIENT_ID: "sweep-emulator-client",
    AEP_CLIENT_SECRET: EMU_SECRET,
    AEP_CLIENT_SECRETS: "",
    AEP_ORG_ID: "SWEEP@AdobeOrg",
    AEP_AUTH_URL: url,
    AEP_BASE_URL: url,
  };
  const token = await run(["token", "--no-cache", v], emuEnv);
  issued.push(token.stdout.trim());
  await run(["test", "--no-cache", v], { ...emuEnv, AEP_CLIENT_SECRET: "sweep-wrong-secret-0000" });
  const exited = new Promise((r) => emu.on("exit", r));
  emu.kill("SIGTERM");
  await exited;
  sweep.add("bin emulator stdout", out);
  sweep.add("bin emulator stderr", err);
  assert.match(err, /mint #1\n/);
  // Its --verbose request log was on, and is part of what was searched.
  assert.match(err, /\nPOST \/ims\/token\/v3 200 \d+ ms \(request id [\w-]+\)\n/);
  assert.match(err, /\nPOST \/ims\/token\/v3 401 \d+ ms/);
});

test("no secret, key or token in any output or in any file but the owner-only ones that hold them", () => {
  const secrets = [
    { name: "client secret", value: fx.clientSecret },
    { name: "next client secret", value: fx.nextSecret },
    { name: "bin emulator secret", value: EMU_SECRET },
    ...keyBody(fx.privateKeyPem).map((value, i) => ({ name: `private key line ${i}`, value })),
    ...issued.map((value, i) => ({ name: `token ${i}`, value, isToken: true })),
  ];
  assert.deepEqual(sweep.leaks(secrets), []);

  // Every file the runs left under the test's home, config, cache and work folders.
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else files.push(full);
    }
  };
  walk(fx.dir);
  const holders = new Set([
    join(fx.env.XDG_CONFIG_HOME, "platform-auth", "config.json"),
    join(fx.env.XDG_CACHE_HOME, "platform-auth", "tokens.json"),
    fx.privateKeyFile,
    join(cwd, "project.json"),
  ]);
  const found: string[] = [];
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    for (const s of secrets) {
      if (!text.includes(s.value)) continue;
      if (holders.has(file) && (statSync(file).mode & 0o077) === 0) continue;
      found.push(`${file}: ${s.name}`);
    }
  }
  assert.deepEqual(found, []);
  assert.ok(
    files.some((f) => f.endsWith("usage.json")),
    "the usage file was searched too",
  );
  assert.ok(files.length >= 5, `${files.length} files searched`);
  // The search can fail: a secret in a file that is not an owner-only holder would be found.
  assert.ok(
    readFileSync(join(fx.env.XDG_CONFIG_HOME, "platform-auth", "config.json"), "utf8").includes(
      fx.clientSecret,
    ),
  );
});

// `platform-auth import` with project JSON in the Developer Console's download shape (fixtures in
// test-support/fixtures), then the imported profile used against the emulator.
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { main } from "../cli.js";
import { type EmulatorFixture, startEmulator } from "../test-support/emulator-fixture.js";
import { SecretSweep } from "../test-support/secret-sweep.js";

const fixtures = new URL("../test-support/fixtures/", import.meta.url);
const sweep = new SecretSweep();
let fx: EmulatorFixture;
let cwd: string;
let configFile: string;

before(async () => {
  fx = await startEmulator({}, { rotation: true });
  cwd = join(fx.dir, "work");
  mkdirSync(cwd, { recursive: true });
  configFile = join(fx.env.XDG_CONFIG_HOME, "platform-auth", "config.json");
});
after(() => fx.close());

async function cli(args: string[], extraEnv: Record<string, string> = {}) {
  let stdout = "";
  let stderr = "";
  const code = await main(args, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    env: { ...fx.env, ...extraEnv },
    cwd,
  });
  sweep.add(`stdout of ${args.join(" ")}`, stdout);
  sweep.add(`stderr of ${args.join(" ")}`, stderr);
  return { code, stdout, stderr };
}

/** A fixture with the emulator's real secrets in place of the fixture's, written to `name`. */
function project(fixture: string, name: string, secrets?: string[]): string {
  const data = JSON.parse(readFileSync(new URL(fixture, fixtures), "utf8"));
  if (secrets) data.project.workspace.details.credentials[0].oauth_server_to_server.client_secrets = secrets;
  const file = join(cwd, name);
  writeFileSync(file, JSON.stringify(data), { mode: 0o600 });
  return file;
}

test("an OAuth project: profile named after the workspace, both secrets, 0600, then the profile just works", async () => {
  const file = project("console-oauth-project.json", "project.json", [fx.clientSecret, fx.nextSecret]);
  const r = await cli(["import", "project.json"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, "");
  assert.equal(
    r.stdout,
    `imported OAuth Server-to-Server credential "aepDataPipelines-oauth" of AEP data pipelines / Production\n` +
      `into profile "production" (the default profile) of ${configFile} (mode 0600)\n` +
      `client id ${fx.clientId}, org ${fx.orgId}, 2 client secrets, scopes openid,session,AdobeID,read_organizations,additional_info.projectedProductContext\n` +
      "check it with: platform-auth doctor\n",
  );
  assert.equal(statSync(configFile).mode & 0o777, 0o600);
  assert.equal(statSync(join(fx.env.XDG_CONFIG_HOME, "platform-auth")).mode & 0o777, 0o700);
  const config = JSON.parse(readFileSync(configFile, "utf8"));
  assert.equal(config.defaultProfile, "production");
  assert.deepEqual(config.profiles.production.clientSecrets, [fx.clientSecret, fx.nextSecret]);
  assert.equal(config.profiles.production.orgId, fx.orgId);

  const used = await cli(["test", "--no-cache"], { AEP_AUTH_URL: fx.url, AEP_BASE_URL: fx.url });
  assert.equal(used.code, 0, used.stderr);
  assert.match(used.stderr, /credentials work: 25 global classes/);

  const again = await cli(["import", file]);
  assert.equal(again.code, 2);
  assert.match(
    again.stderr,
    /profile "production" already exists in .*; choose another with --profile NAME, or replace it with --force/,
  );
  const json = await cli(["import", file, "--profile", "other", "--json"]);
  assert.equal(json.code, 0, json.stderr);
  const summary = JSON.parse(json.stdout);
  assert.equal(summary.profile, "other");
  assert.equal(summary.clientSecrets, 2);
  assert.equal(summary.defaultProfile, false);
  assert.equal((await cli(["import", file, "--force"])).code, 0);
});

test("several credentials: --credential chooses; a JWT one imports as the jwt method", async () => {
  const file = project("console-two-credentials.json", "two.json");
  const ambiguous = await cli(["import", file]);
  assert.equal(ambiguous.code, 2);
  assert.match(
    ambiguous.stderr,
    /has 2 credentials; choose one with --credential NAME: legacy-jwt \(service\), reports-oauth \(oauth_server_to_server\), analytics-oauth \(oauth_server_to_server\)/,
  );
  const oauth = await cli(["import", file, "--credential", "reports-oauth", "--json"]);
  assert.equal(oauth.code, 0, oauth.stderr);
  assert.equal(JSON.parse(oauth.stdout).profile, "stage");
  assert.equal(JSON.parse(oauth.stdout).clientId, "0123456789abcdef0123456789abcdef");
  const jwt = await cli(["import", file, "--credential", "legacy-jwt", "--profile", "legacy"]);
  assert.equal(jwt.code, 0, jwt.stderr);
  const profile = JSON.parse(readFileSync(configFile, "utf8")).profiles.legacy;
  assert.deepEqual(profile, {
    authMethod: "jwt",
    clientId: "emu0client0id0a1b2c3d4e5f6",
    clientSecret: "FIXTURE-JWT-SECRET",
    orgId: "0A1B2C3D4E5F60708090A0B0@AdobeOrg",
    technicalAccountId: "F00D1234567890ABCDEF1234@techacct.adobe.com",
    metascopes: ["ent_dataservices_sdk"],
  });
  const missing = await cli(["import", file, "--credential", "nope"]);
  assert.match(missing.stderr, /has no credential named "nope"; it has: legacy-jwt/);
});

test("bad files are named with what is wrong; a world-readable download is warned about", async () => {
  writeFileSync(join(cwd, "notjson.json"), "{oops");
  writeFileSync(join(cwd, "empty.json"), "{}");
  const cases: [string[], RegExp][] = [
    [["import"], /import: expected one file, the project JSON downloaded from the Developer Console/],
    [["import", "nosuch.json"], /import: .*nosuch\.json could not be read \(ENOENT\)/],
    [["import", "notjson.json"], /import: .*notjson\.json is not JSON/],
    [["import", "empty.json"], /import: .*empty\.json has no "project" object/],
  ];
  for (const [args, message] of cases) {
    const r = await cli(args);
    assert.equal(r.code, 2, args.join(" "));
    assert.match(r.stderr, message);
  }
  const file = project("console-oauth-project.json", "open.json", [fx.clientSecret]);
  chmodSync(file, 0o644);
  const r = await cli(["import", file, "--profile", "open"]);
  assert.equal(r.code, 0);
  assert.match(r.stderr, /warning: .*open\.json holds the client secret and other users can read it/);
  assert.match(r.stdout, /1 client secret,/);
});

test("no secret of any imported file in any output", () => {
  const secrets = [
    fx.clientSecret,
    fx.nextSecret,
    "FIXTURE-JWT-SECRET",
    "FIXTURE-REPORTS-SECRET",
    "FIXTURE-ANALYTICS-SECRET",
  ].map((value, i) => ({ name: `secret ${i}`, value }));
  assert.deepEqual(sweep.leaks(secrets), []);
});

// The usage meter: counts from several processes of the built bin add up in one owner-only file,
// and `platform-auth usage` shows them and warns near a budget.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { main } from "../cli.js";
import { GLOBAL_CLASSES_PATH } from "../global-classes.js";
import { PlatformClient } from "../platform-client.js";
import { type EmulatorFixture, startEmulator } from "../test-support/emulator-fixture.js";
import { hourOf } from "../usage-meter.js";

const bin = fileURLToPath(new URL("../../bin/platform-auth.js", import.meta.url));
let fx: EmulatorFixture;
let env: Record<string, string>;
let cwd: string;
let usageFile: string;

before(async () => {
  fx = await startEmulator();
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
  usageFile = join(fx.env.XDG_CACHE_HOME, "platform-auth", "usage.json");
});
after(() => fx.close());

function totals(report: { credentials: { hours: { mints: number; calls: number }[] }[] }) {
  return report.credentials[0].hours.reduce(
    (t, h) => ({ mints: t.mints + h.mints, calls: t.calls + h.calls }),
    {
      mints: 0,
      calls: 0,
    },
  );
}

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
    env: { ...env, ...extraEnv },
    cwd,
  });
  return { code, stdout, stderr };
}

test("four processes started together: their mints and calls add up in one 0600 file", async () => {
  const m0 = fx.emulator.stats();
  await Promise.all(
    Array.from({ length: 4 }, () =>
      promisify(execFile)(process.execPath, [bin, "test", "--no-cache"], { env, cwd }),
    ),
  );
  const m1 = fx.emulator.stats();
  assert.equal(m1.mints - m0.mints, 4);
  assert.equal(statSync(usageFile).mode & 0o777, 0o600);
  const r = await cli(["usage", "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout);
  assert.equal(report.credentials.length, 1);
  assert.equal(report.credentials[0].clientId, fx.clientId);
  // Summed over the hours shown, so that a run across the turn of an hour counts the same.
  assert.deepEqual(totals(report), { mints: 4, calls: m1.apiCalls - m0.apiCalls });
  assert.equal(report.credentials[0].hours.at(-1).hour, hourOf(Date.now()));
  const text = await cli(["usage"]);
  assert.match(
    text.stdout,
    new RegExp(`^client ${fx.clientId}, org ${fx.orgId} \\(last 24 h, UTC\\)\\nHOUR +MINTS +CALLS\\n`),
  );
  assert.ok(!readFileSync(usageFile, "utf8").includes(fx.clientSecret));
});

test("the library counts in batches and writes what is left on close; every attempt is a call", async () => {
  const before = totals(JSON.parse((await cli(["usage", "--json"])).stdout));
  const client = new PlatformClient({
    clientId: fx.clientId,
    clientSecret: fx.clientSecret,
    orgId: fx.orgId,
    authUrl: fx.url,
    baseUrl: fx.url,
    env: fx.env,
    cwd,
    usageFile,
    retry: { baseDelayMs: 1 },
  });
  fx.emulator.failNext({ status: 503 });
  for (let i = 0; i < 149; i++)
    await client.fetch(GLOBAL_CLASSES_PATH, { headers: { accept: "application/vnd.adobe.xed-id+json" } });
  await client.close();
  const after = totals(JSON.parse((await cli(["usage", "--json"])).stdout));
  assert.deepEqual(after, { mints: before.mints + 1, calls: before.calls + 150 });
});

test("budgets: a warning from 80%, another once reached; bad numbers are usage errors", async () => {
  const { calls } = JSON.parse((await cli(["usage", "--json"])).stdout).credentials[0].thisHour;
  const near = await cli(["usage", "--calls-per-hour", String(Math.ceil(calls / 0.85))]);
  assert.equal(near.code, 0);
  assert.match(
    near.stderr,
    new RegExp(
      `warning: ${calls} of \\d+ calls this hour for client ${fx.clientId} \\(8\\d%\\); slow down before the budget is reached`,
    ),
  );
  const reached = await cli(["usage", "--calls-per-hour", String(calls), "--mints-per-hour", "1000"]);
  assert.match(reached.stderr, /the budget of \d+ is reached \(100%\)/);
  assert.doesNotMatch(reached.stderr, /mints this hour/);
  const quiet = await cli(["usage", "--calls-per-hour", String(calls * 10)]);
  assert.equal(quiet.stderr, "");
  // The same budget as a setting: usage uses it without flags.
  const fromEnv = await cli(["usage"], { AEP_CALLS_PER_HOUR: String(calls) });
  assert.match(fromEnv.stderr, /the budget of \d+ is reached \(100%\)/);
  const badSetting = await cli(["usage"], { AEP_CALLS_PER_HOUR: "many" });
  assert.equal(badSetting.code, 2);
  assert.match(badSetting.stderr, /calls-per-hour budget "many" is not allowed; use a whole number ≥ 1/);
  const bad = await cli(["usage", "--hours", "0"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /usage: --hours must be a whole number ≥ 1, got "0"/);
});

test("a budget set in the settings: commands warn from 80% of it, across processes, once per level", async () => {
  const { calls } = JSON.parse((await cli(["usage", "--json"])).stdout).credentials[0].thisHour;
  // The next test call is the one that crosses 80 % of this budget.
  const budget = Math.floor((calls + 1) / 0.8);
  const near = await promisify(execFile)(process.execPath, [bin, "test"], {
    env: { ...env, AEP_CALLS_PER_HOUR: String(budget) },
    cwd,
  });
  assert.match(
    near.stderr,
    new RegExp(
      `warning: ${calls + 1} of ${budget} calls this hour \\(\\d+%\\) for this credential, across every process`,
    ),
  );
  const reached = await promisify(execFile)(process.execPath, [bin, "test"], {
    env: { ...env, AEP_CALLS_PER_HOUR: String(calls + 2) },
    cwd,
  });
  assert.match(
    reached.stderr,
    new RegExp(`warning: ${calls + 2} calls this hour reached the budget of ${calls + 2} \\(100%\\)`),
  );
  const quiet = await promisify(execFile)(process.execPath, [bin, "test"], {
    env: { ...env, AEP_CALLS_PER_HOUR: "100000" },
    cwd,
  });
  assert.doesNotMatch(quiet.stderr, /warning/);
});

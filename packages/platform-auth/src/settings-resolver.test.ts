import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { PlatformAuthError } from "./errors.js";
import { DEFAULT_SCOPES } from "./settings.js";
import { resolveSettings } from "./settings-resolver.js";

const dir = mkdtempSync(join(tmpdir(), "platform-auth-settings-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function setup(name: string, opts: { profiles?: unknown; dotenv?: string }) {
  const root = join(dir, name);
  const cwd = join(root, "work");
  mkdirSync(join(root, "config", "platform-auth"), { recursive: true });
  mkdirSync(cwd, { recursive: true });
  if (opts.profiles !== undefined) {
    writeFileSync(join(root, "config", "platform-auth", "config.json"), JSON.stringify(opts.profiles));
  }
  if (opts.dotenv !== undefined) writeFileSync(join(cwd, ".env"), opts.dotenv);
  return {
    cwd,
    env: { HOME: join(root, "home"), XDG_CONFIG_HOME: join(root, "config") } as Record<string, string>,
  };
}

function fails(fn: () => unknown): PlatformAuthError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof PlatformAuthError);
    return err;
  }
  assert.fail("expected an error");
}

test("precedence: options > environment > profile > .env, per setting", () => {
  const s = setup("precedence", {
    profiles: {
      profiles: {
        default: {
          clientId: "from-profile",
          orgId: "org-profile",
          sandbox: "profile-sbx",
          scopes: ["openid"],
        },
      },
    },
    dotenv:
      "AEP_CLIENT_ID=from-dotenv\nAEP_CLIENT_SECRET=secret-dotenv\nAEP_ORG_ID=org-dotenv\nAEP_BASE_URL=http://127.0.0.1:9\n",
  });
  const env = { ...s.env, AEP_ORG_ID: "org-env", AEP_SANDBOX_NAME: "env-sbx" };
  const r = resolveSettings({ env, cwd: s.cwd, options: { sandbox: "opt-sbx" } });
  assert.equal(r.sandbox, "opt-sbx"); // option beats env and profile
  assert.equal(r.orgId, "org-env"); // env beats profile and .env
  assert.equal(r.clientId, "from-profile"); // profile beats .env
  assert.equal(r.clientSecret, "secret-dotenv"); // .env fills the rest
  assert.equal(r.baseUrl, "http://127.0.0.1:9");
  assert.deepEqual(r.scopes, ["openid"]);
  assert.equal(r.profile, "default");
});

test("named profiles: option, AEP_PROFILE, then defaultProfile; an unknown name lists the known ones", () => {
  const s = setup("profiles", {
    profiles: {
      defaultProfile: "stage",
      profiles: {
        stage: { clientId: "stage-id", clientSecret: "stage-secret", orgId: "o" },
        prod: { clientId: "prod-id", clientSecret: "prod-secret", orgId: "o" },
      },
    },
  });
  assert.equal(resolveSettings({ env: s.env, cwd: s.cwd }).clientId, "stage-id");
  assert.equal(resolveSettings({ env: { ...s.env, AEP_PROFILE: "prod" }, cwd: s.cwd }).clientId, "prod-id");
  assert.equal(
    resolveSettings({ env: { ...s.env, AEP_PROFILE: "prod" }, cwd: s.cwd, options: { profile: "stage" } })
      .profile,
    "stage",
  );
  const err = fails(() => resolveSettings({ env: s.env, cwd: s.cwd, options: { profile: "dev" } }));
  assert.equal(err.code, "PA_CONFIG_INVALID");
  assert.match(err.message, /profile "dev" not found .*profiles there: stage, prod/);
});

test("the platform's Postman environment names are accepted as fallbacks; defaults apply", () => {
  const s = setup("postman", {});
  const r = resolveSettings({
    env: {
      ...s.env,
      API_KEY: "pm-id",
      CLIENT_SECRET: "pm-secret",
      IMS_ORG: "pm-org",
      SANDBOX_NAME: "dev",
      SCOPES: "a, b",
    },
    cwd: s.cwd,
  });
  assert.deepEqual([r.clientId, r.clientSecret, r.orgId, r.sandbox], ["pm-id", "pm-secret", "pm-org", "dev"]);
  assert.deepEqual(r.scopes, ["a", "b"]);
  const d = resolveSettings({
    env: { ...s.env, AEP_CLIENT_ID: "i", AEP_CLIENT_SECRET: "s", AEP_ORG_ID: "o" },
    cwd: s.cwd,
  });
  assert.deepEqual(d.scopes, DEFAULT_SCOPES);
  assert.equal(d.authUrl, "https://ims-na1.adobelogin.com");
  assert.equal(d.baseUrl, "https://platform.adobe.io");
  assert.equal(d.sandbox, undefined);
  assert.equal(d.authMethod, "oauth");
});

test("every missing setting is named in one message, with where to set it", () => {
  const s = setup("missing", {});
  const err = fails(() => resolveSettings({ env: s.env, cwd: s.cwd }));
  assert.equal(err.code, "PA_CONFIG_MISSING");
  assert.match(err.message, /missing 3 settings for the oauth method: client id, client secret, org id/);
  assert.match(err.message, /client secret: AEP_CLIENT_SECRET or CLIENT_SECRET/);
  assert.match(err.message, /org id: --org-id, AEP_ORG_ID or IMS_ORG/);
  const jwt = fails(() =>
    resolveSettings({ env: { ...s.env, AEP_AUTH_METHOD: "jwt", AEP_CLIENT_ID: "i" }, cwd: s.cwd }),
  );
  assert.match(
    jwt.message,
    /missing 4 settings for the jwt method: client secret, org id, technical account id, private key file/,
  );
});

test("bad values are named with what is allowed", () => {
  const s = setup("bad", {});
  const base = { ...s.env, AEP_CLIENT_ID: "i", AEP_CLIENT_SECRET: "s", AEP_ORG_ID: "o" };
  assert.match(
    fails(() => resolveSettings({ env: { ...base, AEP_AUTH_METHOD: "saml" }, cwd: s.cwd })).message,
    /"oauth".*"jwt"/,
  );
  assert.match(
    fails(() => resolveSettings({ env: { ...base, AEP_SANDBOX_NAME: "Prod" }, cwd: s.cwd })).message,
    /lowercase/,
  );
  assert.match(
    fails(() => resolveSettings({ env: { ...base, AEP_AUTH_URL: "http://ims.example.com" }, cwd: s.cwd }))
      .message,
    /plain http is accepted only for 127\.0\.0\.1/,
  );
  const creds = fails(() =>
    resolveSettings({
      env: { ...base, AEP_BASE_URL: "https://user:pw-in-url@platform.adobe.io" },
      cwd: s.cwd,
    }),
  );
  assert.doesNotMatch(creds.message, /pw-in-url/);
  assert.equal(
    resolveSettings({ env: { ...base, AEP_BASE_URL: "http://localhost:8080/" }, cwd: s.cwd }).baseUrl,
    "http://localhost:8080",
  );
  const s2 = setup("badprofile", { profiles: { profiles: { default: { clientSecrt: "x" } } } });
  assert.match(
    fails(() => resolveSettings({ env: s2.env, cwd: s2.cwd })).message,
    /unknown key "clientSecrt"; allowed: clientId, clientSecret/,
  );
});

import { decodeTokenClaims } from "../access-token.js";
import { PlatformAuthError } from "../errors.js";
import { FAILURE_REASONS } from "../failure-reasons.js";
import { GLOBAL_CLASSES_PATH, type GlobalClassesPage, XED_ID_JSON } from "../global-classes.js";
import { createHttpTransport } from "../http-transport.js";
import { type ClientEvent, PlatformClient, type PlatformClientOptions } from "../platform-client.js";
import { checkRetryOptions, sendWithRetries } from "../retry-policy.js";
import { resolveSettings } from "../settings-resolver.js";
import { type DoctorReport, type DoctorStep, reportOf } from "./doctor-report.js";
import { checkSettings } from "./settings-check.js";

export interface DoctorOptions extends Omit<PlatformClientOptions, "tokenCache" | "onEvent"> {
  /** Per-attempt timeout of the network steps (default 15 s). */
  attemptTimeoutMs?: number;
}

/**
 * Checks a credential set step by step — settings (offline), the identity service reachable, a
 * token minted (its claims decoded, the token never shown), the test call, the sandbox — and says
 * for each what it found and, on failure, the fix. Later steps are skipped once one fails. The
 * token step always mints (the cache is not used): a cached token says nothing of the secret today.
 *
 * @example
 * const report = await runDoctor({ env: process.env });
 * for (const step of report.steps) console.log(step.status, step.title, step.found.join("; "));
 */
export async function runDoctor(opts: DoctorOptions = {}): Promise<DoctorReport> {
  const { attemptTimeoutMs = 15_000, env, cwd, configFile, profile, ...input } = opts;
  const steps: DoctorStep[] = [];
  const rest = (from: DoctorStep["id"][], why: string) => {
    for (const id of from) steps.push({ id, title: TITLES[id], status: "skip", found: [why] });
    return reportOf(steps);
  };
  const settingsStep = checkSettings({ options: { ...input, profile }, env, cwd, configFile });
  steps.push(settingsStep);
  if (settingsStep.status === "fail")
    return rest(["identity", "token", "test-call", "sandbox"], "needs valid settings");
  let settings: ReturnType<typeof resolveSettings>;
  let client: PlatformClient;
  const events: ClientEvent[] = [];
  try {
    settings = resolveSettings({ options: { ...input, profile }, env, cwd, configFile });
    client = new PlatformClient({
      ...opts,
      tokenCache: "off",
      // A diagnosis should not wait a minute on a throttled answer: one retry, ten seconds in all,
      // and a Retry-After beyond that is reported as throttling instead of waited for.
      retry: { maxAttempts: 2, maxTotalMs: 10_000, ...opts.retry, attemptTimeoutMs },
      onEvent: (e) => events.push(e),
    });
  } catch (err) {
    // What the offline checks cannot see (an unreadable key or CA file, a missing JWT setting).
    if (!(err instanceof PlatformAuthError)) throw err;
    Object.assign(settingsStep, { status: "fail", code: err.code, fix: "Fix the setting named above." });
    settingsStep.found.push(`✗ ${err.message}`);
    return rest(["identity", "token", "test-call", "sandbox"], "needs valid settings");
  }

  try {
    const identity = await checkReachable(settings.authUrl, {
      env,
      caFile: settings.caFile,
      attemptTimeoutMs,
    });
    steps.push(identity);
    if (identity.status === "fail")
      return rest(["token", "test-call", "sandbox"], "needs the identity service");

    const token = await step("token", async (s) => {
      const t = await client.accessToken();
      const claims = decodeTokenClaims(t.accessToken);
      const hours = ((t.expiresAt - Date.now()) / 3_600_000).toFixed(1);
      s.found.push(
        `minted by ${settings.authMethod} at ${settings.authUrl}, expires ${new Date(t.expiresAt).toISOString()} (in ${hours} h)`,
      );
      if (claims) {
        s.found.push(
          `client ${claims.client_id ?? "(not in the token)"}, org ${claims.org ?? claims.user_id ?? "(not in the token)"}`,
        );
        s.found.push(`scopes ${claims.scope ?? "(not in the token)"}`);
        if (claims.client_id !== undefined && claims.client_id !== settings.clientId) {
          fail(s, `the token is for client ${claims.client_id}, not ${settings.clientId}`, "token_rejected");
        }
        const granted = String(claims.scope ?? "").split(",");
        const lacking = settings.scopes.filter((x) => !granted.includes(x));
        if (claims.scope !== undefined && lacking.length > 0)
          warn(s, `the token lacks requested scopes: ${lacking.join(", ")}`);
      } else s.found.push("the token is opaque: no claims to show");
      // Each secret of a rotation on its own: one refused is a rotation to finish (or a typo).
      if (settings.clientSecrets.length > 1) {
        for (const [i, secret] of settings.clientSecrets.entries()) {
          const alone = new PlatformClient({
            ...opts,
            clientSecret: secret,
            clientSecrets: undefined,
            tokenCache: "off",
            retry: { maxAttempts: 1, attemptTimeoutMs },
          });
          try {
            await alone.accessToken();
            s.found.push(`client secret #${i + 1} of ${settings.clientSecrets.length}: accepted`);
          } catch (err) {
            if (!(err instanceof PlatformAuthError) || err.serviceCode !== "invalid_client") throw err;
            warn(
              s,
              `client secret #${i + 1} of ${settings.clientSecrets.length} is refused (invalid_client): remove it once the rotation is done, or replace it if it was mistyped`,
            );
          } finally {
            await alone.close();
          }
        }
      }
      return t;
    });
    if (!token) return rest(["test-call", "sandbox"], "needs a token");

    const page = await step("test-call", async (s) => {
      const p = await client.json<GlobalClassesPage>(GLOBAL_CLASSES_PATH, {
        headers: { accept: XED_ID_JSON },
        sandbox: null,
      });
      s.found.push(
        `GET ${GLOBAL_CLASSES_PATH} in the default sandbox: ${p.results?.length ?? 0} global classes`,
      );
      return p;
    });
    if (!page) return rest(["sandbox"], "needs a working test call");

    if (settings.sandbox === undefined) {
      steps.push({
        id: "sandbox",
        title: TITLES.sandbox,
        status: "skip",
        found: ["no sandbox set: calls go to the org's default sandbox"],
      });
    } else {
      const sandbox = settings.sandbox;
      await step("sandbox", async (s) => {
        const p = await client.json<GlobalClassesPage>(GLOBAL_CLASSES_PATH, {
          headers: { accept: XED_ID_JSON },
          sandbox,
        });
        s.found.push(`sandbox ${sandbox} answered the test call: ${p.results?.length ?? 0} global classes`);
        return p;
      });
    }
    return reportOf(steps);
  } finally {
    await client.close();
  }

  async function step<T>(id: DoctorStep["id"], run: (s: DoctorStep) => Promise<T>): Promise<T | undefined> {
    const s: DoctorStep = { id, title: TITLES[id], status: "ok", found: [] };
    steps.push(s);
    const seen = events.length;
    try {
      const out = await run(s);
      for (const e of events.slice(seen)) {
        if (e.type === "remint") {
          warn(
            s,
            `the gateway refused a token that had just worked (${e.reason}) and a new one was minted: something revokes this credential's tokens (another tool rotating the secret, or an admin)`,
          );
        }
        if (e.type === "retry") warn(s, `${e.reason} on attempt ${e.attempt}, answered after a retry`);
      }
      // A check inside the step may have failed it without an exception (a token of another client).
      return s.status === "fail" ? undefined : out;
    } catch (err) {
      if (!(err instanceof PlatformAuthError)) throw err;
      failedWith(s, err, "See the message above.");
      return undefined;
    }
  }
}

// An identity service that takes this long for a bare answer will make token requests feel broken.
const SLOW_MS = 2000;

const TITLES: Record<DoctorStep["id"], string> = {
  settings: "settings",
  identity: "identity service",
  token: "token",
  "test-call": "test call",
  sandbox: "sandbox",
};

function fail(s: DoctorStep, found: string, reason: keyof typeof FAILURE_REASONS): void {
  s.status = "fail";
  s.found.push(`✗ ${found}`);
  s.reason = reason;
  s.fix = FAILURE_REASONS[reason].fix;
  s.code = "PA_AUTH_FAILED";
}

/** The step failed with the library's error: its message, code, reason and fix (or `fallbackFix`). */
function failedWith(s: DoctorStep, err: PlatformAuthError, fallbackFix?: string): void {
  s.status = "fail";
  s.found.push(err.message);
  s.code = err.code;
  s.reason = err.reason;
  s.fix = err.fix ?? fallbackFix;
}

function warn(s: DoctorStep, found: string): void {
  if (s.status === "ok") s.status = "warn";
  s.found.push(`! ${found}`);
}

/** Any HTTP answer from the identity service's token endpoint means it is reachable. */
async function checkReachable(
  authUrl: string,
  opts: { env: PlatformClientOptions["env"]; caFile: string | undefined; attemptTimeoutMs: number },
): Promise<DoctorStep> {
  const s: DoctorStep = { id: "identity", title: TITLES.identity, status: "ok", found: [] };
  const transport = createHttpTransport(opts);
  const url = `${authUrl}/ims/token/v3`;
  const started = Date.now();
  try {
    const res = await sendWithRetries((signal) => transport.fetch(url, { method: "GET", signal }), {
      policy: checkRetryOptions({ maxAttempts: 1, attemptTimeoutMs: opts.attemptTimeoutMs }),
      idempotent: true,
      target: { url, setting: "the auth URL (--auth-url, AEP_AUTH_URL)" },
    });
    await res.arrayBuffer().catch(() => undefined);
    const ms = Date.now() - started;
    s.found.push(`${authUrl} answered (HTTP ${res.status}) in ${ms} ms`);
    if (ms > SLOW_MS) {
      s.status = "warn";
      s.found.push(
        `! slow: more than ${SLOW_MS / 1000} s for one answer; token requests may time out (check the network path and proxy)`,
      );
    }
  } catch (err) {
    if (!(err instanceof PlatformAuthError)) throw err;
    failedWith(s, err);
  } finally {
    await transport.close();
  }
  return s;
}

import { readFileSync } from "node:fs";
import { PlatformEmulator } from "../emulator/platform-emulator.js";
import { PlatformAuthError } from "../errors.js";
import { toList } from "../settings.js";
import { resolveSettings } from "../settings-resolver.js";
import type { CliIo } from "./cli-io.js";
import { parseCommand, settingsFromFlags } from "./cli-options.js";

/**
 * `emulator`: serves the identity endpoints and the global-classes call on loopback for the
 * credential set that the usual settings describe, until interrupted.
 */
export async function emulatorCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseCommand("emulator", args, {
    host: { type: "string" },
    port: { type: "string" },
    "public-key-file": { type: "string" },
    "expired-tokens": { type: "boolean" },
    fail: { type: "string", multiple: true },
    "retry-after": { type: "string" },
    delay: { type: "string" },
    "token-lifetime": { type: "string" },
    classes: { type: "string" },
    sandboxes: { type: "string" },
    "count-mints": { type: "boolean" },
    "rate-limit": { type: "string" },
    "revoke-after": { type: "string" },
    "retire-secret": { type: "string" },
    json: { type: "boolean" },
  });
  const s = resolveSettings({ options: settingsFromFlags(values), env: io.env, cwd: io.cwd });
  const keyFile = (values["public-key-file"] as string | undefined) ?? s.privateKeyFile;
  let publicKey: string | undefined;
  if (keyFile !== undefined) {
    try {
      publicKey = readFileSync(keyFile, "utf8");
    } catch {
      throw new PlatformAuthError("PA_KEY_INVALID", `emulator: key file ${keyFile} could not be read`);
    }
  }
  const countMints = values["count-mints"] === true;
  let mints = 0;
  const emulator = new PlatformEmulator({
    credentials: [
      {
        clientId: s.clientId,
        clientSecret: s.clientSecret,
        // Every secret of the settings is accepted: a rotation window (see --retire-secret).
        clientSecrets: s.clientSecrets,
        orgId: s.orgId,
        scopes: toList(s.scopes),
        technicalAccountId: s.technicalAccountId,
        publicKey,
        metascopes: s.metascopes,
      },
    ],
    tokenLifetimeSeconds: num(values["token-lifetime"], "--token-lifetime", 1),
    classCount: num(values.classes, "--classes", 0),
    delayMs: num(values.delay, "--delay", 0),
    expiredTokens: values["expired-tokens"] === true,
    sandboxes: toList(values.sandboxes as string | undefined),
    rateLimit: rateLimitOf(values["rate-limit"] as string | undefined),
    // --verbose: a request log (method, path, status, time, request id; never a header or a body).
    onRequest: values.verbose
      ? (r) => io.stderr(`${r.method} ${r.path} ${r.status} ${r.ms} ms (request id ${r.requestId})\n`)
      : undefined,
    onTokenIssued: () => {
      mints++;
      if (countMints) io.stderr(`mint #${mints}\n`);
    },
  });
  const revokeAfter = num(values["revoke-after"], "--revoke-after", 0);
  if (revokeAfter !== undefined) emulator.revokeAfter(Math.floor(revokeAfter));
  const retire = num(values["retire-secret"], "--retire-secret", 1);
  if (retire !== undefined) {
    if (s.clientSecrets.length < 2 || retire > s.clientSecrets.length) {
      throw new PlatformAuthError(
        "PA_USAGE",
        `emulator: --retire-secret ${retire} needs that many secrets in AEP_CLIENT_SECRETS (or "clientSecrets" in a profile); there are ${s.clientSecrets.length}`,
      );
    }
    emulator.retireSecret(Math.floor(retire));
  }
  const retryAfter = num(values["retry-after"], "--retry-after", 0);
  for (const spec of (values.fail as string[] | undefined) ?? []) {
    const m = /^(\d{3})(?::(\d+))?(?::(token|api|any))?$/.exec(spec);
    if (!m)
      throw new PlatformAuthError(
        "PA_USAGE",
        `emulator: --fail ${JSON.stringify(spec)} must look like 429, 503:3 or 401:1:token`,
      );
    emulator.failNext({
      status: Number(m[1]),
      count: m[2] ? Number(m[2]) : 1,
      target: (m[3] as "token" | "api" | "any" | undefined) ?? "api",
      retryAfter,
    });
  }
  const url = await emulator.start({
    host: values.host as string | undefined,
    port: num(values.port, "--port", 0) ?? 0,
  });
  // --json: one line a script can parse for the URL, written once the port is open.
  io.stdout(values.json ? `${JSON.stringify({ url })}\n` : `listening on ${url}\n`);
  io.stderr(
    `use it with: --auth-url ${url} --base-url ${url} (or AEP_AUTH_URL / AEP_BASE_URL); stop with Ctrl-C\n`,
  );
  await untilStopped(io.signal);
  // Stop taking requests at once; those in flight get a few seconds, and a second signal cuts them.
  io.stderr(
    `stopping: no new requests; those in flight get ${GRACE_MS / 1000} s (Ctrl-C again to cut them)\n`,
  );
  const again = onNextSignal(io.signal, () => emulator.cutInFlight());
  await emulator.close({ graceMs: GRACE_MS });
  again.dispose();
  io.stderr(`emulator stopped after ${mints} mint${mints === 1 ? "" : "s"}\n`);
  return 0;
}

const GRACE_MS = 3000;

function rateLimitOf(spec: string | undefined): { requests: number; perSeconds: number } | undefined {
  if (spec === undefined) return undefined;
  const m = /^(\d+)\/(\d+(?:\.\d+)?)$/.exec(spec);
  if (!m || Number(m[1]) < 1 || Number(m[2]) <= 0) {
    throw new PlatformAuthError(
      "PA_USAGE",
      `emulator: --rate-limit ${JSON.stringify(spec)} must look like REQUESTS/SECONDS, e.g. 100/60`,
    );
  }
  return { requests: Number(m[1]), perSeconds: Number(m[2]) };
}

function num(value: unknown, flag: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < min) {
    throw new PlatformAuthError(
      "PA_USAGE",
      `emulator: ${flag} must be a number ≥ ${min}, got ${JSON.stringify(value)}`,
    );
  }
  return n;
}

/** Resolves on the first SIGINT/SIGTERM (or when the caller's signal aborts). */
function untilStopped(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal) {
      if (signal.aborted) resolve();
      else signal.addEventListener("abort", () => resolve(), { once: true });
      return;
    }
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}

/** Runs `then` on a second signal while the emulator drains (a caller's signal has only one). */
function onNextSignal(signal: AbortSignal | undefined, then: () => void): { dispose(): void } {
  if (signal) return { dispose() {} };
  const cut = () => {
    dispose();
    then();
  };
  const dispose = () => {
    process.off("SIGINT", cut);
    process.off("SIGTERM", cut);
  };
  process.on("SIGINT", cut);
  process.on("SIGTERM", cut);
  return { dispose };
}

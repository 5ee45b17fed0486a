import { decodeTokenClaims } from "../access-token.js";
import { PlatformAuthError } from "../errors.js";
import { buildJwtAssertion, loadPrivateKey } from "../jwt-assertion.js";
import { resolveSettings } from "../settings-resolver.js";
import { TokenFileStore, tokenCacheKey } from "../token-file-store.js";
import { defaultTokenCachePath } from "../xdg-paths.js";
import type { CliIo } from "./cli-io.js";
import { createCliClient, parseCommand, settingsFromFlags } from "./cli-options.js";

/** `token [--json]`: prints a valid access token (with its expiry as JSON), minting only when the cache has none. */
export async function tokenCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseCommand("token", args, { json: { type: "boolean" } });
  const client = createCliClient(values, io);
  try {
    const token = await client.accessToken();
    if (values.json) {
      const { accessToken, method } = token;
      const expiresAt = new Date(token.expiresAt).toISOString();
      io.stdout(`${JSON.stringify({ accessToken, expiresAt, method }, null, 2)}\n`);
    } else io.stdout(`${token.accessToken}\n`);
    return 0;
  } finally {
    await client.close();
  }
}

/** `headers [--format curl|json|env]`: the full header set of a Platform call. */
export async function headersCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseCommand("headers", args, {
    format: { type: "string" },
    json: { type: "boolean" },
  });
  if (values.json && values.format !== undefined && values.format !== "json") {
    throw new PlatformAuthError(
      "PA_USAGE",
      `headers: --json and --format ${values.format} contradict each other`,
    );
  }
  // --json as every other command takes it: the same as --format json.
  const format = values.json ? "json" : ((values.format as string | undefined) ?? "curl");
  if (!["curl", "json", "env"].includes(format)) {
    throw new PlatformAuthError(
      "PA_USAGE",
      `headers: --format ${JSON.stringify(format)} is not allowed; use curl, json or env`,
    );
  }
  const client = createCliClient(values, io);
  try {
    const headers = await client.headers();
    const display: Record<string, string> = {
      Authorization: headers.authorization,
      "x-api-key": headers["x-api-key"],
      "x-gw-ims-org-id": headers["x-gw-ims-org-id"],
    };
    if (headers["x-sandbox-name"]) display["x-sandbox-name"] = headers["x-sandbox-name"];
    const entries = Object.entries(display);
    if (format === "json") io.stdout(`${JSON.stringify(display, null, 2)}\n`);
    else if (format === "curl")
      io.stdout(`${entries.map(([k, v]) => `-H ${shellQuote(`${k}: ${v}`)}`).join(" ")}\n`);
    else
      for (const [k, v] of entries)
        io.stdout(`export ${k.toUpperCase().replace(/-/g, "_")}=${shellQuote(v)}\n`);
    return 0;
  } finally {
    await client.close();
  }
}

/** `jwt`: builds and signs the deprecated method's JWT from the private key file. */
export async function jwtCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseCommand("jwt", args, { json: { type: "boolean" } });
  io.stderr(
    "platform-auth: warning: the JWT (service account) method is deprecated and Adobe ended JWT credentials in 2025; move to OAuth server-to-server\n",
  );
  const s = resolveSettings({
    options: { ...settingsFromFlags(values), authMethod: "jwt" },
    env: io.env,
    cwd: io.cwd,
    secretOptional: true,
  });
  const privateKey = loadPrivateKey({ file: s.privateKeyFile, pem: s.privateKey });
  const jwt = await buildJwtAssertion({
    ...s,
    technicalAccountId: s.technicalAccountId as string,
    privateKey,
  });
  io.stdout(values.json ? `${JSON.stringify({ jwt }, null, 2)}\n` : `${jwt}\n`);
  return 0;
}

/** `inspect [--json]`: decodes the cached token locally; prints no token and no secret. */
export async function inspectCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseCommand("inspect", args, { json: { type: "boolean" } });
  const s = resolveSettings({
    options: settingsFromFlags(values),
    env: io.env,
    cwd: io.cwd,
    secretOptional: true,
  });
  const path = s.tokenCache ?? defaultTokenCachePath(io.env);
  if (path === "off") {
    throw new PlatformAuthError(
      "PA_USAGE",
      "inspect: the token cache is off (AEP_TOKEN_CACHE=off or --no-cache), so there is nothing to inspect",
    );
  }
  const token = new TokenFileStore(path).load(tokenCacheKey({ ...s, method: s.authMethod }));
  if (!token) {
    io.stderr(
      `platform-auth: no cached token for client ${s.clientId} in ${path}; run "platform-auth token" first\n`,
    );
    return 1;
  }
  const claims = decodeTokenClaims(token.accessToken);
  const info = {
    clientId: (claims?.client_id as string | undefined) ?? s.clientId,
    orgId: s.orgId,
    method: token.method,
    scopes: claims?.scope ? String(claims.scope).split(",") : s.scopes,
    obtainedAt: new Date(token.obtainedAt).toISOString(),
    expiresAt: new Date(token.expiresAt).toISOString(),
    expired: token.expiresAt <= Date.now(),
    secondsLeft: Math.max(0, Math.floor((token.expiresAt - Date.now()) / 1000)),
    cacheFile: path,
  };
  if (values.json) {
    io.stdout(`${JSON.stringify(info, null, 2)}\n`);
  } else {
    const rows = Object.entries(info).map(
      ([k, v]) => `${k.padEnd(11)} ${Array.isArray(v) ? v.join(", ") : String(v)}`,
    );
    io.stdout(`${rows.join("\n")}\n`);
  }
  return 0;
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

import { PlatformAuthError } from "../errors.js";
import { DEFAULT_SCOPES, type SettingsInput, toList } from "../settings.js";
import { type ResolveSettingsOptions, readLayers, type SettingsLayer } from "../settings-resolver.js";
import { checkServiceUrl } from "../url-policy.js";
import type { DoctorStep } from "./doctor-report.js";

type Key = keyof SettingsInput;
const SECRET_KEYS = new Set<Key>(["clientSecret", "clientSecrets", "privateKey"]);

/**
 * The offline step: every setting present and well-formed, and where each came from. Checks what
 * Adobe's tools are known to trip on (a pasted value with quotes or a trailing space, an org id
 * without `@AdobeOrg`, scopes copied from another API) before any request is sent. Secret values
 * are never shown: only their count, length and source.
 */
export function checkSettings(opts: ResolveSettingsOptions): DoctorStep {
  const step: DoctorStep = { id: "settings", title: "settings", status: "ok", found: [] };
  let layers: SettingsLayer[];
  try {
    ({ layers } = readLayers(opts));
  } catch (err) {
    if (!(err instanceof PlatformAuthError)) throw err;
    return {
      ...step,
      status: "fail",
      found: [err.message],
      fix: "Fix the file named above, or name an existing profile.",
      code: err.code,
    };
  }
  const fixes: string[] = [];
  const fail = (found: string, fix: string) => {
    step.status = "fail";
    step.found.push(`✗ ${found} → ${fix}`);
    fixes.push(fix);
  };
  const warn = (found: string) => {
    if (step.status === "ok") step.status = "warn";
    step.found.push(`! ${found}`);
  };
  const sourceOf = (key: Key): string | undefined => {
    const layer = layers.find((l) => l.values[key] !== undefined);
    if (!layer) return undefined;
    return where(layer, key);
  };
  const value = (key: Key) => layers.find((l) => l.values[key] !== undefined)?.values[key];

  const method = String(value("authMethod") ?? "oauth").toLowerCase();
  if (method !== "oauth" && method !== "jwt") {
    fail(
      `auth method "${value("authMethod")}" (${sourceOf("authMethod")})`,
      'Set the auth method to "oauth" (or "jwt" for old credentials).',
    );
  } else if (method === "jwt") {
    warn(
      "auth method jwt: JWT credentials stopped working in 2025; create an OAuth Server-to-Server credential",
    );
  }

  const secretLayer = layers.find(
    (l) => l.values.clientSecret !== undefined || l.values.clientSecrets !== undefined,
  );
  // Stray whitespace and quotes, in every value in use (secrets described, never shown).
  for (const layer of layers) {
    for (const [key, raw] of Object.entries(layer.values) as [Key, unknown][]) {
      const inUse = SECRET_KEYS.has(key)
        ? layer === secretLayer
        : layers.find((l) => l.values[key] !== undefined) === layer;
      if (!inUse) continue;
      for (const v of Array.isArray(raw) ? raw : [raw]) {
        if (typeof v !== "string" || key === "privateKey") continue;
        const at = where(layer, key);
        const shown = SECRET_KEYS.has(key) ? `the ${label(key)}` : `${label(key)} ${JSON.stringify(v)}`;
        if (/^\s|\s$/.test(v))
          fail(
            `${shown} (${at}) has leading or trailing whitespace`,
            `Remove the spaces or line breaks around the ${label(key)} in ${at}.`,
          );
        if (/^["'`]|["'`]$/.test(v))
          fail(
            `${shown} (${at}) is wrapped in quotes`,
            `Remove the quotes around the ${label(key)} in ${at} (quotes belong to the shell, not to the value).`,
          );
      }
    }
  }

  const clientId = value("clientId") as string | undefined;
  if (clientId === undefined)
    fail("client id: not set", "Set AEP_CLIENT_ID (or clientId in a profile) to the credential's Client ID.");
  else {
    step.found.push(`client id ${clientId} (${sourceOf("clientId")})`);
    if (!/^[0-9a-f]{32}$/i.test(clientId.trim()))
      warn(`client id is not 32 hexadecimal characters, as Developer Console client ids are`);
  }

  if (!secretLayer) {
    fail(
      "client secret: not set",
      "Set AEP_CLIENT_SECRET (or clientSecret in a profile, or in .env); never as a flag.",
    );
  } else {
    const secrets = [
      ...(secretLayer.values.clientSecret !== undefined ? [secretLayer.values.clientSecret] : []),
      ...(toList(secretLayer.values.clientSecrets) ?? []),
    ];
    const from = (["clientSecret", "clientSecrets"] as const)
      .filter((k) => secretLayer.values[k] !== undefined)
      .map((k) => where(secretLayer, k))
      .join(", ");
    const lengths = secrets.map((s) => s.length).join(", ");
    step.found.push(
      `${secrets.length} client secret${secrets.length === 1 ? "" : "s"} of ${lengths} characters (${from})`,
    );
    if (secrets.some((s) => s.trim().length < 8))
      fail(
        "a client secret is shorter than 8 characters",
        "Copy the whole client secret from the Developer Console.",
      );
  }

  const orgId = value("orgId") as string | undefined;
  if (orgId === undefined)
    fail(
      "org id: not set",
      "Set AEP_ORG_ID (or orgId in a profile) to the org id of the project, ending in @AdobeOrg.",
    );
  else {
    step.found.push(`org id ${orgId} (${sourceOf("orgId")})`);
    if (!orgId.trim().endsWith("@AdobeOrg"))
      fail(
        `org id does not end in @AdobeOrg`,
        "Use the full org id as the Developer Console shows it, e.g. 0123456789ABCDEF01234567@AdobeOrg.",
      );
    else if (!/^[0-9A-F]{24}@AdobeOrg$/.test(orgId.trim()))
      warn("org id is not 24 hexadecimal capitals before @AdobeOrg, as org ids usually are");
  }

  const scopes = toList(value("scopes") as string | undefined);
  if (method === "oauth") {
    if (!scopes) step.found.push("scopes: Platform's defaults");
    else {
      step.found.push(`scopes ${scopes.join(",")} (${sourceOf("scopes")})`);
      const missing = DEFAULT_SCOPES.filter((s) => !scopes.includes(s));
      if (missing.length > 0)
        warn(
          `scopes lack ${missing.join(", ")}, which the Experience Platform API credential grants and its calls expect`,
        );
    }
  }

  const sandbox = value("sandbox") as string | undefined;
  if (sandbox === undefined) step.found.push("sandbox: none set (calls go to the org's default sandbox)");
  else if (!/^[a-z0-9][a-z0-9-]{0,255}$/.test(sandbox)) {
    fail(
      `sandbox ${JSON.stringify(sandbox)} (${sourceOf("sandbox")}) breaks the naming rules`,
      "Sandbox names are lowercase letters, digits and hyphens, as in Platform → Sandboxes (e.g. prod, dev-2).",
    );
  } else step.found.push(`sandbox ${sandbox} (${sourceOf("sandbox")})`);

  for (const key of ["authUrl", "baseUrl"] as const) {
    const v = value(key) as string | undefined;
    if (v === undefined) continue;
    try {
      checkServiceUrl(label(key), v.trim());
      step.found.push(`${label(key)} ${v} (${sourceOf(key)})`);
    } catch (err) {
      fail(
        `${(err as Error).message} (${sourceOf(key)})`,
        `Set the ${label(key)} to an https URL (or the emulator's http://127.0.0.1:PORT).`,
      );
    }
  }
  if (fixes.length > 0) {
    step.fix = fixes[0];
    step.code = "PA_CONFIG_INVALID";
  }
  return step;
}

/** Where a setting came from, as a person would look for it: `environment AEP_ORG_ID`, `AEP_ORG_ID in /work/.env`, `flag --org-id`. */
function where(layer: SettingsLayer, key: Key): string {
  const variable = layer.variables?.[key];
  if (layer.source === "flag") return `flag --${flagName(key)}`;
  if (variable === undefined) return layer.source;
  return layer.source === "environment" ? `environment ${variable}` : `${variable} in ${layer.source}`;
}

function label(key: Key): string {
  const labels: Partial<Record<Key, string>> = {
    clientId: "client id",
    clientSecret: "client secret",
    clientSecrets: "client secrets",
    orgId: "org id",
    authUrl: "auth URL",
    baseUrl: "base URL",
    authMethod: "auth method",
    technicalAccountId: "technical account id",
    privateKeyFile: "private key file",
    tokenCache: "token cache",
    caFile: "CA file",
  };
  return labels[key] ?? key;
}

function flagName(key: Key): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

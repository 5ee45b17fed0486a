import { PlatformAuthError } from "./errors.js";
import type { SettingsInput } from "./settings.js";

/**
 * The project/workspace JSON that the Developer Console downloads ("Download all" on a workspace,
 * or `aio console workspace download`), as far as credentials go:
 *
 *     { "project": { "name", "org": { "ims_org_id" }, "workspace": { "name", "details": {
 *         "credentials": [ { "id", "name", "integration_type": "oauth_server_to_server",
 *           "oauth_server_to_server": { "client_id", "client_secrets": [..], "technical_account_email",
 *                                       "technical_account_id", "scopes": [..] } },
 *           { "integration_type": "service", "jwt": { "client_id", "client_secret", "techacct",
 *                                                     "meta_scopes": [..] } } ] } } } }
 *
 * (shape from the Developer Console's and App Builder's documentation of workspace.json and the
 * aio CLI's console plugin). The JWT entry carries no private key: it never leaves the user's machine.
 */
export interface ConsoleCredential {
  name: string;
  method: "oauth" | "jwt";
  project: string;
  workspace: string;
  settings: SettingsInput;
}

/**
 * Reads the credentials of a downloaded project JSON; `pick` chooses one by name or id when there
 * are several (otherwise the only OAuth Server-to-Server one).
 *
 * @example
 * const cred = readConsoleProject(readFileSync(file, "utf8"), file);
 * saveProfile(configFilePath(process.env), "prod", cred.settings);
 */
export function readConsoleProject(text: string, file: string, pick?: string): ConsoleCredential {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw invalid(file, `is not JSON (${(err as Error).message})`);
  }
  const project = record(record(data)?.project);
  if (!project)
    throw invalid(
      file,
      'has no "project" object; download it from the Developer Console (workspace → Download all)',
    );
  const orgId = str(record(project.org)?.ims_org_id);
  const workspace = record(project.workspace);
  const list = record(workspace?.details)?.credentials;
  if (!Array.isArray(list) || list.length === 0) {
    throw invalid(
      file,
      "has no credentials (project.workspace.details.credentials); add an OAuth Server-to-Server credential to the workspace first",
    );
  }
  const usable = list
    .map(record)
    .filter((c) => c && (record(c.oauth_server_to_server) || record(c.jwt))) as Record<string, unknown>[];
  const names = list
    .map((c) => `${str(record(c)?.name) ?? "?"} (${str(record(c)?.integration_type) ?? "?"})`)
    .join(", ");
  if (usable.length === 0) {
    throw invalid(file, `has no OAuth Server-to-Server or JWT credential; it has: ${names}`);
  }
  let chosen: Record<string, unknown>;
  if (pick !== undefined) {
    const found = usable.find((c) => str(c.name) === pick || String(c.id) === pick);
    if (!found) throw invalid(file, `has no credential named ${JSON.stringify(pick)}; it has: ${names}`);
    chosen = found;
  } else {
    // One OAuth credential wins over JWT ones: JWT credentials stopped working in 2025.
    const oauth = usable.filter((c) => record(c.oauth_server_to_server));
    const candidates = oauth.length > 0 ? oauth : usable;
    if (candidates.length > 1) {
      throw new PlatformAuthError(
        "PA_USAGE",
        `import: ${file} has ${candidates.length} credentials; choose one with --credential NAME: ${names}`,
      );
    }
    chosen = candidates[0];
  }
  if (orgId === undefined) throw invalid(file, "has no org id (project.org.ims_org_id)");
  const base = {
    name: str(chosen.name) ?? String(chosen.id ?? "credential"),
    project: str(project.title) ?? str(project.name) ?? "?",
    workspace: str(workspace?.title) ?? str(workspace?.name) ?? "?",
  };
  const oauth = record(chosen.oauth_server_to_server);
  if (oauth) {
    const clientId = str(oauth.client_id);
    const secrets = strings(oauth.client_secrets);
    if (!clientId || secrets.length === 0)
      throw invalid(file, `credential ${base.name} has no client_id or client_secrets`);
    const scopes = strings(oauth.scopes);
    return {
      ...base,
      method: "oauth",
      settings: {
        clientId,
        ...(secrets.length === 1 ? { clientSecret: secrets[0] } : { clientSecrets: secrets }),
        orgId,
        ...(scopes.length > 0 ? { scopes } : {}),
      },
    };
  }
  const jwt = record(chosen.jwt) as Record<string, unknown>;
  const clientId = str(jwt.client_id);
  const secrets = [str(jwt.client_secret), ...strings(jwt.client_secrets)].filter(
    (s): s is string => s !== undefined,
  );
  const technicalAccountId = str(jwt.techacct) ?? str(jwt.technical_account_id);
  if (!clientId || secrets.length === 0 || !technicalAccountId) {
    throw invalid(file, `JWT credential ${base.name} lacks client_id, client_secret or techacct`);
  }
  const metascopes = strings(jwt.meta_scopes);
  return {
    ...base,
    method: "jwt",
    settings: {
      authMethod: "jwt",
      clientId,
      ...(secrets.length === 1 ? { clientSecret: secrets[0] } : { clientSecrets: secrets }),
      orgId,
      technicalAccountId,
      ...(metascopes.length > 0 ? { metascopes } : {}),
    },
  };
}

function invalid(file: string, what: string): PlatformAuthError {
  return new PlatformAuthError("PA_CONFIG_INVALID", `import: ${file} ${what}`);
}

function record(v: unknown): Record<string, unknown> | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() !== "" ? v.trim() : undefined;
}

function strings(v: unknown): string[] {
  if (typeof v === "string")
    return v
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "");
  return Array.isArray(v) ? v.map(str).filter((s): s is string => s !== undefined) : [];
}

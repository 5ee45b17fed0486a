/**
 * The settings of one credential set, their sources and their defaults. Each field is listed once
 * in {@link SETTING_FIELDS} with every name it goes by (call option, flag, environment variables,
 * config-file key), so that resolution and the missing-settings message read from one table.
 */
export type AuthMethod = "oauth" | "jwt";

/** Platform's default OAuth scopes (Developer Console, Experience Platform API credential). */
export const DEFAULT_SCOPES = [
  "openid",
  "session",
  "AdobeID",
  "read_organizations",
  "additional_info.projectedProductContext",
];
export const DEFAULT_METASCOPES = ["ent_dataservices_sdk"];
export const DEFAULT_AUTH_URL = "https://ims-na1.adobelogin.com";
export const DEFAULT_BASE_URL = "https://platform.adobe.io";

/** Settings as given by one source, before defaults and validation. */
export interface SettingsInput {
  clientId?: string;
  clientSecret?: string;
  /**
   * Several secrets of one credential, tried in order (the Developer Console allows two at once,
   * so that a secret can be rotated without downtime). Comma- or space-separated, or a list.
   */
  clientSecrets?: string | readonly string[];
  orgId?: string;
  sandbox?: string;
  /** Comma- or space-separated string, or a list. */
  scopes?: string | readonly string[];
  authMethod?: string;
  technicalAccountId?: string;
  privateKeyFile?: string;
  /** The PEM text itself (library callers that keep keys in a secret store). */
  privateKey?: string;
  metascopes?: string | readonly string[];
  authUrl?: string;
  baseUrl?: string;
  /** A file path, or `off`. */
  tokenCache?: string;
  /** An extra CA certificate (PEM) file, added to the system's trusted roots. */
  caFile?: string;
  /**
   * Budgets of this credential per hour, counted by the usage meter across processes: warnings
   * come from 80 % of them. Whole numbers (as strings from the environment).
   */
  callsPerHour?: string | number;
  mintsPerHour?: string | number;
}

/** Settings after resolution: required ones present, defaults applied, URLs checked. */
export interface ResolvedSettings {
  clientId: string;
  /** The first of {@link ResolvedSettings.clientSecrets} ("" when none is needed). */
  clientSecret: string;
  /** Every client secret, in the order they are tried. */
  clientSecrets: string[];
  orgId: string;
  sandbox: string | undefined;
  scopes: string[];
  authMethod: AuthMethod;
  technicalAccountId: string | undefined;
  privateKeyFile: string | undefined;
  privateKey: string | undefined;
  metascopes: string[];
  authUrl: string;
  baseUrl: string;
  /** undefined: the caller's default (memory only for the library, a file for the CLI). */
  tokenCache: string | undefined;
  caFile: string | undefined;
  /** Hourly budgets the user set, when they did. */
  budget: { callsPerHour?: number; mintsPerHour?: number };
  /** Profile that contributed settings, when one did. */
  profile: string | undefined;
}

export interface SettingField {
  key: keyof SettingsInput;
  label: string;
  flag?: string;
  env: string[];
}

/** Environment names: ours first, then the names of the platform's own Postman environments. */
export const SETTING_FIELDS: SettingField[] = [
  { key: "clientId", label: "client id", flag: "--client-id", env: ["AEP_CLIENT_ID", "API_KEY"] },
  // No flag on purpose: a secret on the command line is visible to every user through `ps`.
  { key: "clientSecret", label: "client secret", env: ["AEP_CLIENT_SECRET", "CLIENT_SECRET"] },
  { key: "clientSecrets", label: "client secrets", env: ["AEP_CLIENT_SECRETS"] },
  { key: "orgId", label: "org id", flag: "--org-id", env: ["AEP_ORG_ID", "IMS_ORG"] },
  { key: "sandbox", label: "sandbox", flag: "--sandbox", env: ["AEP_SANDBOX_NAME", "SANDBOX_NAME"] },
  { key: "scopes", label: "scopes", flag: "--scopes", env: ["AEP_SCOPES", "SCOPES"] },
  { key: "authMethod", label: "auth method", flag: "--auth-method", env: ["AEP_AUTH_METHOD"] },
  {
    key: "technicalAccountId",
    label: "technical account id",
    flag: "--technical-account-id",
    env: ["AEP_TECHNICAL_ACCOUNT_ID"],
  },
  {
    key: "privateKeyFile",
    label: "private key file",
    flag: "--private-key-file",
    env: ["AEP_PRIVATE_KEY_FILE"],
  },
  { key: "metascopes", label: "metascopes", flag: "--metascopes", env: ["AEP_METASCOPES"] },
  { key: "authUrl", label: "auth URL", flag: "--auth-url", env: ["AEP_AUTH_URL"] },
  { key: "baseUrl", label: "base URL", flag: "--base-url", env: ["AEP_BASE_URL"] },
  { key: "tokenCache", label: "token cache", env: ["AEP_TOKEN_CACHE"] },
  { key: "caFile", label: "CA file", flag: "--ca-file", env: ["AEP_CA_FILE"] },
  { key: "callsPerHour", label: "calls-per-hour budget", env: ["AEP_CALLS_PER_HOUR"] },
  { key: "mintsPerHour", label: "mints-per-hour budget", env: ["AEP_MINTS_PER_HOUR"] },
];

/** Keys a config-file profile may hold (the inline `privateKey` is for library callers only). */
export const PROFILE_KEYS = SETTING_FIELDS.map((f) => f.key);

/** Splits `"a,b c"` or `["a", "b"]` into a clean list. */
export function toList(value: string | readonly string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const parts = typeof value === "string" ? value.split(/[\s,]+/) : value.flatMap((v) => v.split(/[\s,]+/));
  const list = parts.map((p) => p.trim()).filter((p) => p !== "");
  return list.length > 0 ? list : undefined;
}

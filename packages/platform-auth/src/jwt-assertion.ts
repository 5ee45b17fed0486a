import { createPrivateKey, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import { SignJWT } from "jose";
import { PlatformAuthError } from "./errors.js";

export interface JwtAssertionInput {
  authUrl: string;
  clientId: string;
  orgId: string;
  technicalAccountId: string;
  metascopes: readonly string[];
  privateKey: KeyObject;
  /** Seconds since the epoch; default now. */
  nowSeconds?: number;
  /** Lifetime of the assertion; the platform's own examples use 300 s. */
  lifetimeSeconds?: number;
}

/**
 * Loads an RSA private key (PEM, PKCS#8 or PKCS#1) from a file or from its text. Errors name the
 * file, never its content.
 */
export function loadPrivateKey(source: { file?: string; pem?: string }): KeyObject {
  let pem = source.pem;
  if (pem === undefined) {
    try {
      pem = readFileSync(source.file ?? "", "utf8");
    } catch (err) {
      throw new PlatformAuthError(
        "PA_KEY_INVALID",
        `private key file ${source.file} could not be read (${(err as NodeJS.ErrnoException).code ?? "error"})`,
      );
    }
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new PlatformAuthError(
      "PA_KEY_INVALID",
      `${source.file ? `private key file ${source.file}` : "the private key"} is not a PEM private key (PKCS#8 "BEGIN PRIVATE KEY" or PKCS#1 "BEGIN RSA PRIVATE KEY")`,
    );
  }
  if (key.asymmetricKeyType !== "rsa") {
    throw new PlatformAuthError(
      "PA_KEY_INVALID",
      `the private key is ${key.asymmetricKeyType ?? "not asymmetric"}; the JWT method needs an RSA key (RS256)`,
    );
  }
  return key;
}

/**
 * Builds and signs (RS256) the JWT that the deprecated JWT exchange takes: `exp`, `iss` = org id,
 * `sub` = technical account id, `aud` = `{auth_url}/c/{client_id}`, and one
 * `"{auth_url}/s/<metascope>": true` claim per metascope.
 *
 * @example
 * const jwt = await buildJwtAssertion({ authUrl, clientId, orgId, technicalAccountId,
 *   metascopes: ["ent_dataservices_sdk"], privateKey: loadPrivateKey({ file: "private.key" }) });
 */
export async function buildJwtAssertion(input: JwtAssertionInput): Promise<string> {
  const now = input.nowSeconds ?? Math.floor(Date.now() / 1000);
  const claims: Record<string, boolean> = {};
  for (const m of input.metascopes) claims[`${input.authUrl}/s/${m}`] = true;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "RS256", typ: "JWT" })
    .setIssuer(input.orgId)
    .setSubject(input.technicalAccountId)
    .setAudience(`${input.authUrl}/c/${input.clientId}`)
    .setExpirationTime(now + (input.lifetimeSeconds ?? 300))
    .sign(input.privateKey);
}

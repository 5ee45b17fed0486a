import type { ServerResponse } from "node:http";
import { decodeProtectedHeader, jwtVerify } from "jose";
import { identityError, sendJson } from "./emulator-errors.js";
import type { CheckedCredential } from "./emulator-options.js";
import type { EmulatorTokenIssuer } from "./emulator-tokens.js";

export interface IdentityContext {
  credentials: Map<string, CheckedCredential>;
  issuer: EmulatorTokenIssuer;
  /** The emulator's own origin: the `auth_url` its JWT audiences must name. */
  authUrl: string;
  now(): number;
  lifetimeMs: number;
  expiredTokens: boolean;
  countMint(token: string): void;
}

type Fields = Map<string, string>;

/** `POST /ims/token/v3`: OAuth server-to-server. Answers `expires_in` in seconds, like the platform. */
export async function handleOAuthToken(res: ServerResponse, f: Fields, ctx: IdentityContext): Promise<void> {
  const missing = ["grant_type", "client_id", "client_secret"].filter((k) => !f.get(k));
  if (missing.length > 0)
    return identityError(res, 400, "invalid_request", `missing parameter: ${missing.join(", ")}`);
  if (f.get("grant_type") !== "client_credentials") {
    return identityError(res, 400, "unsupported_grant_type", "grant_type must be client_credentials");
  }
  const cred = checkClient(res, f, ctx);
  if (!cred) return;
  const requested = (f.get("scope") ?? "").split(/[\s,]+/).filter((s) => s !== "");
  const refused = requested.filter((s) => !cred.scopes.has(s));
  if (refused.length > 0)
    return identityError(res, 400, "invalid_scope", `invalid scope: ${refused.join(",")}`);
  const token = await mint(ctx, cred, requested.join(","));
  sendJson(res, 200, {
    access_token: token,
    token_type: "bearer",
    expires_in: Math.floor(ctx.lifetimeMs / 1000),
  });
}

/** `POST /ims/exchange/jwt`: the deprecated JWT exchange. Answers `expires_in` in milliseconds. */
export async function handleJwtExchange(res: ServerResponse, f: Fields, ctx: IdentityContext): Promise<void> {
  const missing = ["client_id", "client_secret", "jwt_token"].filter((k) => !f.get(k));
  if (missing.length > 0)
    return identityError(res, 400, "invalid_request", `missing parameter: ${missing.join(", ")}`);
  const cred = checkClient(res, f, ctx);
  if (!cred) return;
  if (!cred.publicKey || !cred.technicalAccountId) {
    return identityError(res, 401, "invalid_client", "no public key is bound to this client; use OAuth");
  }
  const jwt = f.get("jwt_token") as string;
  try {
    if (decodeProtectedHeader(jwt).alg !== "RS256") {
      return identityError(res, 400, "invalid_token", "JWT must be signed with RS256");
    }
  } catch {
    return identityError(res, 400, "invalid_token", "jwt_token is not a JWT");
  }
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(jwt, cred.publicKey, {
      algorithms: ["RS256"],
      audience: `${ctx.authUrl}/c/${cred.clientId}`,
      issuer: cred.orgId,
      subject: cred.technicalAccountId,
      requiredClaims: ["exp"],
      currentDate: new Date(ctx.now()),
    }));
  } catch (err) {
    const code = (err as { code?: string }).code;
    const why =
      code === "ERR_JWS_SIGNATURE_VERIFICATION_FAILED"
        ? "Could not match JWT signature to any of the bindings"
        : code === "ERR_JWT_EXPIRED"
          ? "JWT token is expired"
          : `JWT claims are not valid for this client (${(err as { claim?: string }).claim ?? "format"})`;
    return identityError(res, 401, "invalid_token", why);
  }
  const granted = cred.metascopes.filter((m) => payload[`${ctx.authUrl}/s/${m}`] === true);
  if (granted.length === 0) {
    return identityError(
      res,
      401,
      "invalid_scope",
      `JWT names none of the client's metascopes (${cred.metascopes.join(", ")})`,
    );
  }
  const token = await mint(ctx, cred, granted.join(","));
  sendJson(res, 200, { token_type: "bearer", access_token: token, expires_in: ctx.lifetimeMs });
}

function checkClient(res: ServerResponse, f: Fields, ctx: IdentityContext): CheckedCredential | undefined {
  const cred = ctx.credentials.get(f.get("client_id") as string);
  if (!cred) {
    identityError(res, 401, "invalid_client", "invalid client_id parameter");
    return undefined;
  }
  if (!cred.secrets.includes(f.get("client_secret") as string)) {
    identityError(res, 401, "invalid_client", "invalid client_secret parameter");
    return undefined;
  }
  return cred;
}

async function mint(ctx: IdentityContext, cred: CheckedCredential, scope: string): Promise<string> {
  const now = ctx.now();
  // An "expired tokens" emulator answers with a normal expires_in but writes a past creation time
  // into the token, like a server handing out a stale cached token.
  const createdAt = ctx.expiredTokens ? now - ctx.lifetimeMs - 1000 : now;
  const token = await ctx.issuer.issue({
    clientId: cred.clientId,
    scope,
    orgId: cred.orgId,
    createdAt,
    lifetimeMs: ctx.lifetimeMs,
  });
  ctx.countMint(token);
  return token;
}

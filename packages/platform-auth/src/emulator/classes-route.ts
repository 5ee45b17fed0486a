import type { IncomingMessage, ServerResponse } from "node:http";
import { type ClassRecord, fullClassRecord } from "./class-catalog.js";
import { gatewayError, sendJson, serviceError } from "./emulator-errors.js";
import type { CheckedCredential } from "./emulator-options.js";
import type { EmulatorTokenIssuer } from "./emulator-tokens.js";

export const GLOBAL_CLASSES_PATH = "/data/foundation/schemaregistry/global/classes";
const MAX_PAGE = 300;
const ID_TYPE = "application/vnd.adobe.xed-id+json";
const FULL_TYPE = "application/vnd.adobe.xed+json";

export interface ApiContext {
  credentials: Map<string, CheckedCredential>;
  issuer: EmulatorTokenIssuer;
  catalog: ClassRecord[];
  sandboxes: Set<string>;
  now(): number;
  /** Tokens created before this instant are refused (the "revoke" switch). */
  revokedBefore: number;
}

/**
 * The gateway's checks, in the gateway's order (API key, then token, then the org), followed by the
 * schema registry's own (sandbox, Accept) — each failure answered in the shape the platform uses.
 */
export async function authorizeApiCall(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: ApiContext,
): Promise<boolean> {
  const apiKey = header(req, "x-api-key");
  if (!apiKey) return fail(() => gatewayError(res, 403, "403000", "Api Key is required"));
  const auth = header(req, "authorization");
  const token = auth?.match(/^Bearer\s+(\S+)$/i)?.[1];
  const claims = token ? await ctx.issuer.verify(token) : undefined;
  if (!claims) return fail(() => gatewayError(res, 401, "401013", "Oauth token is not valid"));
  const created = Number(claims.created_at);
  if (created < ctx.revokedBefore || created + Number(claims.expires_in) <= ctx.now()) {
    return fail(() => gatewayError(res, 401, "401013", "Oauth token is not valid"));
  }
  if (apiKey !== claims.client_id) return fail(() => gatewayError(res, 403, "403003", "Api Key is invalid"));
  const org = header(req, "x-gw-ims-org-id");
  if (!org) {
    return fail(() =>
      serviceError(
        res,
        400,
        "XDM-1000-400",
        "Missing header",
        "The header x-gw-ims-org-id is required and was not found.",
      ),
    );
  }
  if (org !== ctx.credentials.get(claims.client_id)?.orgId) {
    return fail(() => gatewayError(res, 403, "403025", "Profile is not valid"));
  }
  const sandbox = header(req, "x-sandbox-name") ?? "prod";
  if (!ctx.sandboxes.has(sandbox)) {
    return fail(() =>
      serviceError(res, 403, "XDM-1008-403", "Sandbox not found", `The sandbox ${sandbox} does not exist.`),
    );
  }
  return true;
}

/** `GET /data/foundation/schemaregistry/global/classes`, ordered by title, paged with `start`/`limit`. */
export function listGlobalClasses(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  ctx: ApiContext,
): void {
  const accept = (header(req, "accept") ?? "").split(";")[0].trim().toLowerCase();
  if (accept !== ID_TYPE && accept !== FULL_TYPE) {
    serviceError(res, 406, "XDM-1006-406", "Not Acceptable", `Accept must be ${ID_TYPE} or ${FULL_TYPE}.`);
    return;
  }
  const limitText = url.searchParams.get("limit");
  const limit = limitText === null ? MAX_PAGE : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) {
    serviceError(res, 400, "XDM-1010-400", "Bad Request", `limit must be an integer from 1 to ${MAX_PAGE}.`);
    return;
  }
  const start = url.searchParams.get("start");
  const from = start === null ? 0 : ctx.catalog.findIndex((c) => c.title >= start);
  const first = from < 0 ? ctx.catalog.length : from;
  const page = ctx.catalog.slice(first, first + limit);
  const nextRecord = ctx.catalog[first + limit];
  const next = nextRecord ? nextRecord.title : null;
  const links: Record<string, unknown> = {};
  if (next !== null) {
    const q = new URLSearchParams({ start: next });
    if (limitText !== null) q.set("limit", String(limit));
    links.next = { href: `${GLOBAL_CLASSES_PATH}?${q}` };
  }
  sendJson(
    res,
    200,
    {
      results: accept === FULL_TYPE ? page.map(fullClassRecord) : page,
      _page: { orderby: "title", next, count: page.length },
      _links: links,
    },
    { "content-type": `${accept};charset=utf-8` },
  );
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  const s = Array.isArray(v) ? v[0] : v;
  return s === undefined || s === "" ? undefined : s;
}

function fail(send: () => void): false {
  send();
  return false;
}

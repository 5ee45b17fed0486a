/**
 * Reads the error answer of any Platform or identity-service call into one shape. The platform's
 * services do not agree on an error format; the shapes seen in its reference are:
 * - identity service (OAuth 2.0, RFC 6749 §5.2): `{ "error": "invalid_client", "error_description": "..." }`
 * - API gateway: `{ "error_code": "401013", "message": "Oauth token is not valid" }`
 * - services (RFC 7807 style): `{ "type", "title", "status", "detail", "report": { ... } }`
 * - nested: `{ "error": { "code": "...", "message": "..." } }`, and lists `{ "errors": [ { "code", "message" } ] }`
 * - anything else: plain text or HTML, or nothing at all.
 */
export interface ParsedErrorBody {
  /** The service's own error code, when the body names one. */
  serviceCode: string | undefined;
  /** A one-line human message, never empty. */
  message: string;
  /** Request or debug id from the headers or the body's report. */
  requestId: string | undefined;
}

const REQUEST_ID_HEADERS = ["x-request-id", "x-debug-id", "x-correlation-id"];
const MAX_TEXT = 300;

/**
 * @example
 * parseErrorBody(401, res.headers, '{"error_code":"401013","message":"Oauth token is not valid"}');
 * // { serviceCode: "401013", message: "Oauth token is not valid", requestId: <x-request-id> }
 */
export function parseErrorBody(status: number, headers: Headers, text: string): ParsedErrorBody {
  let requestId = REQUEST_ID_HEADERS.map((h) => headers.get(h)).find((v) => v) ?? undefined;
  const fallback = `HTTP ${status}`;
  let body: unknown;
  try {
    body = text.trim() === "" ? undefined : JSON.parse(text);
  } catch {
    return { serviceCode: undefined, message: plainText(text) ?? fallback, requestId };
  }
  if (!isRecord(body)) {
    return { serviceCode: undefined, message: plainText(text) ?? fallback, requestId };
  }
  const report = isRecord(body.report) ? body.report : undefined;
  requestId ??= str(body.requestId) ?? str(report?.requestId) ?? str(body.request_id);

  // Identity service: "error" is a string code.
  if (typeof body.error === "string") {
    return { serviceCode: body.error, message: str(body.error_description) ?? body.error, requestId };
  }
  // Nested error object.
  if (isRecord(body.error)) {
    const e = body.error;
    return { serviceCode: str(e.code), message: str(e.message) ?? str(e.detail) ?? fallback, requestId };
  }
  // Gateway shape.
  if (body.error_code !== undefined) {
    return { serviceCode: str(body.error_code), message: str(body.message) ?? fallback, requestId };
  }
  // Service problem-details shape; the error code is the last segment of `type`
  // (`https://ns.adobe.com/aep/errors/XDM-1010-400` -> `XDM-1010-400`).
  if (body.title !== undefined || body.type !== undefined || body.detail !== undefined) {
    const type = str(body.type);
    const code = str(body.errorCode) ?? str(body.code) ?? type?.split("/").pop();
    const title = str(body.title);
    const detail = str(body.detail);
    const message =
      title && detail && title !== detail ? `${title}: ${detail}` : (detail ?? title ?? fallback);
    return { serviceCode: code, message, requestId };
  }
  if (Array.isArray(body.errors) && body.errors.length > 0) {
    const first = isRecord(body.errors[0]) ? body.errors[0] : {};
    const more = body.errors.length > 1 ? ` (and ${body.errors.length - 1} more)` : "";
    const message = (str(first.message) ?? str(first.detail) ?? str(first.title) ?? fallback) + more;
    return { serviceCode: str(first.code) ?? str(first.errorCode), message, requestId };
  }
  if (body.message !== undefined || body.code !== undefined) {
    return { serviceCode: str(body.code), message: str(body.message) ?? fallback, requestId };
  }
  return { serviceCode: undefined, message: plainText(text) ?? fallback, requestId };
}

function plainText(text: string): string | undefined {
  // HTML error pages from proxies: keep the words, drop the markup.
  const flat = text
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, " ")
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  if (flat === "") return undefined;
  return flat.length > MAX_TEXT ? `${flat.slice(0, MAX_TEXT)}…` : flat;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  if (typeof v === "string" && v !== "") return v;
  if (typeof v === "number") return String(v);
  return undefined;
}

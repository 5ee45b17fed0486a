import type { ServerResponse } from "node:http";

/**
 * The error bodies the emulator answers with, one per shape the platform uses (see
 * ../error-body.ts): the identity service's OAuth shape, the gateway's `error_code` shape, and the
 * services' problem-details shape.
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json;charset=utf-8",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export function identityError(res: ServerResponse, status: number, error: string, description: string): void {
  sendJson(res, status, { error, error_description: description });
}

export function gatewayError(res: ServerResponse, status: number, errorCode: string, message: string): void {
  sendJson(res, status, { error_code: errorCode, message });
}

export function serviceError(
  res: ServerResponse,
  status: number,
  code: string,
  title: string,
  detail: string,
): void {
  sendJson(res, status, {
    type: `http://ns.adobe.com/aep/errors/${code}`,
    title,
    status,
    detail,
    report: { "detailed-message": detail },
  });
}

/**
 * Default bodies for injected failures, in the shape each status usually comes in: the identity
 * service's OAuth shape for token requests, the gateway's or a service's for API calls.
 */
export function defaultFaultBody(status: number, target: "token" | "api"): unknown {
  if (target === "token") {
    if (status === 429) return { error: "too_many_requests", error_description: "Too many requests" };
    if (status >= 500) return { error: "internal_error", error_description: "Internal error" };
    if (status === 401) return { error: "invalid_client", error_description: "invalid client_id parameter" };
    return { error: "invalid_request", error_description: "failure injected by the emulator" };
  }
  if (status === 401) return { error_code: "401013", message: "Oauth token is not valid" };
  if (status === 429) return { error_code: "429050", message: "Too many requests" };
  const titles: Record<number, string> = {
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
  };
  return {
    type: `http://ns.adobe.com/aep/errors/EMU-${status}`,
    title: titles[status] ?? `HTTP ${status}`,
    status,
    detail: "failure injected by the emulator",
  };
}

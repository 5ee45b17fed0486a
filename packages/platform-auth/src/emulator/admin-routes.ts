import type { IncomingMessage, ServerResponse } from "node:http";
import { PlatformAuthError } from "../errors.js";
import { sendJson } from "./emulator-errors.js";
import { readBody } from "./form-body.js";
import type { PlatformEmulator } from "./platform-emulator.js";

/**
 * The emulator's switches over HTTP, for tools in other processes and languages:
 * `GET /__emulator/stats`, `POST /__emulator/fail` (the `failNext` JSON), `POST /__emulator/revoke`,
 * `POST /__emulator/retire-secret` (`{ "position": 1 }`).
 */
export async function handleAdmin(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  emulator: PlatformEmulator,
): Promise<void> {
  const text = await readBody(req);
  if (req.method === "GET" && url.pathname === "/__emulator/stats")
    return sendJson(res, 200, emulator.stats());
  if (req.method === "POST" && url.pathname === "/__emulator/revoke") {
    emulator.revokeTokens();
    return sendJson(res, 200, { revoked: true });
  }
  if (req.method === "POST" && url.pathname === "/__emulator/retire-secret") {
    try {
      const { position, clientId } = JSON.parse(text ?? "") as { position: number; clientId?: string };
      emulator.retireSecret(position, clientId);
    } catch (err) {
      const message =
        err instanceof PlatformAuthError ? err.message : 'body must be JSON like {"position":1}';
      return sendJson(res, 400, { title: "Bad Request", detail: message });
    }
    return sendJson(res, 200, { retired: true });
  }
  if (req.method === "POST" && url.pathname === "/__emulator/fail") {
    try {
      emulator.failNext(JSON.parse(text ?? ""));
    } catch (err) {
      const message =
        err instanceof PlatformAuthError ? err.message : 'body must be JSON like {"status":429,"count":1}';
      return sendJson(res, 400, { title: "Bad Request", detail: message });
    }
    return sendJson(res, 200, { queued: true });
  }
  sendJson(res, 404, {
    title: "Not Found",
    detail:
      "admin: GET /__emulator/stats, POST /__emulator/fail, POST /__emulator/revoke, POST /__emulator/retire-secret",
  });
}

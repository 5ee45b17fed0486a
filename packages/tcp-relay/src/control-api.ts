import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { FaultTable } from "./fault-table.js";
import { RelayError } from "./relay-error.js";
import { faultFromToxic, toxicFromFault } from "./toxic-mapping.js";

/** The one proxy this relay is, as the API names it. */
export const CONTROL_PROXY_NAME = "tcp-relay";

/** What the API says of the relay itself. */
export interface ControlTarget {
  listen: string;
  upstream: string;
}

// A control request body is a small JSON object; more is a mistake or an attack.
const MAX_BODY = 64 * 1024;

/**
 * Toxiproxy's HTTP API (its README, "HTTP API") for this one proxy, on 127.0.0.1 only: `GET
 * /version`, `GET /proxies`, `GET /proxies/tcp-relay`, `GET|POST /proxies/tcp-relay/toxics`,
 * `GET|POST|DELETE /proxies/tcp-relay/toxics/<toxic>` and `POST /reset`, so that toxiproxy's
 * clients add and remove faults while the relay runs. Errors are toxiproxy's
 * `{"error": "...", "status": n}`. Creating, changing or deleting proxies is refused: the relay is
 * the one proxy, set up by its command line.
 *
 * @example
 * const control = await startControlApi(8474, table, { listen: "[::]:8080", upstream: "example.com:80" });
 * // curl -X POST 127.0.0.1:8474/proxies/tcp-relay/toxics -d '{"type":"latency","attributes":{"latency":200}}'
 * await control.close();
 */
export async function startControlApi(
  port: number,
  table: FaultTable,
  target: ControlTarget,
): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    void handle(req, res, table, target);
  });
  server.on("clientError", (_error, socket) => socket.destroy());
  await new Promise<void>((done, fail) => {
    const onError = (error: NodeJS.ErrnoException) =>
      fail(
        error.code === "EADDRINUSE"
          ? new RelayError("TCP_RELAY_PORT_IN_USE", `control port ${port} is already in use`, {
              cause: error,
            })
          : new RelayError(
              "TCP_RELAY_LISTEN_FAILED",
              `cannot listen on control port ${port} (${error.code ?? error.message})`,
              {
                cause: error,
              },
            ),
      );
    server.once("error", onError);
    server.listen({ port, host: "127.0.0.1" }, () => {
      server.off("error", onError);
      done();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      server.close();
      server.closeAllConnections();
      if (server.listening) await once(server, "close");
    },
  };
}

class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function handle(req: IncomingMessage, res: ServerResponse, table: FaultTable, target: ControlTarget) {
  try {
    const path = new URL(req.url ?? "/", "http://control").pathname.replace(/\/+$/, "") || "/";
    const method = req.method ?? "GET";
    const body = method === "POST" ? await readJson(req) : undefined;
    const answer = route(method, path.split("/").slice(1).map(decodeURIComponent), body, table, target);
    if (answer === null) {
      res.writeHead(204).end();
      return;
    }
    const text = typeof answer === "string" ? answer : JSON.stringify(answer);
    res
      .writeHead(200, { "content-type": typeof answer === "string" ? "text/plain" : "application/json" })
      .end(text);
  } catch (error) {
    const status = error instanceof ApiError ? error.status : error instanceof RelayError ? 400 : 500;
    const message = error instanceof Error ? error.message : String(error);
    res
      .writeHead(status, { "content-type": "application/json" })
      .end(JSON.stringify({ error: message, status }));
  }
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new ApiError(413, `the body is over ${MAX_BODY} bytes`);
    parts.push(chunk);
  }
  const text = Buffer.concat(parts).toString("utf8");
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, "the body is not JSON");
  }
}

function route(
  method: string,
  parts: string[],
  body: unknown,
  table: FaultTable,
  target: ControlTarget,
): unknown | null {
  const proxy = () => ({
    name: CONTROL_PROXY_NAME,
    listen: target.listen,
    upstream: target.upstream,
    enabled: true,
    toxics: table.entries.map((e) => toxicFromFault(e.fault)),
  });
  const [first, name, sub, toxic, ...rest] = parts;
  if (parts.length === 1 && first === "version" && method === "GET") return "tcp-relay (toxiproxy API)";
  if (parts.length === 1 && first === "reset" && method === "POST") {
    table.clear();
    return null;
  }
  if (first !== "proxies" || rest.length > 0) throw new ApiError(404, "not found");
  if (name === undefined) {
    if (method === "GET") return { [CONTROL_PROXY_NAME]: proxy() };
    if (method === "POST") {
      throw new ApiError(
        (body as { name?: unknown } | undefined)?.name === CONTROL_PROXY_NAME ? 409 : 400,
        `this relay is the one proxy "${CONTROL_PROXY_NAME}", set up by its command line; it creates no others`,
      );
    }
    throw new ApiError(405, `${method} is not allowed here`);
  }
  if (name !== CONTROL_PROXY_NAME)
    throw new ApiError(404, `proxy not found (this relay is "${CONTROL_PROXY_NAME}")`);
  if (sub === undefined) {
    if (method === "GET") return proxy();
    throw new ApiError(
      405,
      `the proxy "${CONTROL_PROXY_NAME}" is set up by the relay's command line and cannot be changed or deleted`,
    );
  }
  if (sub !== "toxics") throw new ApiError(404, "not found");
  if (toxic === undefined) {
    if (method === "GET") return table.entries.map((e) => toxicFromFault(e.fault));
    if (method === "POST") {
      const fault = faultFromToxic(body);
      if (table.get(fault.name) !== undefined)
        throw new ApiError(409, `toxic "${fault.name}" already exists`);
      return toxicFromFault(table.add(fault, true));
    }
    throw new ApiError(405, `${method} is not allowed here`);
  }
  const existing = table.get(toxic);
  if (existing === undefined) throw new ApiError(404, `toxic not found: "${toxic}"`);
  if (method === "GET") return toxicFromFault(existing);
  if (method === "POST") {
    const updated = faultFromToxic(body, existing);
    table.replace(updated);
    return toxicFromFault(updated);
  }
  if (method === "DELETE") {
    table.remove(toxic);
    return null;
  }
  throw new ApiError(405, `${method} is not allowed here`);
}

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type OperationSpec, type QueryBean, requestLimits, type SoapService } from "../service-types.js";
import { createSoapService } from "../soap-service.js";

/**
 * A small service for interop tests: one operation per shape that real clients must decode (every
 * parameter type, a one-row result, several rows with nulls and non-ASCII text, an empty result,
 * a typed fault, an internal error). Same namespaces as the ColdFusion services this replaces.
 */
export const probeOperations: readonly OperationSpec[] = [
  {
    name: "echoArguments",
    parameters: [
      { name: "number", type: "double" },
      { name: "text", type: "string" },
      { name: "anything", type: "anyType" },
    ],
    columns: [
      { name: "numberValue", type: "double" },
      { name: "textValue", type: "string" },
      { name: "anyValue", type: "string" },
    ],
  },
  {
    name: "getSamples",
    parameters: [],
    columns: [
      { name: "sampleId", type: "int" },
      { name: "sampleName", type: "string" },
      { name: "score", type: "double" },
      { name: "createdAt", type: "dateTime" },
      { name: "note", type: "string" },
    ],
  },
  {
    name: "getNothing",
    parameters: [{ name: "limit", type: "double" }],
    columns: [
      { name: "sampleId", type: "int" },
      { name: "sampleName", type: "string" },
    ],
  },
  {
    name: "failWith",
    parameters: [{ name: "reason", type: "string" }],
    columns: [{ name: "never", type: "int" }],
  },
  { name: "crash", parameters: [], columns: [{ name: "never", type: "int" }] },
];

/** Non-ASCII text every client must return unchanged: Latin, CJK, an astral emoji, markup. */
export const sampleNames = ["Grüße aus Köln", "東京の天気", "emoji 😀 & <tags>"] as const;

export const sampleRows: QueryBean["rows"] = [
  [1, sampleNames[0], 0.5, new Date(Date.UTC(2024, 1, 29, 12, 30, 45, 123)), "first"],
  [2, sampleNames[1], 2, new Date(Date.UTC(1999, 11, 31, 23, 59, 59, 0)), null],
  [3, sampleNames[2], -1.25e3, null, "third"],
];

class ProbeError extends Error {}

/** The probe's SOAP service; `internalErrors` collects what `crash` raised, for assertions. */
export function createProbeService(internalErrors: unknown[] = []): SoapService {
  return createSoapService({
    targetNamespace: "http://webservices",
    portTypeName: "InteropProbe",
    serviceName: "InteropProbeService",
    operations: probeOperations,
    handler: (operation, args) => {
      switch (operation) {
        case "echoArguments":
          return { rows: [[args.number ?? null, args.text ?? null, args.anything ?? null]] };
        case "getSamples":
          return { rows: sampleRows };
        case "getNothing":
          return { rows: [] };
        case "failWith":
          throw new ProbeError(`Failed on purpose: ${String(args.reason)}`);
        default:
          throw new Error("connect ECONNREFUSED /var/lib/secret.sock at db.internal:5432");
      }
    },
    describeError: (error) => (error instanceof ProbeError ? error.message : undefined),
    onInternalError: (error) => internalErrors.push(error),
  });
}

export interface RunningProbe {
  readonly server: Server;
  /** The SOAP endpoint, e.g. `http://127.0.0.1:40123/probe`; the WSDL is at `?wsdl`. */
  readonly url: string;
  close(): Promise<void>;
}

/** Serves the probe on 127.0.0.1 at a free port: GET `?wsdl` for the WSDL, POST for calls. */
export async function startProbeServer(service: SoapService = createProbeService()): Promise<RunningProbe> {
  const server = createServer((request, response) => {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/probe`;
    if (request.method === "GET" && /\?wsdl$/i.test(request.url ?? "")) {
      response.writeHead(200, { "content-type": "text/xml; charset=utf-8" }).end(service.wsdl(url));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= requestLimits.maxBodyBytes) chunks.push(chunk);
    });
    request.on("end", async () => {
      const answer =
        size > requestLimits.maxBodyBytes
          ? service.tooLarge()
          : await service.handle(Buffer.concat(chunks), request.headers["content-type"]);
      response.writeHead(answer.status, { "content-type": answer.contentType }).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/probe`;
  return {
    server,
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

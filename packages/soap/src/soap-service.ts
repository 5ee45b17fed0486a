import { type DecodedCall, decodeCall } from "./call-decoder.js";
import { readEnvelope } from "./envelope-reader.js";
import { xmlContentType } from "./envelope-writer.js";
import { compileUserFaultWriter, writeClientFault } from "./fault-writer.js";
import { checkServiceOptions } from "./options-check.js";
import { compileQueryBeanEncoder, type QueryBeanEncoder, RowMemo } from "./query-bean-encoder.js";
import { decodeRequestText } from "./request-text.js";
import {
  type OperationSpec,
  type QueryBean,
  requestLimits,
  type SoapResponse,
  type SoapService,
  type SoapServiceOptions,
} from "./service-types.js";
import { SoapError } from "./soap-error.js";
import { joinSurrogateReferences } from "./surrogate-references.js";
import { compileWsdl } from "./wsdl-writer.js";

/**
 * Answers of more rows than this are encoded this many rows per turn of the event loop (about
 * 90 KB of posts, a few tenths of a millisecond), so that other requests are served in between.
 */
export const rowsPerSlice = 100;

/** What a client is told when the real cause must stay on the server. */
export const internalErrorMessage =
  "The operation could not be completed because of an internal error; please try again later.";

function fault(body: string, kind: "client" | "server", operation?: string): SoapResponse {
  return { status: 500, contentType: xmlContentType, body, fault: kind, operation };
}

/**
 * Creates a SOAP 1.1 RPC/encoded service from an operation table. Everything that does not
 * depend on a request (the WSDL, each operation's response tags, the fault envelopes) is built
 * here, once; the table is checked too, and a mistake throws a `SoapError` (`SOAP_INVALID_TABLE`).
 *
 * `handle` never throws: a request the decoder refuses becomes a `soapenv:Client` fault, an
 * argument that does not fit its declared type or an error from the handler a
 * `Server.userException` fault (with `describeError`'s message, or a generic one).
 *
 * @example
 * const service = createSoapService({
 *   targetNamespace: "http://webservices",
 *   portTypeName: "FeedAggregator",
 *   serviceName: "FeedAggregatorService",
 *   operations: [{ name: "getLanguages", parameters: [], columns: [{ name: "languageId", type: "int" }] }],
 *   handler: async () => ({ rows: [[1]] }),
 *   describeError: (error) => (error instanceof MyError ? error.message : undefined),
 * });
 * const response = await service.handle(requestBody, request.headers["content-type"]);
 * reply.status(response.status).type(response.contentType).send(response.body);
 */
export function createSoapService<Context = undefined>(
  options: SoapServiceOptions<Context>,
): SoapService<Context> {
  const names = checkServiceOptions(options);
  const operations = new Map<string, OperationSpec>();
  const encoders = new Map<string, QueryBeanEncoder>();
  // One memo per kind of row: a kept row's bytes depend on its column count (the row's open tag)
  // and its kept cells' column types only.
  const memos = new Map<string, RowMemo>();
  for (const op of options.operations) {
    operations.set(op.name, op);
    let memo: RowMemo | undefined;
    if (op.rowMemo !== undefined) {
      const kind = `${op.rowMemo.maxRows}:${op.columns.length}:${op.columns
        .slice(0, op.rowMemo.cells)
        .map((c) => c.type)
        .join(",")}`;
      memo = memos.get(kind) ?? new RowMemo(op.rowMemo);
      memos.set(kind, memo);
    }
    encoders.set(
      op.name,
      compileQueryBeanEncoder(op.name, op.columns, names.targetNamespace, names.rpcNamespace, memo),
    );
  }
  const wsdl = compileWsdl(names, options.operations);
  const userFault = compileUserFaultWriter(names.rpcNamespace);
  const tooLargeResponse: SoapResponse = {
    status: 413,
    contentType: xmlContentType,
    body: writeClientFault(
      `The request body is larger than ${requestLimits.maxBodyBytes} bytes (1 MiB), the most this service accepts.`,
    ),
    fault: "client",
  };

  const internal = (error: unknown, operation: string): SoapResponse => {
    try {
      options.onInternalError?.(error, operation);
    } catch {
      // A failing logger must not turn a fault into a crash.
    }
    return fault(
      userFault(internalErrorMessage),
      "server",
      operation === "(decoding)" ? undefined : operation,
    );
  };

  const describe = (error: unknown): string | undefined => {
    try {
      return options.describeError(error);
    } catch {
      return undefined;
    }
  };

  return {
    wsdl,
    tooLarge: () => tooLargeResponse,
    clientFault: (message, status = 500) => ({
      status,
      contentType: xmlContentType,
      body: writeClientFault(message),
      fault: "client",
    }),
    async handle(body: Buffer, contentType?: string, context?: Context): Promise<SoapResponse> {
      if (body.length > requestLimits.maxBodyBytes) return tooLargeResponse;
      let call: DecodedCall;
      try {
        call = decodeCall(
          readEnvelope(joinSurrogateReferences(decodeRequestText(body, contentType))),
          operations,
        );
      } catch (error) {
        if (error instanceof SoapError) {
          return error.isClientFault
            ? fault(writeClientFault(error.message), "client")
            : fault(userFault(error.message), "server");
        }
        return internal(error, "(decoding)");
      }
      const { operation, args } = call;
      let result: QueryBean;
      try {
        // A transport that passes no context has a handler typed for `undefined`.
        result = await options.handler(operation.name, args, context as Context);
      } catch (error) {
        const message = describe(error);
        return message === undefined
          ? internal(error, operation.name)
          : fault(userFault(message), "server", operation.name);
      }
      try {
        const encode = encoders.get(operation.name)!;
        return {
          status: 200,
          contentType: xmlContentType,
          body:
            result.rows.length > rowsPerSlice ? await encode.inSlices(result, rowsPerSlice) : encode(result),
          operation: operation.name,
        };
      } catch (error) {
        return internal(error, operation.name);
      }
    },
  };
}

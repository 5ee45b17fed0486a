/**
 * The SOAP face of the operation table: the SOAP package builds the WSDL, decoder and encoders from
 * the table once at start-up; each call runs with the base URL of its request (passed to the
 * handler as its context), so that tracking links point where the client reached the service, and
 * the operations' records are laid out as QueryBean rows in column order.
 */
import { type ColumnSpec, createSoapService, type SoapResponse, type SoapService } from "@feed-toolkit/soap";
import { recordRow } from "../operations/column-sets.js";
import {
  type CallContext,
  describeOperationError,
  type OperationRunner,
} from "../operations/operation-runner.js";

export interface EndpointAnswer {
  readonly response: SoapResponse;
  readonly pure: boolean;
}

export interface FeedSoapEndpoint {
  /** The WSDL with `soap:address` set to the given absolute URL (cached per address). */
  wsdl(soapAddress: string): string;
  /**
   * Handles one request body; tracking links in the answer start with `baseUrl`. `pure` tells
   * whether the call was to a pure operation (its answer may be cached). Never throws.
   */
  handle(body: Buffer, contentType: string | undefined, baseUrl: string): Promise<EndpointAnswer>;
  tooLarge(): SoapResponse;
  /** A soapenv:Client fault for a refusal the HTTP layer makes itself. */
  clientFault(message: string): SoapResponse;
}

/** Names fixed by spec §2; the binding name is the SOAP package's choice. */
export const feedSoapNames = {
  targetNamespace: "http://webservices",
  portTypeName: "FeedAggregator",
  serviceName: "FeedAggregatorService",
} as const;

const wsdlCacheSize = 32;

export function createFeedSoapEndpoint(runner: OperationRunner): FeedSoapEndpoint {
  const columnsOf = new Map<string, readonly ColumnSpec[]>(runner.specs.map((op) => [op.name, op.columns]));
  const soap: SoapService<CallContext> = createSoapService<CallContext>({
    ...feedSoapNames,
    operations: runner.specs,
    handler: async (operation, args, context) => {
      const records = await runner.call(operation, args, context);
      const columns = columnsOf.get(operation) ?? [];
      return { rows: records.map((record) => recordRow(columns, record)) };
    },
    describeError: describeOperationError,
  });
  // The WSDL depends only on the address; a small cache keeps repeated ?wsdl fetches cheap while a
  // client that varies its Host header cannot grow it without bound.
  const wsdlByAddress = new Map<string, string>();
  return {
    wsdl(soapAddress) {
      let doc = wsdlByAddress.get(soapAddress);
      if (doc === undefined) {
        doc = soap.wsdl(soapAddress);
        if (wsdlByAddress.size >= wsdlCacheSize) wsdlByAddress.clear();
        wsdlByAddress.set(soapAddress, doc);
      }
      return doc;
    },
    async handle(body, contentType, baseUrl) {
      const response = await soap.handle(body, contentType, { baseUrl });
      return { response, pure: response.operation !== undefined && runner.isPure(response.operation) };
    },
    tooLarge: () => soap.tooLarge(),
    clientFault: (message) => soap.clientFault(message),
  };
}

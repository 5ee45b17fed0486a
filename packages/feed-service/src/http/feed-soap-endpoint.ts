/**
 * The SOAP face of the operation table: the SOAP package builds the WSDL, decoder and encoders from
 * the table once at start-up; each call runs with the base URL of its request, so that tracking
 * links point where the client reached the service.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { createSoapService, type SoapResponse, type SoapService } from "@feed-toolkit/soap";
import { describeOperationError, type OperationRunner } from "../operations/operation-runner.js";

export interface EndpointAnswer {
  readonly response: SoapResponse;
  readonly pure: boolean;
}

/** What one call carries from the HTTP request to the operation and back. */
interface CallContext {
  readonly baseUrl: string;
  pure: boolean;
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
}

/** Names fixed by spec §2; the binding name is the SOAP package's choice. */
export const feedSoapNames = {
  targetNamespace: "http://webservices",
  portTypeName: "FeedAggregator",
  serviceName: "FeedAggregatorService",
} as const;

const wsdlCacheSize = 32;

export function createFeedSoapEndpoint(runner: OperationRunner): FeedSoapEndpoint {
  const calls = new AsyncLocalStorage<CallContext>();
  const soap: SoapService = createSoapService({
    ...feedSoapNames,
    operations: runner.specs,
    handler: (operation, args) => {
      const call = calls.getStore();
      if (call) call.pure = runner.isPure(operation);
      return runner.call(operation, args, call?.baseUrl ?? "");
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
      const call: CallContext = { baseUrl, pure: false };
      const response = await calls.run(call, () => soap.handle(body, contentType));
      return { response, pure: call.pure };
    },
    tooLarge: () => soap.tooLarge(),
  };
}

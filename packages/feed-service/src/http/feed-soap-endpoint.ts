/**
 * The SOAP face of the operation table: the SOAP package builds the WSDL, decoder and encoders from
 * the table once at start-up; each call runs with the base URL of its request, so that tracking
 * links point where the client reached the service.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { createSoapService, type SoapResponse, type SoapService } from "@feed-toolkit/soap";
import { describeOperationError, type OperationRunner } from "../operations/operation-runner.js";

export interface FeedSoapEndpoint {
  /** The WSDL with `soap:address` set to the given absolute URL (cached per address). */
  wsdl(soapAddress: string): string;
  /** Handles one request body; tracking links in the answer start with `baseUrl`. Never throws. */
  handle(body: Buffer, contentType: string | undefined, baseUrl: string): Promise<SoapResponse>;
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
  const requestBase = new AsyncLocalStorage<string>();
  const soap: SoapService = createSoapService({
    ...feedSoapNames,
    operations: runner.specs,
    handler: (operation, args) => runner.call(operation, args, requestBase.getStore() ?? ""),
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
    handle: (body, contentType, baseUrl) => requestBase.run(baseUrl, () => soap.handle(body, contentType)),
    tooLarge: () => soap.tooLarge(),
  };
}

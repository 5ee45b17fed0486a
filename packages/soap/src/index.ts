/**
 * SOAP 1.1 RPC/encoded toolkit: an operation table in, a WSDL, a request decoder, Axis-shaped
 * response encoders and faults out. `createSoapService` is the whole surface most services need;
 * the lower-level pieces are exported for tests, benchmarks and other transports.
 */

export { type DecodedCall, decodeCall } from "./call-decoder.js";
export { type BodyElement, type EnvelopeLimits, readEnvelope } from "./envelope-reader.js";
export { xmlContentType } from "./envelope-writer.js";
export { compileUserFaultWriter, writeClientFault } from "./fault-writer.js";
export * from "./namespaces.js";
export { compileQueryBeanEncoder, type QueryBeanEncoder, RowMemo } from "./query-bean-encoder.js";
export { decodeRequestText } from "./request-text.js";
export * from "./service-types.js";
export { type ErrorCodeInfo, SoapError, type SoapErrorCode, soapErrorCodes } from "./soap-error.js";
export { createSoapService, internalErrorMessage, rowsPerSlice } from "./soap-service.js";
export { compileWsdl, type WsdlNames } from "./wsdl-writer.js";
export { escapeXmlAttribute, escapeXmlText, stripForbiddenXmlChars } from "./xml-text.js";

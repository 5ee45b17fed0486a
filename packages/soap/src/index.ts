/** SOAP 1.1 RPC/encoded toolkit. The public surface grows with the codec modules. */

export * from "./service-types.js";
export { SoapError, type SoapErrorCode } from "./soap-error.js";

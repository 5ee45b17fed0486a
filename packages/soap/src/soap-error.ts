/** Stable codes for every failure this package reports; adapters map them to their wire form. */
export type SoapErrorCode =
  | "SOAP_MALFORMED_XML"
  | "SOAP_NOT_ENVELOPE"
  | "SOAP_UNKNOWN_OPERATION"
  | "SOAP_TOO_LARGE";

/** The one error type of the SOAP package: a code for machines, a message for people. */
export class SoapError extends Error {
  readonly code: SoapErrorCode;
  constructor(code: SoapErrorCode, message: string) {
    super(message);
    this.name = "SoapError";
    this.code = code;
  }
}

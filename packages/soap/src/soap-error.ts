/**
 * Stable codes for every failure this package reports; adapters map them to their wire form.
 * Request faults (`SOAP_MALFORMED_XML` … `SOAP_TOO_LARGE`) become
 * `soapenv:Client` faults; `SOAP_BAD_ARGUMENT` becomes a `Server.userException` like every other
 * error an operation raises; the last two report programming errors in the service itself.
 */
export const soapErrorCodes = [
  "SOAP_MALFORMED_XML",
  "SOAP_DOCTYPE_REFUSED",
  "SOAP_LIMIT_EXCEEDED",
  "SOAP_UNSUPPORTED_CHARSET",
  "SOAP_NOT_ENVELOPE",
  "SOAP_UNKNOWN_OPERATION",
  "SOAP_BAD_REFERENCE",
  "SOAP_TOO_LARGE",
  "SOAP_BAD_ARGUMENT",
  "SOAP_INVALID_TABLE",
  "SOAP_INVALID_CELL",
] as const;

export type SoapErrorCode = (typeof soapErrorCodes)[number];

/** Codes that mean "the request was at fault" (faultcode `soapenv:Client`). */
const clientCodes: ReadonlySet<SoapErrorCode> = new Set<SoapErrorCode>([
  "SOAP_MALFORMED_XML",
  "SOAP_DOCTYPE_REFUSED",
  "SOAP_LIMIT_EXCEEDED",
  "SOAP_UNSUPPORTED_CHARSET",
  "SOAP_NOT_ENVELOPE",
  "SOAP_UNKNOWN_OPERATION",
  "SOAP_BAD_REFERENCE",
  "SOAP_TOO_LARGE",
]);

/**
 * The one error type of the SOAP package: a code for machines, a message for people.
 *
 * @example
 * throw new SoapError("SOAP_BAD_ARGUMENT", 'The limit argument must be a number; got "ten".');
 */
export class SoapError extends Error {
  readonly code: SoapErrorCode;
  constructor(code: SoapErrorCode, message: string) {
    super(message);
    this.name = "SoapError";
    this.code = code;
  }

  /** True when the request itself was at fault (a `soapenv:Client` fault on the wire). */
  get isClientFault(): boolean {
    return clientCodes.has(this.code);
  }
}

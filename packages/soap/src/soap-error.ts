/** What the registry says of each code (the same shape in every package of the toolkit). */
export interface ErrorCodeInfo {
  /** What the code means, for people (the README's table repeats it; a test checks). */
  readonly description: string;
  /** The SOAP fault it becomes: `client` (soapenv:Client), `server` (Server.userException), or none. */
  readonly soapFault?: "client" | "server";
  /** The HTTP status when it is not the fault's usual one (500). */
  readonly httpStatus?: number;
}

/**
 * Stable codes for every failure this package reports, with their wire form: request faults
 * become `soapenv:Client` faults; `SOAP_BAD_ARGUMENT` becomes a `Server.userException` like every
 * other error an operation raises; the last two report programming errors in the service itself.
 */
export const soapErrorCodes = {
  SOAP_MALFORMED_XML: {
    description: "not well-formed XML, or bytes invalid in the named charset",
    soapFault: "client",
  },
  SOAP_DOCTYPE_REFUSED: { description: "the request has a DOCTYPE", soapFault: "client" },
  SOAP_LIMIT_EXCEEDED: {
    description: "deeper than 32 levels or more than 10,000 elements",
    soapFault: "client",
  },
  SOAP_UNSUPPORTED_CHARSET: { description: "the named charset is unknown", soapFault: "client" },
  SOAP_NOT_ENVELOPE: {
    description: "not a SOAP 1.1 Envelope with a Body and a call",
    soapFault: "client",
  },
  SOAP_UNKNOWN_OPERATION: { description: "the call names no operation of the table", soapFault: "client" },
  SOAP_BAD_REFERENCE: {
    description: "an `href` names no element, or references loop",
    soapFault: "client",
  },
  SOAP_TOO_LARGE: { description: "the body is over 1 MiB", soapFault: "client", httpStatus: 413 },
  SOAP_BAD_ARGUMENT: { description: "an argument does not fit its declared type", soapFault: "server" },
  SOAP_INVALID_TABLE: {
    description: "the operation table or options are wrong (thrown at construction)",
  },
  SOAP_INVALID_CELL: {
    description: "a result cell does not fit its column",
    soapFault: "server",
  },
} as const satisfies Record<string, ErrorCodeInfo>;

export type SoapErrorCode = keyof typeof soapErrorCodes;

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
    return (soapErrorCodes[this.code] as ErrorCodeInfo).soapFault === "client";
  }
}

/**
 * The contract between the SOAP package and the services built on it. A service describes its
 * operations once (an operation table); the package derives the WSDL, the request decoder and the
 * response encoders from that table at start-up, and each call only concatenates ready strings.
 */

/** XSD types a parameter may be declared with (the WSDL declares them; requests are coerced by them). */
export type ParameterType = "double" | "string" | "anyType";

/** One parameter of an operation, in declaration order (that order is the WSDL's parameterOrder). */
export interface ParameterSpec {
  readonly name: string;
  readonly type: ParameterType;
}

/** The type of a QueryBean column: it decides every cell's xsi:type (one column, one type). */
export type ColumnType = "int" | "double" | "string" | "dateTime";

export interface ColumnSpec {
  readonly name: string;
  readonly type: ColumnType;
}

/**
 * A cell value. `null` is written as a nil cell in its place. `int`/`double` columns take numbers,
 * `string` columns strings, `dateTime` columns a Date or epoch milliseconds (written in UTC as
 * yyyy-MM-ddTHH:mm:ss.SSSZ).
 */
export type CellValue = string | number | Date | null;

/** ColdFusion's query type as returned by every operation: fixed columns, then rows of cells. */
export interface QueryBean {
  readonly rows: ReadonlyArray<ReadonlyArray<CellValue>>;
}

/** One operation of the table: its name, ordered parameters and the fixed column set it returns. */
export interface OperationSpec {
  readonly name: string;
  readonly parameters: readonly ParameterSpec[];
  readonly columns: readonly ColumnSpec[];
  /** Keep the encoded leading cells of this operation's rows between calls (see `RowMemoSpec`). */
  readonly rowMemo?: RowMemoSpec;
}

/**
 * For answers that repeat the same entries call after call (a catalog's list of every feed, say):
 * the bytes of each row's leading `cells` cells are kept, keyed by its first cell (the entry's
 * id), and written again as long as those cells are equal to the kept ones, compared cell by
 * cell, so an answer's bytes are always what its cells encode to. Operations whose leading
 * columns have the same types share one memo.
 */
export interface RowMemoSpec {
  /** How many leading cells are kept; the first one is the key. */
  readonly cells: number;
  /** At most this many rows are kept: a new key beyond it empties the memo first. */
  readonly maxRows: number;
}

/**
 * A decoded argument, coerced by its declared type:
 * - `double`: a finite number (text that is not a number is refused before the operation runs);
 * - `string`: the text (`xsi:nil` and empty elements give "");
 * - `anyType`: `null` when nil, empty or absent-valued; otherwise the element's text (the service
 *   decides how to read it, e.g. as a number or an instant);
 * - `undefined` when the parameter was not sent at all.
 */
export type ArgumentValue = number | string | null | undefined;

export type Arguments = Readonly<Record<string, ArgumentValue>>;

/**
 * What the service's handler answers for one call. Throwing makes a Server.userException fault.
 * `context` is whatever the transport passed to `handle` for this call (the base URL the request
 * reached the service at, say): an argument rather than ambient state, so that nothing has to
 * follow the call through its awaits.
 */
export type OperationHandler<Context = undefined> = (
  operation: string,
  args: Arguments,
  context: Context,
) => QueryBean | Promise<QueryBean>;

export interface SoapServiceOptions<Context = undefined> {
  /** Target namespace of the WSDL and of the response elements, e.g. `http://webservices`. */
  readonly targetNamespace: string;
  /** Port type name, e.g. `FeedAggregator`. */
  readonly portTypeName: string;
  /** Service name, e.g. `FeedAggregatorService`. */
  readonly serviceName: string;
  readonly operations: readonly OperationSpec[];
  readonly handler: OperationHandler<Context>;
  /**
   * The person-readable message for an error thrown by the handler, or undefined when the error
   * is not meant for the client (then a generic message is sent: never a stack trace, SQL or path).
   */
  readonly describeError: (error: unknown) => string | undefined;
  /**
   * Called with every error the client only sees as the generic message (those `describeError`
   * does not describe, and results the encoder cannot write), so that the service can log them.
   */
  readonly onInternalError?: (error: unknown, operation: string) => void;
  /** Namespace of QueryBean and ComponentInvocationException; default `http://rpc.xml.coldfusion`. */
  readonly rpcNamespace?: string;
  /** WSDL binding name; default `<portTypeName>.cfcSoapBinding`, as ColdFusion names it. */
  readonly bindingName?: string;
  /** WSDL port name; default `<portTypeName>.cfc` (Axis stubs call it `get<PortTypeName>Cfc()`). */
  readonly portName?: string;
}

/** A response ready for the HTTP layer. */
export interface SoapResponse {
  readonly status: number;
  readonly contentType: string;
  /**
   * The envelope: text, or its UTF-8 bytes when the answer was long enough to be encoded in slices
   * (more than `rowsPerSlice` rows).
   */
  readonly body: string | Buffer;
  /**
   * The operation the request called, once the decoder knew it (absent for requests that are not
   * a call at all): the transport's key for metrics and for deciding whether an answer may be kept.
   */
  readonly operation?: string;
  /** Which kind of fault the body holds, if any (`client`: soapenv:Client; `server`: the rest). */
  readonly fault?: "client" | "server";
}

export interface SoapService<Context = undefined> {
  /** The WSDL document with `soap:address` set to the given absolute URL. */
  wsdl(soapAddress: string): string;
  /**
   * Decodes one request body, calls the handler with `context`, and encodes the response or
   * fault. Never throws.
   */
  handle(body: Buffer, contentType?: string, context?: Context): Promise<SoapResponse>;
  /** The Client fault response for a body over the size limit (HTTP 413). */
  tooLarge(): SoapResponse;
  /**
   * A `soapenv:Client` fault with the given person-readable message, for refusals the HTTP layer
   * makes itself (a body that did not arrive in time, say). Status 500 unless given.
   */
  clientFault(message: string, status?: number): SoapResponse;
}

/** Request limits of the spec (§3): the HTTP layer enforces size and time, the decoder the rest. */
export const requestLimits = {
  maxBodyBytes: 1024 * 1024,
  maxDepth: 32,
  maxElements: 10_000,
  bodyTimeoutMs: 30_000,
} as const;

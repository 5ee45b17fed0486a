import { isUtf8 } from "node:buffer";
import { TextDecoder } from "node:util";
import { SoapError } from "./soap-error.js";

/**
 * Turns request bytes into text. The charset comes from, in order: a byte order mark, the
 * Content-Type `charset` parameter (RFC 7303 §3.2: it overrides the XML declaration), the XML
 * declaration's `encoding`, and otherwise UTF-8 (XML 1.0 §4.3.3). Bytes that are not valid in
 * that charset are refused rather than replaced, so a wrong charset never reaches an operation
 * as silently mangled text.
 */

const charsetParameter = /;\s*charset\s*=\s*"?([^";\s]+)"?/i;
// The declaration is ASCII-compatible in every charset that has one without a BOM.
const declaredEncoding = /^<\?xml[^>]*?\sencoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/;
const decoders = new Map<string, TextDecoder>();

function decoderFor(label: string): TextDecoder {
  const key = label.toLowerCase();
  let decoder = decoders.get(key);
  if (decoder === undefined) {
    try {
      decoder = new TextDecoder(key, { fatal: true });
    } catch {
      throw new SoapError(
        "SOAP_UNSUPPORTED_CHARSET",
        `The request names the character encoding "${label.slice(0, 40)}", which this service cannot read; send UTF-8.`,
      );
    }
    // Only well-known labels are cached, so that a client cannot grow the map without bound.
    if (decoders.size < 32) decoders.set(key, decoder);
  }
  return decoder;
}

function charsetOf(body: Buffer, contentType: string | undefined): string {
  if (body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return "utf-8";
  if (body.length >= 2 && body[0] === 0xff && body[1] === 0xfe) return "utf-16le";
  if (body.length >= 2 && body[0] === 0xfe && body[1] === 0xff) return "utf-16be";
  const fromHeader = contentType === undefined ? null : charsetParameter.exec(contentType);
  if (fromHeader) return fromHeader[1]!;
  const fromDeclaration = declaredEncoding.exec(body.toString("latin1", 0, Math.min(body.length, 200)));
  if (fromDeclaration) return fromDeclaration[1]!;
  return "utf-8";
}

/**
 * Decodes a request body to text by the charset its BOM, Content-Type or XML declaration names.
 *
 * @example
 * decodeRequestText(Buffer.from("<a>é</a>", "latin1"), "text/xml; charset=ISO-8859-1"); // "<a>é</a>"
 */
export function decodeRequestText(body: Buffer, contentType?: string): string {
  const charset = charsetOf(body, contentType);
  if (/^utf-?8$/i.test(charset)) {
    // The common case: Buffer's own decoder is faster than TextDecoder, and isUtf8 keeps it strict.
    if (!isUtf8(body)) {
      throw new SoapError("SOAP_MALFORMED_XML", "The request body is not valid UTF-8 text.");
    }
    const text = body.toString("utf8");
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }
  try {
    return decoderFor(charset).decode(body);
  } catch (error) {
    if (error instanceof SoapError) throw error;
    throw new SoapError(
      "SOAP_MALFORMED_XML",
      `The request body is not valid ${charset.slice(0, 40)} text (the charset that the request names).`,
    );
  }
}

/**
 * Byte decoding of a fetched feed document, before any parser sees it. The order follows
 * RFC 7303 §3 and what feed readers learnt the hard way (feedparser's encoding tests): a byte
 * order mark wins; then the charset of the HTTP Content-Type; then the XML declaration's
 * `encoding`; then UTF-8 if the bytes are valid UTF-8, else windows-1252 (the usual mislabel).
 */
import iconv from "iconv-lite";

export interface DecodedText {
  text: string;
  /** The encoding actually used, lower case (`utf-8`, `windows-1252`, `shift_jis`, ...). */
  encoding: string;
  /** Where the encoding came from. */
  source: "bom" | "http" | "xml-declaration" | "sniffed" | "default";
}

const utf8Decoder = new TextDecoder("utf-8", { fatal: true });

/** Encoding names that documents use but iconv-lite spells differently, or that lie. */
const aliases: Record<string, string> = {
  // ISO-8859-1 and US-ASCII documents are, in practice, windows-1252 (the WHATWG rule).
  "iso-8859-1": "windows-1252",
  latin1: "windows-1252",
  "us-ascii": "windows-1252",
  ascii: "windows-1252",
  "x-sjis": "shift_jis",
  sjis: "shift_jis",
  ms932: "shift_jis",
  "x-euc-jp": "euc-jp",
  utf8: "utf-8",
};

/** The charset parameter of a Content-Type value, or null. */
export function charsetOf(contentType: string | null | undefined): string | null {
  if (!contentType) return null;
  const match = /;\s*charset\s*=\s*("?)([^";\s]+)\1/i.exec(contentType);
  return match ? match[2]!.toLowerCase() : null;
}

function bomEncoding(bytes: Uint8Array): { encoding: string; length: number } | null {
  const [a, b, c, d] = bytes;
  if (a === 0xef && b === 0xbb && c === 0xbf) return { encoding: "utf-8", length: 3 };
  if (a === 0x00 && b === 0x00 && c === 0xfe && d === 0xff) return { encoding: "utf-32be", length: 4 };
  if (a === 0xff && b === 0xfe && c === 0x00 && d === 0x00) return { encoding: "utf-32le", length: 4 };
  if (a === 0xfe && b === 0xff) return { encoding: "utf-16be", length: 2 };
  if (a === 0xff && b === 0xfe) return { encoding: "utf-16le", length: 2 };
  return null;
}

/** UTF-16/32 without a BOM, recognised by where the zero bytes of `<?` fall (XML 1.0 appendix F). */
function sniffWideEncoding(bytes: Uint8Array): string | null {
  if (bytes.length < 4) return null;
  const [a, b, c, d] = bytes;
  if (a === 0 && b === 0 && c === 0 && d === 0x3c) return "utf-32be";
  if (a === 0x3c && b === 0 && c === 0 && d === 0) return "utf-32le";
  if (a === 0 && b === 0x3c && c === 0 && d === 0x3f) return "utf-16be";
  if (a === 0x3c && b === 0 && c === 0x3f && d === 0) return "utf-16le";
  return null;
}

function declaredEncoding(bytes: Uint8Array): string | null {
  // The declaration is ASCII-compatible in every encoding we read without a BOM.
  const head = Buffer.from(bytes.subarray(0, 512)).toString("latin1");
  const match = /^\s*<\?xml[^>]*?\bencoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/.exec(head);
  return match ? match[1]!.toLowerCase() : null;
}

function usable(name: string | null): string | null {
  if (!name) return null;
  const canonical = aliases[name] ?? name;
  return iconv.encodingExists(canonical) ? canonical : null;
}

function decodeWith(bytes: Uint8Array, encoding: string): string {
  if (encoding === "utf-8") return Buffer.from(bytes).toString("utf8");
  return iconv.decode(Buffer.from(bytes), encoding);
}

/**
 * Decodes a feed document's bytes to text.
 *
 * @example
 * decodeBytes(Buffer.from([0x63, 0x61, 0x66, 0xe9]), "text/xml; charset=windows-1252").text; // "café"
 */
export function decodeBytes(bytes: Uint8Array, contentType?: string | null): DecodedText {
  const bom = bomEncoding(bytes);
  if (bom) {
    return {
      text: decodeWith(bytes.subarray(bom.length), bom.encoding),
      encoding: bom.encoding,
      source: "bom",
    };
  }
  const wide = sniffWideEncoding(bytes);
  if (wide) return { text: decodeWith(bytes, wide), encoding: wide, source: "sniffed" };
  const http = usable(charsetOf(contentType));
  // A charset that names a wide encoding on bytes that are not wide is a lie; fall through.
  if (http && !/^utf-(16|32)/.test(http)) {
    return { text: decodeWith(bytes, http), encoding: http, source: "http" };
  }
  const declared = usable(declaredEncoding(bytes));
  if (declared && !/^utf-(16|32)/.test(declared)) {
    if (declared !== "utf-8" || isUtf8(bytes)) {
      return { text: decodeWith(bytes, declared), encoding: declared, source: "xml-declaration" };
    }
  }
  if (isUtf8(bytes)) return { text: decodeWith(bytes, "utf-8"), encoding: "utf-8", source: "default" };
  return { text: decodeWith(bytes, "windows-1252"), encoding: "windows-1252", source: "sniffed" };
}

function isUtf8(bytes: Uint8Array): boolean {
  try {
    utf8Decoder.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

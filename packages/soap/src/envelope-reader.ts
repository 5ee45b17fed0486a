import { SaxesParser, type SaxesTag } from "saxes";
import { openScope, resolveName, rootScope, type Scope } from "./namespace-scope.js";
import { SOAP_ENCODING_NS, SOAP_ENVELOPE_NS, SOAP12_ENVELOPE_NS, XSD_NS, XSI_NS } from "./namespaces.js";
import { requestLimits } from "./service-types.js";
import { SoapError } from "./soap-error.js";

/**
 * One element of a request Body, reduced to what section-5 decoding needs. Attributes other than
 * the few below are not kept: the decoder coerces by declared type, never by `xsi:type`.
 */
export interface BodyElement {
  readonly uri: string;
  readonly local: string;
  /** Concatenated character data directly inside the element (text and CDATA). */
  text: string;
  readonly children: BodyElement[];
  /** `xsi:nil="true"` (or `"1"`). */
  readonly nil: boolean;
  /** `href="#id"` without the `#`, when the element refers to a multiRef. */
  readonly href: string | undefined;
  /** `id="…"`, set on multiRef elements. */
  readonly id: string | undefined;
  /** `soapenc:root="0"`: a serialization root that is not the call (SOAP 1.1 §5.6). */
  readonly notRoot: boolean;
  /** `xsi:type` is `xsd:base64Binary` or `soapenc:base64`: the text is base64 of the value's bytes. */
  readonly base64: boolean;
}

export interface EnvelopeLimits {
  readonly maxDepth: number;
  readonly maxElements: number;
}

const envelopeProblem =
  "The request is not a SOAP 1.1 envelope: expected an Envelope element in the namespace " +
  `${SOAP_ENVELOPE_NS} with a Body element`;

function isTrue(value: string): boolean {
  const v = value.trim();
  return v === "true" || v === "1";
}

// SOAP::Lite's raw call API types any text with a character above U+007F as base64Binary (its
// autotyping takes such text for bytes). Only these two types change how text is read, so other
// xsi:type values are left unresolved: clients send them with prefixes they never declare.
const base64TypeName = /(?:^|:)base64(?:Binary)?\s*$/;

function isBase64Type(scope: Scope, value: string): boolean {
  try {
    const { uri, local } = resolveName(scope, value.trim(), false);
    return (uri === XSD_NS && local === "base64Binary") || (uri === SOAP_ENCODING_NS && local === "base64");
  } catch {
    return false;
  }
}

/**
 * Resolves an element and its attributes in its scope. Every prefixed attribute is resolved, even
 * on elements that are not kept, so that an unbound prefix anywhere is refused.
 */
function toBodyElement(tag: SaxesTag, scope: Scope): BodyElement {
  let nil = false;
  let href: string | undefined;
  let id: string | undefined;
  let notRoot = false;
  let base64 = false;
  const attributes = tag.attributes as Record<string, string>;
  for (const name in attributes) {
    const value = attributes[name]!;
    if (name.indexOf(":") < 0) {
      if (name === "href") href = value.startsWith("#") ? value.slice(1) : value;
      else if (name === "id") id = value;
      continue;
    }
    const a = resolveName(scope, name, true);
    if (a.uri === XSI_NS) {
      if (a.local === "nil") nil = isTrue(value);
      else if (a.local === "type" && base64TypeName.test(value)) base64 = isBase64Type(scope, value);
    } else if (a.uri === SOAP_ENCODING_NS && a.local === "root") {
      notRoot = !isTrue(value);
    }
  }
  const { uri, local } = resolveName(scope, tag.name, false);
  return { uri, local, text: "", children: [], nil, href, id, notRoot, base64 };
}

/**
 * Reads a SOAP 1.1 envelope with a strict XML parser (saxes; namespaces resolved by
 * namespace-scope.ts) and returns the Body's child elements. Prefixes are irrelevant: everything
 * is matched by namespace URI. The Header, when present, is parsed for well-formedness and limits
 * but otherwise ignored.
 *
 * Refuses, as a `SoapError` for a Client fault: text that is not well-formed XML, any DOCTYPE
 * (before a single entity could be expanded: the parser reports the declaration as soon as it
 * ends and we stop there), nesting deeper than `maxDepth` or more than `maxElements` elements,
 * and documents that are not a SOAP 1.1 envelope.
 *
 * @example
 * const body = readEnvelope('<e:Envelope xmlns:e="http://schemas.xmlsoap.org/soap/envelope/"><e:Body><op/></e:Body></e:Envelope>');
 * body[0].local; // "op"
 */
export function readEnvelope(xml: string, limits: EnvelopeLimits = requestLimits): BodyElement[] {
  // Namespaces are resolved by namespace-scope.ts, not by saxes: see there for why.
  const parser = new SaxesParser();
  const scopes: Scope[] = [];
  let scope = rootScope;
  const stack: BodyElement[] = [];
  let bodyChildren: BodyElement[] | undefined;
  let sawBody = false;
  let depth = 0;
  let elements = 0;
  // Depth inside the Header (> 0 while skipping it) and the depth at which the Body opened.
  let headerDepth = 0;
  let bodyDepth = 0;

  parser.on("error", (error: Error) => {
    throw new SoapError(
      "SOAP_MALFORMED_XML",
      `The request is not well-formed XML: ${error.message.replace(/\.$/, "")}.`,
    );
  });
  parser.on("doctype", () => {
    throw new SoapError(
      "SOAP_DOCTYPE_REFUSED",
      "The request contains a DOCTYPE declaration; SOAP messages must not have one (SOAP 1.1 §3).",
    );
  });
  parser.on("opentag", (tag) => {
    depth++;
    elements++;
    if (depth > limits.maxDepth) {
      throw new SoapError(
        "SOAP_LIMIT_EXCEEDED",
        `The request nests elements ${depth} deep; at most ${limits.maxDepth} levels are allowed.`,
      );
    }
    if (elements > limits.maxElements) {
      throw new SoapError(
        "SOAP_LIMIT_EXCEEDED",
        `The request has more than ${limits.maxElements} elements, the most this service accepts.`,
      );
    }
    scopes.push(scope);
    scope = openScope(scope, tag.attributes as Record<string, string>);
    const element = toBodyElement(tag, scope);
    if (depth === 1) {
      if (element.local === "Envelope" && element.uri === SOAP12_ENVELOPE_NS) {
        throw new SoapError(
          "SOAP_NOT_ENVELOPE",
          "The request is a SOAP 1.2 envelope; this service speaks SOAP 1.1 only " +
            `(Envelope namespace ${SOAP_ENVELOPE_NS}).`,
        );
      }
      if (element.local !== "Envelope" || element.uri !== SOAP_ENVELOPE_NS) {
        throw new SoapError("SOAP_NOT_ENVELOPE", `${envelopeProblem}; got a root element named ${tag.name}.`);
      }
      return;
    }
    if (headerDepth > 0) return;
    if (depth === 2) {
      if (element.uri === SOAP_ENVELOPE_NS && element.local === "Header" && !sawBody) headerDepth = depth;
      else if (element.uri === SOAP_ENVELOPE_NS && element.local === "Body" && !sawBody) {
        sawBody = true;
        bodyDepth = depth;
        bodyChildren = [];
      }
      // Other Envelope children (allowed after the Body by SOAP 1.1 §4.1.1) are ignored.
      return;
    }
    if (bodyDepth === 0) return;
    if (depth === bodyDepth + 1) bodyChildren!.push(element);
    else stack[stack.length - 1]!.children.push(element);
    stack.push(element);
  });
  parser.on("closetag", () => {
    scope = scopes.pop()!;
    if (headerDepth > 0) {
      if (depth === headerDepth) headerDepth = 0;
    } else if (bodyDepth > 0) {
      if (depth === bodyDepth) bodyDepth = 0;
      else stack.pop();
    }
    depth--;
  });
  const onText = (text: string) => {
    if (stack.length > 0) stack[stack.length - 1]!.text += text;
  };
  parser.on("text", onText);
  parser.on("cdata", onText);

  parser.write(xml).close();
  if (bodyChildren === undefined)
    throw new SoapError("SOAP_NOT_ENVELOPE", `${envelopeProblem}; the Body is missing.`);
  return bodyChildren;
}

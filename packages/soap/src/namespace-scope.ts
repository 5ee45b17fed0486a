import { SoapError } from "./soap-error.js";

/**
 * Namespace resolution for the request reader (Namespaces in XML 1.0 §5, §6). saxes can resolve
 * namespaces itself, but its resolver checks and expands every attribute of every element and
 * measured at half of the whole decoding time; the reader needs the URI of each element and of
 * two attributes, so it runs saxes without namespaces and resolves here. Strictness is kept:
 * an unbound prefix on an element or attribute, a malformed qualified name, or an empty prefixed
 * declaration (`xmlns:p=""`) is refused as not well-formed.
 */

const XML_NS = "http://www.w3.org/XML/1998/namespace";
const XMLNS_NS = "http://www.w3.org/2000/xmlns/";

/** Prefix to URI; "" is the default namespace ("" when none is declared). */
export type Scope = ReadonlyMap<string, string>;

export const rootScope: Scope = new Map([
  ["", ""],
  ["xml", XML_NS],
  ["xmlns", XMLNS_NS],
]);

function malformed(message: string): SoapError {
  return new SoapError("SOAP_MALFORMED_XML", `The request is not well-formed XML: ${message}.`);
}

/** The scope an element opens: the parent's, extended by its `xmlns` attributes (copied only then). */
export function openScope(parent: Scope, attributes: Readonly<Record<string, string>>): Scope {
  let scope: Map<string, string> | undefined;
  for (const name in attributes) {
    if (!name.startsWith("xmlns")) continue;
    let prefix: string;
    if (name.length === 5) prefix = "";
    else if (name.charCodeAt(5) === 58 /* : */) prefix = name.slice(6);
    else continue; // an ordinary attribute whose name starts with "xmlns", e.g. "xmlnsFoo"
    const uri = attributes[name]!;
    if (prefix !== "" && uri === "")
      throw malformed(`the prefix ${prefix} is declared with an empty namespace`);
    if (prefix === "xmlns" || (prefix === "xml") !== (uri === XML_NS) || uri === XMLNS_NS) {
      throw malformed(`the reserved prefix or namespace in ${name}="${uri.slice(0, 60)}" is misused`);
    }
    scope ??= new Map(parent);
    scope.set(prefix, uri);
  }
  return scope ?? parent;
}

/**
 * Splits a qualified name and resolves its prefix. Elements take the default namespace when
 * unprefixed; attributes never do (`forAttribute`), per Namespaces in XML §6.2.
 */
export function resolveName(
  scope: Scope,
  name: string,
  forAttribute: boolean,
): { uri: string; local: string } {
  const colon = name.indexOf(":");
  if (colon < 0) return { uri: forAttribute ? "" : scope.get("")!, local: name };
  if (colon === 0 || colon === name.length - 1 || name.indexOf(":", colon + 1) >= 0) {
    throw malformed(`the name ${name.slice(0, 60)} is not a valid qualified name`);
  }
  const prefix = name.slice(0, colon);
  const uri = scope.get(prefix);
  if (uri === undefined) throw malformed(`unbound namespace prefix: ${prefix.slice(0, 60)}`);
  return { uri, local: name.slice(colon + 1) };
}

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

/**
 * Prefix bindings as a chain: each element that declares namespaces adds a link holding only its
 * own declarations; lookups walk up (chains are a few links long). Copying a map per declaring
 * element measured as the largest cost of decoding an Axis request, which declares on four.
 */
export interface Scope {
  readonly prefixes: readonly string[];
  readonly uris: readonly string[];
  readonly parent: Scope | null;
}

/** The bindings every document starts with; "" is the default namespace, none at first. */
export const rootScope: Scope = {
  prefixes: ["", "xml", "xmlns"],
  uris: ["", XML_NS, XMLNS_NS],
  parent: null,
};

function lookup(scope: Scope, prefix: string): string | undefined {
  for (let s: Scope | null = scope; s !== null; s = s.parent) {
    const i = s.prefixes.lastIndexOf(prefix);
    if (i >= 0) return s.uris[i];
  }
  return undefined;
}

function malformed(message: string): SoapError {
  return new SoapError("SOAP_MALFORMED_XML", `The request is not well-formed XML: ${message}.`);
}

/** The scope an element opens: the parent's, or a new link when it declares namespaces. */
export function openScope(parent: Scope, attributes: Readonly<Record<string, string>>): Scope {
  let prefixes: string[] | undefined;
  let uris: string[] | undefined;
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
    if (prefixes === undefined || uris === undefined) {
      prefixes = [];
      uris = [];
    }
    prefixes.push(prefix);
    uris.push(uri);
  }
  return prefixes === undefined || uris === undefined ? parent : { prefixes, uris, parent };
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
  if (colon < 0) return { uri: forAttribute ? "" : lookup(scope, "")!, local: name };
  if (colon === 0 || colon === name.length - 1 || name.indexOf(":", colon + 1) >= 0) {
    throw malformed(`the name ${name.slice(0, 60)} is not a valid qualified name`);
  }
  const prefix = name.slice(0, colon);
  const uri = lookup(scope, prefix);
  if (uri === undefined) throw malformed(`unbound namespace prefix: ${prefix.slice(0, 60)}`);
  return { uri, local: name.slice(colon + 1) };
}

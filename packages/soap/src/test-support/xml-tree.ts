import { SaxesParser } from "saxes";

/** A parsed element for tests that check documents element by element. */
export interface XmlNode {
  /** The qualified name as written, e.g. `soapenv:Body`. */
  readonly name: string;
  readonly uri: string;
  readonly local: string;
  /** Attributes by qualified name as written, e.g. `xsi:type`. */
  readonly attributes: Readonly<Record<string, string>>;
  /** Attributes by `{namespace}local`, for checks that must not depend on prefixes. */
  readonly attributesNs: Readonly<Record<string, string>>;
  readonly children: XmlNode[];
  text: string;
}

/**
 * Parses a whole document into a tree with saxes (namespace-aware, strict). For tests only: it
 * keeps everything, where the request reader keeps only what decoding needs.
 *
 * @example
 * const root = parseXmlTree("<a x='1'><b/></a>");
 * root.children[0].local; // "b"
 */
export function parseXmlTree(xml: string): XmlNode {
  const parser = new SaxesParser({ xmlns: true });
  const stack: XmlNode[] = [];
  let root: XmlNode | undefined;
  parser.on("opentag", (tag) => {
    const attributes: Record<string, string> = {};
    const attributesNs: Record<string, string> = {};
    for (const a of Object.values(tag.attributes)) {
      attributes[a.name] = a.value;
      attributesNs[`{${a.uri}}${a.local}`] = a.value;
    }
    const node: XmlNode = {
      name: tag.name,
      uri: tag.uri,
      local: tag.local,
      attributes,
      attributesNs,
      children: [],
      text: "",
    };
    if (stack.length === 0) root = node;
    else stack[stack.length - 1]!.children.push(node);
    stack.push(node);
  });
  parser.on("closetag", () => {
    stack.pop();
  });
  parser.on("text", (t) => {
    if (stack.length > 0) stack[stack.length - 1]!.text += t;
  });
  parser.on("error", (e) => {
    throw e;
  });
  parser.write(xml).close();
  return root!;
}

/** The only child element named `local`, or a thrown error that says what was there instead. */
export function child(node: XmlNode, local: string): XmlNode {
  const found = node.children.filter((c) => c.local === local);
  if (found.length !== 1) {
    throw new Error(
      `expected one <${local}> in <${node.name}>, found ${found.length}: ${node.children.map((c) => c.name).join(", ")}`,
    );
  }
  return found[0]!;
}

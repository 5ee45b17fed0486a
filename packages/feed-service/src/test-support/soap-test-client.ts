/**
 * A minimal SOAP 1.1 client for the end-to-end tests: writes RPC/encoded requests the way Axis
 * clients do and reads the Axis-shaped QueryBean (or fault) back with a namespace-aware parser,
 * so that tests check what a client really decodes, not the strings we meant to write.
 */
import { SaxesParser } from "saxes";

const soapEnv = "http://schemas.xmlsoap.org/soap/envelope/";
const xsi = "http://www.w3.org/2001/XMLSchema-instance";

interface Node {
  uri: string;
  local: string;
  attributes: Record<string, string>; // by `{uri}local`
  children: Node[];
  text: string;
}

function parseTree(xml: string): Node {
  const parser = new SaxesParser({ xmlns: true });
  const stack: Node[] = [];
  let root: Node | undefined;
  parser.on("opentag", (tag) => {
    const attributes: Record<string, string> = {};
    for (const a of Object.values(tag.attributes)) attributes[`{${a.uri}}${a.local}`] = a.value;
    const node: Node = { uri: tag.uri, local: tag.local, attributes, children: [], text: "" };
    if (stack.length === 0) root = node;
    else stack[stack.length - 1].children.push(node);
    stack.push(node);
  });
  parser.on("closetag", () => void stack.pop());
  parser.on("text", (t) => {
    if (stack.length > 0) stack[stack.length - 1].text += t;
  });
  parser.write(xml).close();
  if (!root) throw new Error("empty document");
  return root;
}

export type Cell = string | number | null;

export interface SoapResult {
  readonly status: number;
  readonly body: string;
  readonly contentType: string | null;
  /** Present for a QueryBean answer. */
  readonly columns?: string[];
  readonly rows?: Cell[][];
  /** The xsi:type of every cell (`null` for nil cells), row by row. */
  readonly cellTypes?: Array<Array<string | null>>;
  /** Present for a fault. */
  readonly fault?: { code: string; string: string; detail: string };
}

/** Reads a response document: a QueryBean into columns and typed rows, or a fault. */
export function readSoapResponse(status: number, contentType: string | null, body: string): SoapResult {
  const envelope = parseTree(body);
  const bodyEl = envelope.children.find((c) => c.uri === soapEnv && c.local === "Body");
  if (!bodyEl) throw new Error(`no soapenv:Body in ${body.slice(0, 200)}`);
  const fault = bodyEl.children.find((c) => c.uri === soapEnv && c.local === "Fault");
  if (fault) {
    const text = (name: string) => fault.children.find((c) => c.local === name)?.text ?? "";
    const detail = fault.children.find((c) => c.local === "detail");
    const detailText = detail
      ? detail.children.map((c) => `${c.local}:${JSON.stringify(c.attributes)}:${c.children.length}`).join()
      : "";
    return {
      status,
      body,
      contentType,
      fault: { code: text("faultcode"), string: text("faultstring"), detail: detailText },
    };
  }
  const bean = bodyEl.children.find((c) => c.local === "multiRef");
  if (!bean) throw new Error(`no multiRef QueryBean in ${body.slice(0, 300)}`);
  const columnList = bean.children.find((c) => c.local === "columnList");
  const data = bean.children.find((c) => c.local === "data");
  if (!columnList || !data) throw new Error("QueryBean without columnList or data");
  const columns = columnList.children.map((c) => c.text);
  const rows: Cell[][] = [];
  const cellTypes: Array<Array<string | null>> = [];
  for (const row of data.children) {
    const cells: Cell[] = [];
    const types: Array<string | null> = [];
    for (const cell of row.children) {
      if (cell.attributes[`{${xsi}}nil`] === "true") {
        cells.push(null);
        types.push(null);
        continue;
      }
      const type = cell.attributes[`{${xsi}}type`] ?? "";
      types.push(type);
      cells.push(/:(int|double)$/.test(type) ? Number(cell.text) : cell.text);
    }
    rows.push(cells);
    cellTypes.push(types);
  }
  return { status, body, contentType, columns, rows, cellTypes };
}

export type ArgumentXml = string | number | null | { readonly raw: string };

function escapeText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** An Axis-style RPC/encoded request; `null` is sent as xsi:nil, `{raw}` as written. */
export function buildRequest(operation: string, args: Readonly<Record<string, ArgumentXml>>): string {
  const params = Object.entries(args)
    .map(([name, value]) => {
      if (value === null) return `<${name} xsi:nil="true"/>`;
      if (typeof value === "object") return `<${name}>${value.raw}</${name}>`;
      const type = typeof value === "number" ? "xsd:double" : "xsd:string";
      return `<${name} xsi:type="${type}">${escapeText(String(value))}</${name}>`;
    })
    .join("");
  return (
    `<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="${soapEnv}" ` +
    `xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="${xsi}"><soapenv:Body>` +
    `<ns1:${operation} soapenv:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/" xmlns:ns1="http://webservices">` +
    `${params}</ns1:${operation}></soapenv:Body></soapenv:Envelope>`
  );
}

/** Posts a raw body to the SOAP endpoint and reads the answer. */
export async function postSoap(
  url: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
): Promise<SoapResult> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "text/xml; charset=utf-8", SOAPAction: '""', ...headers },
    body,
  });
  const text = await res.text();
  return readSoapResponse(res.status, res.headers.get("content-type"), text);
}

/** Calls one operation at `baseUrl` (+ the endpoint path) and returns the decoded answer. */
export function callOperation(
  baseUrl: string,
  operation: string,
  args: Readonly<Record<string, ArgumentXml>> = {},
  path = "/webservices/FeedAggregator",
): Promise<SoapResult> {
  return postSoap(baseUrl + path, buildRequest(operation, args));
}

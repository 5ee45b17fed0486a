#!/usr/bin/env node
// SOAP codec: encoding a 50-row x 12-column QueryBean response and decoding a typical Axis 1.4
// request (href/multiRef parameters), ours (the built packages/soap) against node-soap's own
// serializer (WSDL.objectToRpcXML + the envelope its Server writes) and parser (WSDL.xmlToObject,
// what its Server runs on every request), both fed the same WSDL and the same data, in one run.
// Run `npx tsc -b` first.
import { createRequire } from "node:module";
import {
  compileQueryBeanEncoder,
  createSoapService,
  decodeCall,
  decodeRequestText,
  readEnvelope,
} from "../packages/soap/dist/index.js";

const require = createRequire(import.meta.url);
const soap = require("soap");

const roundMs = 250;
const rounds = 9;

// --- the data: rows shaped like the feed service's post column set -----------------------------
const columns = [
  { name: "postId", type: "int" },
  { name: "postTitle", type: "string" },
  { name: "postLink", type: "string" },
  { name: "postExcerpt", type: "string" },
  { name: "postDate", type: "dateTime" },
  { name: "feedId", type: "int" },
  { name: "feedName", type: "string" },
  { name: "categoryId", type: "int" },
  { name: "categoryName", type: "string" },
  { name: "languageId", type: "int" },
  { name: "clicks", type: "int" },
  { name: "trackingLink", type: "string" },
];
const excerpt =
  "Flex 3 and AIR bring a new way to build rich applications; this post walks through data binding, " +
  "states & transitions, and the <mx:DataGrid> component with a worked example. Grüße aus Köln.";
const rows = [];
for (let i = 0; i < 50; i++) {
  const uncategorised = i % 5 === 0;
  rows.push([
    100000 + i,
    `Post number ${i}: building applications with Flex & AIR`,
    `https://blog.example.com/2024/03/post-${i}.html`,
    `${excerpt} (${i})`,
    new Date(Date.UTC(2024, 2, 1, 12, i, 7, 250)),
    40 + (i % 7),
    `Example Blog ${i % 7}`,
    uncategorised ? null : 3,
    uncategorised ? null : "Flex",
    1,
    i * 3,
    `https://feeds.example.com/click/${100000 + i}`,
  ]);
}
const operation = {
  name: "getMostRecentPosts",
  parameters: [
    { name: "limit", type: "double" },
    { name: "offset", type: "double" },
    { name: "languageIds", type: "string" },
  ],
  columns,
};

// --- ours --------------------------------------------------------------------------------------
const service = createSoapService({
  targetNamespace: "http://webservices",
  portTypeName: "FeedAggregator",
  serviceName: "FeedAggregatorService",
  operations: [operation],
  handler: () => ({ rows }),
  describeError: () => undefined,
});
const encodeOurs = compileQueryBeanEncoder(
  operation.name,
  columns,
  "http://webservices",
  "http://rpc.xml.coldfusion",
);
const operations = new Map([[operation.name, operation]]);

// The request exactly as Axis 1.4 stubs send it (see the shared capture corpus).
const axisRequest = Buffer.from(
  '<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soapenv:Body><ns1:getMostRecentPosts soapenv:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/" xmlns:ns1="http://webservices"><limit href="#id0"/><offset href="#id1"/><languageIds xsi:type="xsd:string">1,2</languageIds></ns1:getMostRecentPosts><multiRef id="id1" soapenc:root="0" soapenv:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/" xsi:type="xsd:double" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/">10.0</multiRef><multiRef id="id0" soapenc:root="0" soapenv:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/" xsi:type="xsd:double" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/">2.0</multiRef></soapenv:Body></soapenv:Envelope>',
);
const decodeOurs = (bytes) =>
  decodeCall(readEnvelope(decodeRequestText(bytes, "text/xml; charset=utf-8")), operations);

// --- node-soap, on the same WSDL ---------------------------------------------------------------
const wsdl = new soap.WSDL(
  service.wsdl("http://127.0.0.1:8080/webservices/FeedAggregator"),
  "http://127.0.0.1/",
  {},
);
await new Promise((resolve, reject) => wsdl.onReady((err) => (err ? reject(err) : resolve())));
const envelopeOf = soap.Server.prototype._envelope;
const nodeSoapServer = { wsdl };
const beanObject = { columnList: columns.map((c) => c.name), data: rows };
const encodeNodeSoap = () =>
  envelopeOf.call(
    nodeSoapServer,
    wsdl.objectToRpcXML(
      `${operation.name}Response`,
      { [`${operation.name}Return`]: beanObject },
      "",
      wsdl.definitions.$targetNamespace,
    ),
    "",
    false,
  );
const decodeNodeSoap = (bytes) => wsdl.xmlToObject(bytes.toString("utf8"));

// --- sanity: both sides do the work they are credited with ---------------------------------------
const ours = decodeOurs(axisRequest);
if (ours.args.limit !== 2 || ours.args.offset !== 10 || ours.args.languageIds !== "1,2") {
  throw new Error(`our decoder got ${JSON.stringify(ours.args)}`);
}
const theirs = decodeNodeSoap(axisRequest);
if (!theirs?.Body) throw new Error("node-soap did not parse the request");
const ourXml = encodeOurs({ rows });
const theirXml = encodeNodeSoap();
if (!ourXml.includes("Post number 49") || !theirXml.includes("Post number 49")) {
  throw new Error("an encoder left rows out");
}

// --- timing ------------------------------------------------------------------------------------
// Ours and node-soap run in alternating rounds, so that both see the same load from whatever else
// this machine is doing; the ratio is the median of the per-round ratios. Rates are per second of
// this process's CPU time (user + system, GC threads included), not of wall time: on a shared
// 2-core machine wall time mostly measures how long the process waited for a core.
let sink = 0;
function opsInRound(fn) {
  let n = 0;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  while (performance.now() - t0 < roundMs) {
    for (let k = 0; k < 20; k++) {
      const out = fn();
      sink += typeof out === "string" || Buffer.isBuffer(out) ? out.length : 1;
    }
    n += 20;
  }
  const cpu = process.cpuUsage(cpu0);
  return (n * 1e6) / (cpu.user + cpu.system);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
function compare(ours, theirs) {
  opsInRound(ours); // warm-up
  opsInRound(theirs);
  const a = [];
  const b = [];
  const ratios = [];
  for (let r = 0; r < rounds; r++) {
    a.push(opsInRound(ours));
    b.push(opsInRound(theirs));
    ratios.push(a[r] / b[r]);
  }
  return [median(a), median(b), median(ratios), Math.min(...ratios), Math.max(...ratios)];
}

const results = [
  [
    "encode QueryBean 50x12 to bytes",
    // Both to UTF-8 bytes, as the HTTP layer writes them: a string built by concatenation is only
    // flattened there, so leaving that out would flatter whichever side concatenates more.
    ...compare(
      () => Buffer.from(encodeOurs({ rows }), "utf8"),
      () => Buffer.from(encodeNodeSoap(), "utf8"),
    ),
    `${Buffer.byteLength(ourXml)} / ${Buffer.byteLength(theirXml)} bytes`,
  ],
  [
    // The same without the conversion to bytes, for comparison with figures that leave it out.
    "  same, string only",
    ...compare(
      () => encodeOurs({ rows }),
      () => encodeNodeSoap(),
    ),
    "",
  ],
  [
    "decode Axis 1.4 request",
    ...compare(
      () => decodeOurs(axisRequest),
      () => decodeNodeSoap(axisRequest),
    ),
    `${axisRequest.length} bytes`,
  ],
];

const fmt = (n) => Math.round(n).toLocaleString("en-US");
console.log(
  `node ${process.version}, node-soap ${require("soap/package.json").version}, ${rounds} alternating rounds of ${roundMs} ms each, medians, ops per CPU second`,
);
console.log(
  `${"case".padEnd(34)}${"ours ops/s".padStart(12)}${"node-soap ops/s".padStart(17)}${"ratio".padStart(8)}${"(min-max)".padStart(14)}   output/input size (ours / node-soap)`,
);
for (const [name, a, b, ratio, low, high, size] of results) {
  console.log(
    `${name.padEnd(34)}${fmt(a).padStart(12)}${fmt(b).padStart(17)}${`${ratio.toFixed(2)}x`.padStart(8)}${`${low.toFixed(1)}-${high.toFixed(1)}`.padStart(14)}   ${size}`,
  );
}
if (sink === 0) console.log("");

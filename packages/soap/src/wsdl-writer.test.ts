import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { OperationSpec } from "./service-types.js";
import { child, parseXmlTree, type XmlNode } from "./test-support/xml-tree.js";
import { compileWsdl } from "./wsdl-writer.js";

const operations: OperationSpec[] = [
  {
    name: "getPostsByCategory",
    parameters: [
      { name: "limit", type: "double" },
      { name: "languageIds", type: "string" },
      { name: "sincepost", type: "anyType" },
    ],
    columns: [{ name: "postId", type: "int" }],
  },
  { name: "getCategories", parameters: [], columns: [{ name: "categoryId", type: "int" }] },
];
const wsdl = compileWsdl(
  {
    targetNamespace: "http://webservices",
    rpcNamespace: "http://rpc.xml.coldfusion",
    portTypeName: "FeedAggregator",
    serviceName: "FeedAggregatorService",
    bindingName: "FeedAggregator.cfcSoapBinding",
    portName: "FeedAggregator.cfc",
  },
  operations,
);
const root = parseXmlTree(wsdl('http://example.test/webservices/FeedAggregator?a="1"&b=2'));
const wsdlNs = "http://schemas.xmlsoap.org/wsdl/";
const named = (parent: XmlNode, local: string, name: string) => {
  const found = parent.children.filter((c) => c.local === local && c.attributes.name === name);
  assert.equal(found.length, 1, `one ${local} named ${name}`);
  return found[0]!;
};

describe("WSDL generation", () => {
  test("a WSDL 1.1 document with the target namespace and the ColdFusion prefixes", () => {
    assert.equal(root.uri, wsdlNs);
    assert.equal(root.local, "definitions");
    assert.equal(root.attributes.targetNamespace, "http://webservices");
    assert.equal(root.attributes["xmlns:tns1"], "http://rpc.xml.coldfusion");
    assert.equal(root.attributes["xmlns:impl"], "http://webservices");
  });

  test("types: QueryBean and ComponentInvocationException, the two arrays, Map and mapItem", () => {
    const schemas = child(root, "types").children;
    const byNs = (ns: string) => schemas.find((s) => s.attributes.targetNamespace === ns)!;
    const rpc = byNs("http://rpc.xml.coldfusion");
    const bean = named(rpc, "complexType", "QueryBean");
    assert.deepEqual(
      child(bean, "sequence").children.map((e) => [
        e.attributes.name,
        e.attributes.nillable,
        e.attributes.type,
      ]),
      [
        ["columnList", "true", "impl:ArrayOf_xsd_string"],
        ["data", "true", "impl:ArrayOfArrayOf_xsd_anyType"],
      ],
    );
    assert.equal(
      child(named(rpc, "complexType", "ComponentInvocationException"), "sequence").children.length,
      0,
    );
    const tns = byNs("http://webservices");
    for (const [name, arrayType] of [
      ["ArrayOf_xsd_string", "xsd:string[]"],
      ["ArrayOfArrayOf_xsd_anyType", "xsd:anyType[][]"],
    ]) {
      const restriction = child(child(named(tns, "complexType", name!), "complexContent"), "restriction");
      assert.equal(restriction.attributes.base, "soapenc:Array");
      assert.equal(child(restriction, "attribute").attributesNs[`{${wsdlNs}}arrayType`], arrayType);
    }
    const apache = byNs("http://xml.apache.org/xml-soap");
    assert.deepEqual(
      child(named(apache, "complexType", "mapItem"), "sequence").children.map((e) => [
        e.attributes.name,
        e.attributes.type,
      ]),
      [
        ["key", "xsd:anyType"],
        ["value", "xsd:anyType"],
      ],
    );
    const item = child(child(named(apache, "complexType", "Map"), "sequence"), "element");
    assert.deepEqual([item.attributes.minOccurs, item.attributes.maxOccurs], ["0", "unbounded"]);
  });

  test("messages: one part per parameter with its declared type, one Return part, the fault", () => {
    const request = named(root, "message", "getPostsByCategoryRequest");
    assert.deepEqual(
      request.children.map((p) => [p.attributes.name, p.attributes.type]),
      [
        ["limit", "xsd:double"],
        ["languageIds", "xsd:string"],
        ["sincepost", "xsd:anyType"],
      ],
    );
    assert.equal(named(root, "message", "getCategoriesRequest").children.length, 0);
    const response = named(root, "message", "getCategoriesResponse");
    assert.deepEqual(
      response.children.map((p) => [p.attributes.name, p.attributes.type]),
      [["getCategoriesReturn", "tns1:QueryBean"]],
    );
    const fault = named(root, "message", "ComponentInvocationException");
    assert.deepEqual(
      fault.children.map((p) => [p.attributes.name, p.attributes.type]),
      [["fault", "tns1:ComponentInvocationException"]],
    );
  });

  test("port type: parameterOrder only where there are parameters; every operation declares the fault", () => {
    const portType = named(root, "portType", "FeedAggregator");
    const withParams = named(portType, "operation", "getPostsByCategory");
    assert.equal(withParams.attributes.parameterOrder, "limit languageIds sincepost");
    const without = named(portType, "operation", "getCategories");
    assert.equal(without.attributes.parameterOrder, undefined);
    for (const op of [withParams, without]) {
      assert.equal(child(op, "fault").attributes.message, "impl:ComponentInvocationException");
    }
  });

  test("binding: rpc over SOAP/HTTP, soapAction empty, encoded bodies and faults", () => {
    const binding = named(root, "binding", "FeedAggregator.cfcSoapBinding");
    assert.equal(binding.attributes.type, "impl:FeedAggregator");
    const soapBinding = child(binding, "binding");
    assert.deepEqual(
      [soapBinding.attributes.style, soapBinding.attributes.transport],
      ["rpc", "http://schemas.xmlsoap.org/soap/http"],
    );
    const ops = binding.children.filter((c) => c.local === "operation");
    assert.deepEqual(
      ops.map((o) => o.attributes.name),
      ["getPostsByCategory", "getCategories"],
    );
    for (const op of ops) {
      assert.equal(child(op, "operation").attributes.soapAction, "");
      for (const part of ["input", "output"]) {
        const body = child(child(op, part), "body");
        assert.equal(body.attributes.use, "encoded");
        assert.equal(body.attributes.encodingStyle, "http://schemas.xmlsoap.org/soap/encoding/");
        assert.equal(body.attributes.namespace, "http://webservices");
      }
      const fault = child(child(op, "fault"), "fault");
      assert.deepEqual(
        [fault.attributes.name, fault.attributes.use, fault.attributes.namespace],
        ["ComponentInvocationException", "encoded", "http://webservices"],
      );
    }
  });

  test("service: one port whose soap:address is the address given, escaped", () => {
    const service = named(root, "service", "FeedAggregatorService");
    const port = child(service, "port");
    assert.equal(port.attributes.binding, "impl:FeedAggregator.cfcSoapBinding");
    assert.equal(
      child(port, "address").attributes.location,
      'http://example.test/webservices/FeedAggregator?a="1"&b=2',
    );
  });
});

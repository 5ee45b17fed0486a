import {
  ANY_TYPE_MATRIX_TYPE,
  APACHE_SOAP_NS,
  COMPONENT_INVOCATION_EXCEPTION,
  QUERY_BEAN_TYPE,
  SOAP_ENCODING_NS,
  SOAP_HTTP_TRANSPORT,
  STRING_ARRAY_TYPE,
  WSDL_NS,
  WSDL_SOAP_NS,
  XSD_NS,
} from "./namespaces.js";
import type { OperationSpec } from "./service-types.js";
import { escapeXmlAttribute } from "./xml-text.js";

/** Everything the WSDL needs besides the operations; names are checked by the service first. */
export interface WsdlNames {
  readonly targetNamespace: string;
  readonly rpcNamespace: string;
  readonly portTypeName: string;
  readonly serviceName: string;
  readonly bindingName: string;
  readonly portName: string;
}

const encoded = `encodingStyle="${SOAP_ENCODING_NS}"`;
const fault = COMPONENT_INVOCATION_EXCEPTION;

function arrayType(name: string, itemType: string): string {
  return (
    `<complexType name="${name}"><complexContent><restriction base="soapenc:Array">` +
    `<attribute ref="soapenc:arrayType" wsdl:arrayType="${itemType}"/>` +
    "</restriction></complexContent></complexType>"
  );
}

function schema(namespace: string, imports: string[], body: string): string {
  const importTags = imports.map((ns) => `<import namespace="${ns}"/>`).join("");
  return `<schema targetNamespace="${namespace}" xmlns="${XSD_NS}">${importTags}${body}</schema>`;
}

function types(names: WsdlNames): string {
  const { targetNamespace: tns, rpcNamespace: rpc } = names;
  const rpcTypes =
    `<complexType name="${QUERY_BEAN_TYPE}"><sequence>` +
    `<element name="columnList" nillable="true" type="impl:${STRING_ARRAY_TYPE}"/>` +
    `<element name="data" nillable="true" type="impl:${ANY_TYPE_MATRIX_TYPE}"/>` +
    `</sequence></complexType><complexType name="${fault}"><sequence/></complexType>`;
  const mapTypes =
    '<complexType name="mapItem"><sequence>' +
    '<element name="key" nillable="true" type="xsd:anyType"/>' +
    '<element name="value" nillable="true" type="xsd:anyType"/>' +
    '</sequence></complexType><complexType name="Map"><sequence>' +
    '<element maxOccurs="unbounded" minOccurs="0" name="item" type="apachesoap:mapItem"/>' +
    "</sequence></complexType>";
  return (
    "<wsdl:types>" +
    schema(rpc, [APACHE_SOAP_NS, tns, SOAP_ENCODING_NS], rpcTypes) +
    schema(
      tns,
      [APACHE_SOAP_NS, rpc, SOAP_ENCODING_NS],
      arrayType(STRING_ARRAY_TYPE, "xsd:string[]") + arrayType(ANY_TYPE_MATRIX_TYPE, "xsd:anyType[][]"),
    ) +
    schema(APACHE_SOAP_NS, [tns, rpc, SOAP_ENCODING_NS], mapTypes) +
    "</wsdl:types>"
  );
}

function messages(operations: readonly OperationSpec[]): string {
  let out = "";
  for (const op of operations) {
    out += `<wsdl:message name="${op.name}Request">`;
    for (const p of op.parameters) out += `<wsdl:part name="${p.name}" type="xsd:${p.type}"/>`;
    out +=
      `</wsdl:message><wsdl:message name="${op.name}Response">` +
      `<wsdl:part name="${op.name}Return" type="tns1:${QUERY_BEAN_TYPE}"/></wsdl:message>`;
  }
  return `${out}<wsdl:message name="${fault}"><wsdl:part name="fault" type="tns1:${fault}"/></wsdl:message>`;
}

function portType(names: WsdlNames, operations: readonly OperationSpec[]): string {
  let out = `<wsdl:portType name="${names.portTypeName}">`;
  for (const op of operations) {
    // Axis omits parameterOrder for operations without parameters; so do we (spec §2).
    const order =
      op.parameters.length > 0 ? ` parameterOrder="${op.parameters.map((p) => p.name).join(" ")}"` : "";
    out +=
      `<wsdl:operation name="${op.name}"${order}>` +
      `<wsdl:input message="impl:${op.name}Request" name="${op.name}Request"/>` +
      `<wsdl:output message="impl:${op.name}Response" name="${op.name}Response"/>` +
      `<wsdl:fault message="impl:${fault}" name="${fault}"/></wsdl:operation>`;
  }
  return `${out}</wsdl:portType>`;
}

function binding(names: WsdlNames, operations: readonly OperationSpec[]): string {
  const body = `${encoded} namespace="${names.targetNamespace}" use="encoded"`;
  let out =
    `<wsdl:binding name="${names.bindingName}" type="impl:${names.portTypeName}">` +
    `<wsdlsoap:binding style="rpc" transport="${SOAP_HTTP_TRANSPORT}"/>`;
  for (const op of operations) {
    out +=
      `<wsdl:operation name="${op.name}"><wsdlsoap:operation soapAction=""/>` +
      `<wsdl:input name="${op.name}Request"><wsdlsoap:body ${body}/></wsdl:input>` +
      `<wsdl:output name="${op.name}Response"><wsdlsoap:body ${body}/></wsdl:output>` +
      `<wsdl:fault name="${fault}"><wsdlsoap:fault ${encoded} name="${fault}"` +
      ` namespace="${names.targetNamespace}" use="encoded"/></wsdl:fault></wsdl:operation>`;
  }
  return `${out}</wsdl:binding>`;
}

/**
 * Builds the WSDL 1.1 document (RPC style, section-5 encoded, SOAP over HTTP) for an operation
 * table in the shape Axis 1.x generates for ColdFusion components, so that WSDL2Java, PHP,
 * SOAP::Lite, zeep and suds read it the way they read the original. Everything is written once;
 * each call only inserts the `soap:address`, which depends on where the WSDL was requested.
 *
 * @example
 * const wsdl = compileWsdl(names, operations);
 * wsdl("http://localhost:8080/webservices/FeedAggregator");
 */
export function compileWsdl(
  names: WsdlNames,
  operations: readonly OperationSpec[],
): (address: string) => string {
  const head =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<wsdl:definitions targetNamespace="${names.targetNamespace}" xmlns:apachesoap="${APACHE_SOAP_NS}"` +
    ` xmlns:impl="${names.targetNamespace}" xmlns:intf="${names.targetNamespace}"` +
    ` xmlns:soapenc="${SOAP_ENCODING_NS}" xmlns:tns1="${names.rpcNamespace}" xmlns:wsdl="${WSDL_NS}"` +
    ` xmlns:wsdlsoap="${WSDL_SOAP_NS}" xmlns:xsd="${XSD_NS}">` +
    types(names) +
    messages(operations) +
    portType(names, operations) +
    binding(names, operations) +
    `<wsdl:service name="${names.serviceName}">` +
    `<wsdl:port binding="impl:${names.bindingName}" name="${names.portName}">` +
    '<wsdlsoap:address location="';
  const tail = '"/></wsdl:port></wsdl:service></wsdl:definitions>\n';
  return (address) => head + escapeXmlAttribute(address) + tail;
}

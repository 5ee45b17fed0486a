import { envelopeClose, envelopeOpen } from "./envelope-writer.js";
import { COMPONENT_INVOCATION_EXCEPTION } from "./namespaces.js";
import { escapeXmlText } from "./xml-text.js";

/**
 * Writes a Client fault: the request itself was wrong (not XML, not a SOAP 1.1 envelope, an
 * unknown operation, too large). The detail is empty: there is nothing typed to tell.
 *
 * @example
 * writeClientFault("The request is not well-formed XML: 1:5: unclosed tag: a.");
 */
export function writeClientFault(message: string): string {
  return (
    `${envelopeOpen}<soapenv:Fault><faultcode>soapenv:Client</faultcode>` +
    `<faultstring>${escapeXmlText(message)}</faultstring><detail/></soapenv:Fault>${envelopeClose}`
  );
}

/**
 * Builds the writer of operation faults as ColdFusion raises them through Axis:
 * `Server.userException`, a faultstring prefixed with `ComponentInvocationException: `, and a
 * detail holding an empty, typed `fault` element, which makes Axis stubs throw the generated
 * ComponentInvocationException class instead of a bare AxisFault.
 *
 * @example
 * const write = compileUserFaultWriter("http://rpc.xml.coldfusion");
 * write("The limit argument must be a whole number from 0 to 1000; got -1.");
 */
export function compileUserFaultWriter(rpcNamespace: string): (message: string) => string {
  const head =
    `${envelopeOpen}<soapenv:Fault><faultcode>soapenv:Server.userException</faultcode>` +
    `<faultstring>${COMPONENT_INVOCATION_EXCEPTION}: `;
  const tail =
    `</faultstring><detail><ns1:fault xsi:type="ns1:${COMPONENT_INVOCATION_EXCEPTION}"` +
    ` xmlns:ns1="${rpcNamespace}"/></detail></soapenv:Fault>${envelopeClose}`;
  return (message) => head + escapeXmlText(message) + tail;
}

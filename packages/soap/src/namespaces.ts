/**
 * Namespace URIs and the names of the ColdFusion/Axis types that old clients expect. They are
 * fixed by the services this package stands in for (ColdFusion 8 components published through
 * Apache Axis 1.x), so clients generated from those services' WSDLs keep working unchanged.
 */

/** SOAP 1.1 envelope namespace (SOAP 1.1 §4). */
export const SOAP_ENVELOPE_NS = "http://schemas.xmlsoap.org/soap/envelope/";
/** SOAP 1.2 envelope namespace: recognised only to refuse it with a message that says why. */
export const SOAP12_ENVELOPE_NS = "http://www.w3.org/2003/05/soap-envelope";
/** SOAP 1.1 section-5 encoding namespace (soapenc:Array, soapenc:root, arrayType). */
export const SOAP_ENCODING_NS = "http://schemas.xmlsoap.org/soap/encoding/";
export const XSD_NS = "http://www.w3.org/2001/XMLSchema";
export const XSI_NS = "http://www.w3.org/2001/XMLSchema-instance";
export const WSDL_NS = "http://schemas.xmlsoap.org/wsdl/";
export const WSDL_SOAP_NS = "http://schemas.xmlsoap.org/wsdl/soap/";
export const SOAP_HTTP_TRANSPORT = "http://schemas.xmlsoap.org/soap/http";

/** Where ColdFusion declares QueryBean and ComponentInvocationException. */
export const COLDFUSION_RPC_NS = "http://rpc.xml.coldfusion";
/** Apache SOAP's namespace: Axis WSDLs declare `Map` and `mapItem` there. */
export const APACHE_SOAP_NS = "http://xml.apache.org/xml-soap";

/** ColdFusion's query type, returned by every operation. */
export const QUERY_BEAN_TYPE = "QueryBean";
/** The typed fault detail that makes Axis stubs throw their generated exception class. */
export const COMPONENT_INVOCATION_EXCEPTION = "ComponentInvocationException";
/** Array types Axis names after their item type (WSDL 1.1 §5 soapenc:Array restrictions). */
export const STRING_ARRAY_TYPE = "ArrayOf_xsd_string";
export const ANY_TYPE_MATRIX_TYPE = "ArrayOfArrayOf_xsd_anyType";

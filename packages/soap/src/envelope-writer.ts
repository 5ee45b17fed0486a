import { SOAP_ENVELOPE_NS, XSD_NS, XSI_NS } from "./namespaces.js";

/**
 * The envelope around every response and fault, with the prefixes Axis 1.x declares on it:
 * `soapenv`, `xsd` and `xsi`. Bodies written between these two strings may use those prefixes.
 */
export const envelopeOpen =
  '<?xml version="1.0" encoding="UTF-8"?>' +
  `<soapenv:Envelope xmlns:soapenv="${SOAP_ENVELOPE_NS}" xmlns:xsd="${XSD_NS}" xmlns:xsi="${XSI_NS}">` +
  "<soapenv:Body>";

export const envelopeClose = "</soapenv:Body></soapenv:Envelope>";

/** The Content-Type of every response and fault (spec §3). */
export const xmlContentType = "text/xml; charset=utf-8";

"""Calls every operation of the interop probe with zeep or suds (WSDL mode) and prints what the
client decoded as one JSON object, for python-client.test.ts to compare.

Usage: /usr/bin/python3 python-client.py zeep|suds <wsdl-url>
"""
import datetime
import json
import os
import sys

ECHO_TEXT = "Grüße, 東京, emoji 😀"


def cell(value):
    """A decoded cell as [Python type, JSON value], so that the test sees types, not only text."""
    # suds hands text over as its own str subclass (Text): the same thing for this comparison.
    kind = "str" if isinstance(value, str) else type(value).__name__
    if isinstance(value, datetime.datetime):
        return [kind, value.astimezone(datetime.timezone.utc).isoformat(timespec="milliseconds")]
    return [kind, value]


def zeep_session(wsdl):
    import zeep
    from lxml import etree
    from zeep.transports import Transport

    here = os.path.dirname(os.path.abspath(__file__))

    class LocalSoapEncoding(Transport):
        # zeep fetches the SOAP encoding schema from schemas.xmlsoap.org for every RPC/encoded
        # WSDL; tests run without a network, so it gets the local copy of the parts WSDLs use.
        def load(self, url):
            if url.rstrip("/") == "http://schemas.xmlsoap.org/soap/encoding":
                with open(os.path.join(here, "soap-encoding.xsd"), "rb") as f:
                    return f.read()
            return super().load(url)

    client = zeep.Client(wsdl, transport=LocalSoapEncoding())
    nil = "{http://www.w3.org/2001/XMLSchema-instance}nil"

    def value(item):
        # zeep hands an untyped array item over as its XML element; ours are only the nil cells.
        if isinstance(item, etree._Element):
            if item.get(nil) != "true":
                raise ValueError("an untyped cell that is not nil: " + etree.tostring(item).decode())
            return None
        return item

    def bean(b):
        return {
            "columns": list(b.columnList or []),
            "rows": [[cell(value(v)) for v in row._value_1] for row in (b.data or [])],
        }

    def fault(call):
        try:
            call()
            return None
        except zeep.exceptions.Fault as f:
            return {"code": f.code, "string": f.message}

    return client.service, bean, fault, zeep.xsd.Nil


def suds_session(wsdl):
    from suds import WebFault
    from suds.client import Client

    client = Client(wsdl, cache=None)

    def bean(b):
        return {
            "columns": list(b.columnList),
            "rows": [[cell(v) for v in row] for row in getattr(b, "data", None) or []],
        }

    def fault(call):
        try:
            call()
            return None
        except WebFault as f:
            return {"code": f.fault.faultcode, "string": f.fault.faultstring}

    return client.service, bean, fault, None


def main(kind, wsdl):
    service, bean, fault, nil = (zeep_session if kind == "zeep" else suds_session)(wsdl)
    out = {
        "echo": bean(service.echoArguments(2.5, ECHO_TEXT, "2024-01-02T03:04:05Z")),
        "echoNull": bean(service.echoArguments(-1, "", nil)),
        "samples": bean(service.getSamples()),
        "nothing": bean(service.getNothing(0)),
        "fault": fault(lambda: service.failWith("because")),
        "crash": fault(lambda: service.crash()),
    }
    print(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

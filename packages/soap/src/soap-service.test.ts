import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { compileQueryBeanEncoder } from "./query-bean-encoder.js";
import { requestLimits, type SoapServiceOptions } from "./service-types.js";
import { SoapError } from "./soap-error.js";
import { createSoapService, rowsPerSlice } from "./soap-service.js";
import { createProbeService, probeOperations } from "./test-support/probe-service.js";
import { child, parseXmlTree, type XmlNode } from "./test-support/xml-tree.js";

const env = "http://schemas.xmlsoap.org/soap/envelope/";

function call(body: string): Buffer {
  return Buffer.from(
    `<?xml version="1.0"?><s:Envelope xmlns:s="${env}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">` +
      `<s:Body>${body}</s:Body></s:Envelope>`,
  );
}

function faultOf(xml: string): { code: string; string: string; detail: XmlNode } {
  const fault = child(child(parseXmlTree(xml), "Body"), "Fault");
  assert.equal(fault.uri, env);
  return {
    code: child(fault, "faultcode").text,
    string: child(fault, "faultstring").text,
    detail: child(fault, "detail"),
  };
}

describe("createSoapService", () => {
  test("answers a call with HTTP 200, text/xml UTF-8 and the encoded QueryBean", async () => {
    const response = await createProbeService().handle(
      call("<echoArguments><number>3</number><text>hi</text></echoArguments>"),
    );
    assert.equal(response.status, 200);
    assert.equal(response.contentType, "text/xml; charset=utf-8");
    const bean = child(child(parseXmlTree(String(response.body)), "Body"), "multiRef");
    assert.deepEqual(
      child(bean, "data").children[0]!.children.map((c) => c.text),
      ["3", "hi", ""],
    );
  });

  test("reads a body in the charset its XML declaration or Content-Type names", async () => {
    const xml =
      '<?xml version="1.0" encoding="ISO-8859-1"?>' +
      `<s:Envelope xmlns:s="${env}"><s:Body><echoArguments><number>1</number><text>Köln</text></echoArguments></s:Body></s:Envelope>`;
    for (const contentType of ["text/xml", "text/xml; charset=iso-8859-1"]) {
      const response = await createProbeService().handle(Buffer.from(xml, "latin1"), contentType);
      assert.equal(response.status, 200);
      const row = child(child(child(parseXmlTree(String(response.body)), "Body"), "multiRef"), "data")
        .children[0]!;
      assert.equal(row.children[1]!.text, "Köln");
    }
  });

  test("an operation error: Server.userException with the typed, empty ComponentInvocationException detail", async () => {
    const response = await createProbeService().handle(
      call("<failWith><reason>no &amp; never</reason></failWith>"),
    );
    assert.equal(response.status, 500);
    assert.equal(response.contentType, "text/xml; charset=utf-8");
    const fault = faultOf(String(response.body));
    assert.equal(fault.code, "soapenv:Server.userException");
    assert.equal(fault.string, "ComponentInvocationException: Failed on purpose: no & never");
    const detail = child(fault.detail, "fault");
    assert.equal(detail.uri, "http://rpc.xml.coldfusion");
    assert.equal(detail.attributes["xsi:type"], `${detail.name.split(":")[0]}:ComponentInvocationException`);
    assert.equal(detail.children.length, 0);
  });

  test("a bad argument is a Server.userException that names the parameter and the value", async () => {
    const fault = faultOf(
      (
        await createProbeService().handle(call("<getNothing><limit>lots</limit></getNothing>"))
      ).body.toString(),
    );
    assert.equal(fault.code, "soapenv:Server.userException");
    assert.match(
      fault.string,
      /^ComponentInvocationException: The limit argument must be a number .*; got "lots"\.$/,
    );
  });

  test("an undescribed error: a generic message, the cause only to onInternalError", async () => {
    const internal: unknown[] = [];
    const response = await createProbeService(internal).handle(call("<crash/>"));
    const fault = faultOf(String(response.body));
    assert.equal(fault.code, "soapenv:Server.userException");
    assert.doesNotMatch(String(response.body), /ECONNREFUSED|secret|\/var\/|db\.internal|at .*\.ts/);
    assert.equal(internal.length, 1);
    assert.match(String(internal[0]), /ECONNREFUSED/);
  });

  test("a handler result the encoder cannot write is an internal error too", async () => {
    const internal: unknown[] = [];
    const service = createSoapService({
      ...probeOptions(),
      handler: () => ({ rows: [["not a number"]] }),
      onInternalError: (e) => internal.push(e),
    });
    const fault = faultOf(
      String((await service.handle(call("<getNothing><limit>1</limit></getNothing>"))).body),
    );
    assert.match(fault.string, /internal error/);
    assert.ok(internal[0] instanceof SoapError && internal[0].code === "SOAP_INVALID_CELL");
  });

  test(`answers of more than ${rowsPerSlice} rows come as the same envelope's bytes, encoded in slices`, async () => {
    const service = createSoapService({
      ...probeOptions(),
      handler: (_operation, args) => ({
        rows: Array.from({ length: Number(args.limit) }, (_, i) => [i, `sample ${i} — ü`]),
      }),
    });
    const encode = compileQueryBeanEncoder(
      "getNothing",
      probeOperations.find((op) => op.name === "getNothing")!.columns,
      "http://webservices",
      "http://rpc.xml.coldfusion",
    );
    for (const count of [rowsPerSlice, rowsPerSlice + 1, 3 * rowsPerSlice + 7]) {
      const response = await service.handle(call(`<getNothing><limit>${count}</limit></getNothing>`));
      assert.equal(response.status, 200);
      assert.equal(typeof response.body === "string", count <= rowsPerSlice, `${count} rows`);
      const rows = { rows: Array.from({ length: count }, (_, i) => [i, `sample ${i} — ü`]) };
      assert.equal(String(response.body), encode(rows), `${count} rows`);
    }
  });

  test("Client faults for requests that are not XML, not SOAP 1.1, unknown operations; never a crash", async () => {
    const service = createProbeService();
    const cases: Array<[Buffer, RegExp]> = [
      [Buffer.from("not xml at all"), /not well-formed XML/],
      [call("<getSamples><b></getSamples>"), /not well-formed XML/],
      [Buffer.from("<html/>"), /not a SOAP 1\.1 envelope/],
      [call("<dropTables/>"), /"dropTables".*operations are: echoArguments, getSamples/],
      [Buffer.from(`<!DOCTYPE x [<!ENTITY a "b">]><s:Envelope xmlns:s="${env}"/>`), /DOCTYPE/],
      [Buffer.from([0xc3, 0x28]), /not valid UTF-8/],
      [Buffer.alloc(0), /not well-formed XML/],
    ];
    for (const [body, message] of cases) {
      const response = await service.handle(body, "text/xml");
      assert.equal(response.status, 500);
      const fault = faultOf(String(response.body));
      assert.equal(fault.code, "soapenv:Client");
      assert.match(fault.string, message);
      assert.match(fault.string, /[^.]\.$/, "one sentence, one full stop");
      assert.equal(fault.detail.children.length, 0);
    }
  });

  test("the context given to handle reaches the handler; the answer names its operation and fault kind", async () => {
    const seen: unknown[] = [];
    const service = createSoapService<{ baseUrl: string }>({
      ...probeOptions(),
      handler: (operation, _args, context) => {
        seen.push([operation, context.baseUrl]);
        if (operation === "getSamples") throw new Error("unexpected");
        return { rows: [] };
      },
    });
    const ok = await service.handle(call("<getNothing><limit>1</limit></getNothing>"), "text/xml", {
      baseUrl: "http://a.example",
    });
    assert.equal(ok.status, 200);
    assert.equal(ok.operation, "getNothing");
    assert.equal(ok.fault, undefined);
    const failed = await service.handle(call("<getSamples/>"), "text/xml", { baseUrl: "http://b.example" });
    assert.deepEqual([failed.operation, failed.fault], ["getSamples", "server"]);
    const unknown = await service.handle(call("<dropTables/>"), "text/xml", { baseUrl: "http://c.example" });
    assert.deepEqual([unknown.operation, unknown.fault], [undefined, "client"]);
    assert.deepEqual(seen, [
      ["getNothing", "http://a.example"],
      ["getSamples", "http://b.example"],
    ]);
  });

  test("a body over 1 MiB is refused with HTTP 413 and a Client fault, without parsing it", async () => {
    const service = createProbeService();
    const response = await service.handle(Buffer.alloc(requestLimits.maxBodyBytes + 1, 0x3c));
    assert.equal(response.status, 413);
    assert.deepEqual(response, service.tooLarge());
    const fault = faultOf(String(response.body));
    assert.equal(fault.code, "soapenv:Client");
    assert.match(fault.string, /larger than 1048576 bytes \(1 MiB\)/);
  });

  test("clientFault: a Client fault with the HTTP layer's own message and status", () => {
    const response = createProbeService().clientFault("The request body did not arrive within 30 s.", 408);
    assert.equal(response.status, 408);
    assert.equal(response.contentType, "text/xml; charset=utf-8");
    const fault = faultOf(String(response.body));
    assert.deepEqual(
      [fault.code, fault.string],
      ["soapenv:Client", "The request body did not arrive within 30 s."],
    );
    assert.equal(createProbeService().clientFault("x & y").status, 500);
    assert.equal(faultOf(String(createProbeService().clientFault("x & y").body)).string, "x & y");
  });

  test("the WSDL comes from the same table the dispatcher uses", () => {
    const wsdl = parseXmlTree(createProbeService().wsdl("http://127.0.0.1:1/probe"));
    const portType = child(wsdl, "portType");
    assert.deepEqual(
      portType.children.map((op) => op.attributes.name),
      probeOperations.map((op) => op.name),
    );
    const port = child(child(wsdl, "service"), "port");
    assert.equal(port.attributes.name, "InteropProbe.cfc");
  });

  test("a mistake in the operation table is reported at construction, naming it", () => {
    const refused = (change: Partial<SoapServiceOptions>, message: RegExp) =>
      assert.throws(
        () => createSoapService({ ...probeOptions(), ...change }),
        (e: unknown) => e instanceof SoapError && e.code === "SOAP_INVALID_TABLE" && message.test(e.message),
      );
    refused({ operations: [] }, /at least one operation/);
    refused(
      { operations: [probeOperations[0]!, probeOperations[0]!] },
      /operation name "echoArguments" appears twice/,
    );
    refused(
      { operations: [{ name: "bad name", parameters: [], columns: [] }] },
      /"bad name" is not a valid XML name/,
    );
    refused(
      { operations: [{ name: "op", parameters: [{ name: "p", type: "int" as never }], columns: [] }] },
      /op\.p has type "int"; allowed: double, string, anyType/,
    );
    refused(
      { operations: [{ name: "op", parameters: [], columns: [{ name: "c", type: "boolean" as never }] }] },
      /op\.c has type "boolean"; allowed: int, double, string, dateTime/,
    );
    refused({ targetNamespace: 'http://x"y' }, /targetNamespace .* is not a namespace URI/);
  });
});

function probeOptions(): SoapServiceOptions {
  return {
    targetNamespace: "http://webservices",
    portTypeName: "InteropProbe",
    serviceName: "InteropProbeService",
    operations: probeOperations,
    handler: () => ({ rows: [] }),
    describeError: () => undefined,
  };
}

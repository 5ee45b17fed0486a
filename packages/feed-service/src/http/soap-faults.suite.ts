/**
 * Every fault rule of spec §3/§4 through the running service: the shared rules of
 * fault-expectations.ts as Server.userException faults whose message names the parameter, the
 * value and what is allowed, with the typed detail that makes Axis stubs throw
 * ComponentInvocationException; and what only SOAP has: missing parameters, a smart category key
 * and id that disagree, Client faults for what is not a call at all.
 *
 * The suite runs once per backend (SQLite and PostgreSQL): one body, the same assertions.
 *
 * @example
 * soapFaultsSuite(sqliteBackend);
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { faultExpectations } from "../test-support/fault-expectations.js";
import { soapClient } from "../test-support/operation-clients.js";
import {
  type Fixture,
  type RunningService,
  seedFixture,
  startTestService,
} from "../test-support/service-fixture.js";
import { type ArgumentXml, callOperation, postSoap } from "../test-support/soap-test-client.js";
import type { TestBackend } from "../test-support/test-backends.js";

export function soapFaultsSuite(backend: TestBackend): void {
  describe(`SOAP faults (${backend.name})`, () => {
    let service: RunningService;
    let fx: Fixture;

    before(async () => {
      service = await startTestService({ backend });
      fx = await seedFixture(service.store);
    });
    after(() => service.close());

    const userFault = (op: string, args: Record<string, ArgumentXml>, message: string | RegExp) =>
      soapClient(service.baseUrl).fault(op, args, "bad-argument", message);

    faultExpectations(() => ({ client: soapClient(service.baseUrl), fx }));

    test("SOAP only: a missing parameter is a fault, as in ColdFusion", async () => {
      await userFault("getMostRecentPosts", { offset: 0, languageIds: "" }, /The limit argument is required/);
      await userFault("getPostsByFeed", { limit: 1, offset: 0 }, /The feedId argument is required/);
    });

    test("SOAP only: a smart category key and id that name different categories", async () => {
      await userFault(
        "getPostsBySmartCategory",
        {
          limit: 10,
          offset: 0,
          languageIds: "",
          smartCategoryId: fx.smart.id + 1,
          smartCategoryKey: fx.smart.key,
        },
        `The smartCategoryId argument must be 0 or ${fx.smart.id} (the id of the smart category with key "${fx.smart.key}"); got ${fx.smart.id + 1}.`,
      );
    });

    test("what is not a call: unknown operation, malformed XML, not an envelope, DOCTYPE — Client faults", async () => {
      const unknown = await callOperation(service.baseUrl, "dropAllTables", {});
      assert.equal(unknown.status, 500);
      assert.equal(unknown.fault?.code, "soapenv:Client");
      assert.match(unknown.fault!.string, /dropAllTables/);
      const url = `${service.baseUrl}/webservices/FeedAggregator`;
      const malformed = await postSoap(url, "<soapenv:Envelope><unclosed>");
      assert.equal(malformed.status, 500);
      assert.equal(malformed.fault?.code, "soapenv:Client");
      assert.match(malformed.fault!.string, /well-formed/i);
      const notEnvelope = await postSoap(url, "<hello/>");
      assert.equal(notEnvelope.fault?.code, "soapenv:Client");
      const doctype =
        '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>' +
        '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body>' +
        "<getSearchHistory>&lol2;</getSearchHistory></soapenv:Body></soapenv:Envelope>";
      const refused = await postSoap(url, doctype);
      assert.equal(refused.status, 500);
      assert.equal(refused.fault?.code, "soapenv:Client");
      assert.match(refused.fault!.string, /DOCTYPE/i);
      assert.doesNotMatch(refused.body, /lollol/);
    });
  });
}

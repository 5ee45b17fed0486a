import type { BodyElement } from "./envelope-reader.js";
import type { ArgumentValue, OperationSpec, ParameterSpec } from "./service-types.js";
import { SoapError } from "./soap-error.js";

/** A request decoded into the operation it calls and its arguments, coerced by declared type. */
export interface DecodedCall {
  readonly operation: OperationSpec;
  readonly args: Record<string, ArgumentValue>;
}

// xsd:double's lexical space without INF/NaN (XML Schema 1.0 Part 2 §3.2.5): operations need
// finite numbers, so those are refused with the rest.
const xsdDouble = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
// Axis multiRef chains are one hop; a few more allow nested references without risking a loop.
const maxReferenceHops = 8;

/** Shows a received value in a message: quoted, shortened, on one line. */
export function showValue(text: string): string {
  const oneLine = text.replace(/\s+/g, " ");
  return JSON.stringify(oneLine.length > 60 ? `${oneLine.slice(0, 57)}...` : oneLine);
}

function badArgument(parameter: ParameterSpec, message: string): SoapError {
  return new SoapError("SOAP_BAD_ARGUMENT", `The ${parameter.name} argument ${message}`);
}

function resolve(
  element: BodyElement,
  parameter: ParameterSpec,
  multiRefs: () => ReadonlyMap<string, BodyElement>,
): BodyElement {
  let current = element;
  for (let hop = 0; current.href !== undefined; hop++) {
    if (hop === maxReferenceHops) {
      throw new SoapError(
        "SOAP_BAD_REFERENCE",
        `The ${parameter.name} argument follows more than ${maxReferenceHops} href references; a multiRef must hold the value.`,
      );
    }
    const target = multiRefs().get(current.href);
    if (target === undefined) {
      throw new SoapError(
        "SOAP_BAD_REFERENCE",
        `The ${parameter.name} argument refers to href="#${current.href.slice(0, 40)}", but no element in the Body has that id.`,
      );
    }
    current = target;
  }
  return current;
}

const base64Text = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The text of a base64-typed value, read as the UTF-8 bytes it encodes. */
function decodeBase64(parameter: ParameterSpec, text: string): string {
  if (!base64Text.test(text)) {
    throw badArgument(parameter, `is typed base64Binary but is not base64; got ${showValue(text)}.`);
  }
  try {
    return utf8.decode(Buffer.from(text, "base64"));
  } catch {
    throw badArgument(parameter, "is typed base64Binary, but its bytes are not UTF-8 text.");
  }
}

function coerce(parameter: ParameterSpec, element: BodyElement): ArgumentValue {
  if (element.children.length > 0) {
    throw badArgument(
      parameter,
      `must be a single ${parameter.type === "double" ? "number" : "value"}; got an element with child elements (a struct or an array).`,
    );
  }
  const received = element.base64 && !element.nil ? decodeBase64(parameter, element.text) : element.text;
  switch (parameter.type) {
    case "string":
      // ColdFusion passes a nil string argument as "" (spec §3 Requests).
      return element.nil ? "" : received;
    case "anyType": {
      if (element.nil) return null;
      const text = received.trim();
      return text === "" ? null : text;
    }
    case "double": {
      if (element.nil) throw badArgument(parameter, "must be a number (xsd:double); got nil.");
      const text = received.trim();
      if (!xsdDouble.test(text)) {
        throw badArgument(
          parameter,
          `must be a number (xsd:double, e.g. 10, 2.5 or 1e3); got ${showValue(text)}.`,
        );
      }
      const value = Number(text);
      if (!Number.isFinite(value)) {
        throw badArgument(parameter, `must be a finite number; got ${showValue(text)}.`);
      }
      return value;
    }
  }
}

/**
 * Finds the call in a Body and decodes its arguments (SOAP 1.1 §7.1 RPC, §5 encoding).
 *
 * - The call is the first Body child not marked `soapenc:root="0"`; it is dispatched by local
 *   name (clients disagree on its namespace, so the namespace is not checked).
 * - Parameters are matched by name; when no child carries a declared name (SOAP::Lite's raw API
 *   sends `c-gensym3`, some toolkits `arg0`), by position. Extra children are ignored.
 * - `href="#id"` is resolved against the Body's elements carrying that `id` (Axis multiRefs),
 *   in any order.
 * - A parameter that is not sent at all is `undefined`; the operation decides whether it is needed.
 *
 * @example
 * const { operation, args } = decodeCall(readEnvelope(xml), operationsByName);
 */
export function decodeCall(
  bodyChildren: readonly BodyElement[],
  operations: ReadonlyMap<string, OperationSpec>,
): DecodedCall {
  const call = bodyChildren.find((element) => !element.notRoot);
  if (call === undefined) {
    throw new SoapError("SOAP_NOT_ENVELOPE", "The request's Body holds no call element.");
  }
  const operation = operations.get(call.local);
  if (operation === undefined) {
    const names = [...operations.keys()].join(", ");
    throw new SoapError(
      "SOAP_UNKNOWN_OPERATION",
      `The request calls ${showValue(call.local)}, which this service does not offer; its operations are: ${names}.`,
    );
  }

  let byId: Map<string, BodyElement> | undefined;
  const multiRefs = () => {
    if (byId === undefined) {
      byId = new Map();
      for (const element of bodyChildren) if (element.id !== undefined) byId.set(element.id, element);
    }
    return byId;
  };

  const args: Record<string, ArgumentValue> = {};
  const sent = call.nil ? [] : call.children;
  const parameters = operation.parameters;
  // A client that names any parameter as declared is matched by name (and its other elements are
  // extras to ignore); one that names none (arg0, c-gensym3, ...) is matched by position.
  const byName = sent.some((child) => parameters.some((p) => p.name === child.local));
  for (let i = 0; i < parameters.length; i++) {
    const parameter = parameters[i]!;
    const element = byName ? sent.find((child) => child.local === parameter.name) : sent[i];
    args[parameter.name] =
      element === undefined ? undefined : coerce(parameter, resolve(element, parameter, multiRefs));
  }
  return { operation, args };
}

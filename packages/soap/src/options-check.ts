import { COLDFUSION_RPC_NS } from "./namespaces.js";
import type { ColumnType, ParameterType, SoapServiceOptions } from "./service-types.js";
import { SoapError } from "./soap-error.js";
import type { WsdlNames } from "./wsdl-writer.js";

// Names become element and attribute names as they are: an ASCII NCName (XML Namespaces §3)
// keeps them valid in every client's language binding too.
const ncName = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
const namespaceUri = /^[^\s"'<>&]+$/;
const parameterTypes: ReadonlySet<ParameterType> = new Set(["double", "string", "anyType"]);
const columnTypes: ReadonlySet<ColumnType> = new Set(["int", "double", "string", "dateTime"]);

function invalid(message: string): SoapError {
  return new SoapError("SOAP_INVALID_TABLE", message);
}

function checkName(what: string, name: string): void {
  if (typeof name !== "string" || !ncName.test(name)) {
    throw invalid(`The ${what} ${JSON.stringify(name)} is not a valid XML name (letters, digits, _ . -).`);
  }
}

function checkNamespace(what: string, uri: string): void {
  if (typeof uri !== "string" || !namespaceUri.test(uri)) {
    throw invalid(`The ${what} ${JSON.stringify(uri)} is not a namespace URI (no spaces, quotes, < > or &).`);
  }
}

function checkUnique(what: string, names: readonly string[]): void {
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) throw invalid(`The ${what} ${JSON.stringify(name)} appears twice.`);
    seen.add(name);
  }
}

/**
 * Checks a service's options once, at construction, so that a mistake in the operation table
 * is reported where it is made and not as a broken WSDL in some client. Returns the WSDL names
 * with their defaults filled in.
 */
// `never`: the check reads the options, never calls the handler, so any context type fits.
export function checkServiceOptions(options: SoapServiceOptions<never>): WsdlNames {
  const names: WsdlNames = {
    targetNamespace: options.targetNamespace,
    rpcNamespace: options.rpcNamespace ?? COLDFUSION_RPC_NS,
    portTypeName: options.portTypeName,
    serviceName: options.serviceName,
    bindingName: options.bindingName ?? `${options.portTypeName}.cfcSoapBinding`,
    portName: options.portName ?? `${options.portTypeName}.cfc`,
  };
  checkNamespace("targetNamespace", names.targetNamespace);
  checkNamespace("rpcNamespace", names.rpcNamespace);
  checkName("portTypeName", names.portTypeName);
  checkName("serviceName", names.serviceName);
  checkName("bindingName", names.bindingName);
  checkName("portName", names.portName);
  if (typeof options.handler !== "function") throw invalid("The handler option must be a function.");
  if (typeof options.describeError !== "function")
    throw invalid("The describeError option must be a function.");
  const operations = options.operations;
  // Checked as unknown: narrowing the readonly array with Array.isArray would widen it to any[].
  if (!Array.isArray(operations as unknown) || operations.length === 0) {
    throw invalid("The operations option must list at least one operation.");
  }
  checkUnique(
    "operation name",
    operations.map((op) => op.name),
  );
  for (const op of operations) {
    checkName("operation name", op.name);
    checkUnique(
      `parameter name of ${op.name}`,
      op.parameters.map((p) => p.name),
    );
    for (const p of op.parameters) {
      checkName(`parameter name of ${op.name}`, p.name);
      if (!parameterTypes.has(p.type)) {
        throw invalid(
          `Parameter ${op.name}.${p.name} has type ${JSON.stringify(p.type)}; allowed: double, string, anyType.`,
        );
      }
    }
    for (const c of op.columns) {
      if (typeof c.name !== "string" || c.name === "") throw invalid(`A column of ${op.name} has no name.`);
      if (!columnTypes.has(c.type)) {
        throw invalid(
          `Column ${op.name}.${c.name} has type ${JSON.stringify(c.type)}; allowed: int, double, string, dateTime.`,
        );
      }
    }
    const memo = op.rowMemo;
    if (memo !== undefined) {
      if (!Number.isInteger(memo.cells) || memo.cells < 1 || memo.cells > op.columns.length) {
        throw invalid(
          `The row memo of ${op.name} keeps ${memo.cells} cells; it must keep 1 to ${op.columns.length} (its columns).`,
        );
      }
      if (!Number.isInteger(memo.maxRows) || memo.maxRows < 1) {
        throw invalid(`The row memo of ${op.name} must keep at least 1 row; got ${memo.maxRows}.`);
      }
    }
  }
  return names;
}

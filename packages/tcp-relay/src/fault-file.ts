import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { FAULT_KINDS, FAULT_SYNTAX, type Fault, type FaultKind, parseFault } from "./fault-spec.js";
import { RelayError } from "./relay-error.js";

/**
 * Reads `-faults <file>`: the fault options as JSON, each option's name (without the dash) with
 * its value as on the command line, or a list of values to give it several times:
 *
 *     { "delay": "c2s:200±10", "limit": ["s2c:10000@3", "c2s:500"], "refuse": "@5" }
 *
 * Anything else (another key, a value that is not a string) is refused with the file's name.
 */
export async function readFaultFile(file: string): Promise<Fault[]> {
  const path = resolve(file);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "read failed";
    throw new RelayError("TCP_RELAY_FAULTS_FILE", `cannot read the faults file ${path} (${code})`, {
      cause: error,
    });
  }
  return parseFaultFile(text, path);
}

/** The faults of a `-faults` file's text; `path` names the file in the errors. */
export function parseFaultFile(text: string, path: string): Fault[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new RelayError(
      "TCP_RELAY_FAULTS_FILE",
      `the faults file ${path} is not JSON (${(error as Error).message})`,
    );
  }
  const shape = `an object such as {"delay": "c2s:200±10", "limit": ["s2c:10000"]} with the keys ${FAULT_KINDS.join(", ")}`;
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new RelayError("TCP_RELAY_FAULTS_FILE", `the faults file ${path} must hold ${shape}`);
  }
  const faults: Fault[] = [];
  for (const [key, value] of Object.entries(json)) {
    if (!FAULT_KINDS.includes(key as FaultKind)) {
      throw new RelayError(
        "TCP_RELAY_FAULTS_FILE",
        `the faults file ${path} has an unknown key "${key}" (allowed: ${FAULT_KINDS.join(", ")})`,
      );
    }
    const values: unknown[] = Array.isArray(value) ? value : [value];
    for (const v of values) {
      if (typeof v !== "string") {
        throw new RelayError(
          "TCP_RELAY_FAULTS_FILE",
          `the faults file ${path}: "${key}" takes a string ${FAULT_SYNTAX[key as FaultKind]} or a list of them; got ${JSON.stringify(v)}`,
        );
      }
      try {
        faults.push(parseFault(`-${key}`, v));
      } catch (error) {
        throw new RelayError("TCP_RELAY_FAULTS_FILE", `the faults file ${path}: ${(error as Error).message}`);
      }
    }
  }
  return faults;
}

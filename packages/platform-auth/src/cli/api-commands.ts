import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { PlatformAuthError } from "../errors.js";
import { runTestCall } from "../global-classes.js";
import { formatClassTable } from "./class-table.js";
import type { CliIo } from "./cli-io.js";
import { createCliClient, parseCommand } from "./cli-options.js";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];

/** `test [--json]`: the global-classes call; exit 0 only when the credentials work. */
export async function testCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseCommand("test", args, { json: { type: "boolean" } });
  const client = createCliClient(values, io);
  try {
    const page = await runTestCall(client);
    if (values.json) {
      io.stdout(`${JSON.stringify(page, null, 2)}\n`);
    } else {
      const s = client.describe();
      io.stdout(`${formatClassTable(page.results ?? [])}\n`);
      const more = page._page?.next ? "; more follow (use: call GET … --all)" : "";
      io.stderr(
        `credentials work: ${page.results?.length ?? 0} global classes listed for org ${s.orgId}, sandbox ${s.sandbox ?? "default"}${more}\n`,
      );
    }
    return 0;
  } finally {
    await client.close();
  }
}

/** `call <METHOD> <path> [--accept t] [-H 'Name: value']... [--data json|@file] [--all]`. */
export async function callCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommand("call", args, {
    accept: { type: "string" },
    header: { type: "string", short: "H", multiple: true },
    data: { type: "string" },
    all: { type: "boolean" },
  });
  const [methodArg, path, ...extra] = positionals;
  if (!methodArg || !path || extra.length > 0) {
    throw new PlatformAuthError(
      "PA_USAGE",
      "call: expected <METHOD> <path>, e.g. call GET /data/foundation/schemaregistry/global/classes",
    );
  }
  const method = methodArg.toUpperCase();
  if (!METHODS.includes(method)) {
    throw new PlatformAuthError(
      "PA_USAGE",
      `call: method ${JSON.stringify(methodArg)} is not allowed; use ${METHODS.join(", ")}`,
    );
  }
  if (!path.startsWith("/"))
    throw new PlatformAuthError("PA_USAGE", `call: path ${JSON.stringify(path)} must start with "/"`);
  const headers: Record<string, string> = {
    accept: (values.accept as string | undefined) ?? "application/json",
  };
  for (const h of (values.header as string[] | undefined) ?? []) {
    const at = h.indexOf(":");
    if (at <= 0)
      throw new PlatformAuthError(
        "PA_USAGE",
        `call: header ${JSON.stringify(h)} must look like 'Name: value'`,
      );
    headers[h.slice(0, at).trim().toLowerCase()] = h.slice(at + 1).trim();
  }
  const body = values.data === undefined ? undefined : readData(values.data as string, io.cwd);
  if (body !== undefined) headers["content-type"] ??= "application/json";
  if (values.all && method !== "GET")
    throw new PlatformAuthError("PA_USAGE", "call: --all follows pages of a GET only");

  const client = createCliClient(values, io);
  try {
    if (values.all) {
      const records = await client.all(path, { headers });
      io.stdout(`${JSON.stringify(records, null, 2)}\n`);
      return 0;
    }
    const res = await client.fetch(path, { method, headers, body });
    const text = await res.text();
    if (!res.ok) throw await client.errorFrom(res, text, method, path);
    io.stdout(text.endsWith("\n") || text === "" ? text : `${text}\n`);
    return 0;
  } finally {
    await client.close();
  }
}

function readData(data: string, cwd: string): string {
  let text = data;
  if (data.startsWith("@")) {
    try {
      text = readFileSync(resolve(cwd, data.slice(1)), "utf8");
    } catch {
      throw new PlatformAuthError("PA_USAGE", `call: --data file ${data.slice(1)} could not be read`);
    }
  }
  try {
    JSON.parse(text);
  } catch (err) {
    throw new PlatformAuthError("PA_USAGE", `call: --data is not valid JSON (${(err as Error).message})`);
  }
  return text;
}

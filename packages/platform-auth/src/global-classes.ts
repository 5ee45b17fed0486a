import type { PlatformClient } from "./platform-client.js";

export const GLOBAL_CLASSES_PATH = "/data/foundation/schemaregistry/global/classes";
export const XED_ID_JSON = "application/vnd.adobe.xed-id+json";
export const XED_FULL_JSON = "application/vnd.adobe.xed+json";

export interface GlobalClass {
  title: string;
  $id: string;
  "meta:altId": string;
  version: string;
}

export interface GlobalClassesPage {
  results: GlobalClass[];
  _page?: { orderby?: string; next?: string | null; count?: number };
  _links?: { next?: { href: string } };
}

/**
 * The platform's own credential check: one `GET …/global/classes` (up to 300 records). It succeeds
 * only when the token, API key, org and sandbox all fit together.
 *
 * @example
 * const page = await runTestCall(client);
 * console.log(page.results.map((c) => c.title));
 */
export function runTestCall(
  client: PlatformClient,
  opts: { full?: boolean } = {},
): Promise<GlobalClassesPage> {
  return client.json<GlobalClassesPage>(GLOBAL_CLASSES_PATH, {
    headers: { accept: opts.full ? XED_FULL_JSON : XED_ID_JSON },
  });
}

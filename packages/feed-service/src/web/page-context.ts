/**
 * What a page renderer is given: the request as plain data and the service it may call. Renderers
 * call operations through the runner only (the same rules and messages as every other adapter)
 * and answer Html; the page route turns thrown FeedServiceErrors into error pages.
 */
import type { OperationRecord } from "../operations/column-sets.js";
import type { OperationRunner } from "../operations/operation-runner.js";
import type { AssetCatalog } from "./asset-catalog.js";
import type { Html } from "./html.js";

export interface PageRequest {
  /** The path asked for, without the query (links to other pages of the same list keep it). */
  readonly path: string;
  readonly query: URLSearchParams;
  /** Route parameters, e.g. `{ categoryId: "3" }`. */
  readonly params: Readonly<Record<string, string>>;
}

export interface PageContext {
  readonly runner: OperationRunner;
  /** Absolute base URL of the service for this request (tracking links in the records). */
  readonly baseUrl: string;
  /** The clock of this request, in epoch milliseconds (relative times). */
  readonly now: number;
  readonly assets: AssetCatalog;
  /** The site's name (`--site-name`), in every page's title and header. */
  readonly siteName: string;
}

/** A page: the status is 200 unless the renderer says otherwise. */
export interface RenderedPage {
  readonly body: Html;
  /** Pages that record something (search history) must not be cached on the way. */
  readonly cacheable?: boolean;
}

export type PageRenderer = (request: PageRequest, context: PageContext) => Promise<RenderedPage>;

/** Calls one operation with this request's base URL. */
export function callOperation(
  context: PageContext,
  operation: string,
  args: Readonly<Record<string, string | number>>,
): Promise<readonly OperationRecord[]> {
  return context.runner.call(operation, args, { baseUrl: context.baseUrl });
}

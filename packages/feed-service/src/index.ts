/**
 * The feed service as a library: the operation table and its runner (what every adapter calls),
 * the HTTP server with the SOAP endpoint, the store, the demo corpus, and the CLI entry point.
 *
 * @example
 * import { createFeedServer, createOperationRunner, openStore, parseSearchQuery } from "@feed-toolkit/feed-service";
 * const store = await openStore("./data/feeds.db");
 * const runner = createOperationRunner({ store, parseSearch: parseSearchQuery });
 * await createFeedServer({ store, runner }).listen(8080, "0.0.0.0");
 */
export { main, usage } from "./cli.js";
export { type DemoOptions, type DemoSummary, loadDemoData } from "./demo/load-demo-data.js";
export {
  type ErrorCodeInfo,
  FeedServiceError,
  type FeedServiceErrorCode,
  feedServiceErrorCodes,
} from "./errors.js";
export { createFeedServer, type FeedServer, type FeedServerOptions, soapPaths } from "./http/feed-server.js";
export {
  createOperationRunner,
  describeOperationError,
  type OperationRunner,
  type OperationRunnerOptions,
} from "./operations/operation-runner.js";
export { type FeedOperation, operationTable } from "./operations/operation-table.js";
export { parseSearchQuery } from "./search/parse-search-query.js";
export type { SearchQuery, SearchTerm } from "./search/search-query.js";
export { openStore } from "./store/open-store.js";
export type { Store } from "./store/store.js";

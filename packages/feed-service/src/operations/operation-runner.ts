/**
 * Runs operations of the table against one store: the single entry point every adapter calls
 * (SOAP, JSON, output feeds, pages), so that all of them share the same rules.
 */
import type { Arguments, OperationSpec } from "@feed-toolkit/soap";
import { FeedServiceError } from "../errors.js";
import type { SearchQuery } from "../search/search-query.js";
import type { Store } from "../store/store.js";
import type { OperationRecord } from "./column-sets.js";
import { type FeedOperation, operationsByName, operationTable } from "./operation-table.js";
import { createPageReads, type PageReads } from "./page-reads.js";

export interface OperationRunnerOptions {
  readonly store: Store;
  /** Parses the search syntax of spec §4 (operation 1) into the backend-neutral query. */
  readonly parseSearch: (terms: string) => SearchQuery;
  /** The clock, in epoch milliseconds; pinned in tests. */
  readonly now?: () => number;
}

/** What an adapter knows about the one call it is making, passed along with the arguments. */
export interface CallContext {
  /** Absolute base URL without a trailing slash that tracking links start with. */
  readonly baseUrl: string;
}

export interface OperationRunner {
  /** The table's rows as the SOAP package reads them (name, parameters, columns, row memo). */
  readonly specs: readonly OperationSpec[];
  /**
   * Runs one operation and answers its records (keys: the operation's column names). Throws
   * FeedServiceError for bad arguments and ids that name nothing.
   *
   * @example
   * const posts = await runner.call("getMostRecentPosts", { limit: 20, offset: 0, languageIds: "" },
   *   { baseUrl: "http://localhost:8080" });
   */
  call(operation: string, args: Arguments, context: CallContext): Promise<readonly OperationRecord[]>;
  /** Whether answers of this operation may be reused while the data is unchanged (see FeedOperation.pure). */
  isPure(operation: string): boolean;
  /** The table row of an operation (name, parameters, columns, purity), or undefined. */
  operation(name: string): FeedOperation | undefined;
  /** What the web pages read beside the operations (no other adapter sees it): see page-reads.ts. */
  readonly pageReads: PageReads;
}

export function createOperationRunner(options: OperationRunnerOptions): OperationRunner {
  const now = options.now ?? Date.now;
  return {
    specs: operationTable.map(({ name, parameters, columns, rowMemo }) =>
      rowMemo === undefined ? { name, parameters, columns } : { name, parameters, columns, rowMemo },
    ),
    async call(operation, args, { baseUrl }) {
      const op = operationsByName.get(operation);
      if (!op) {
        throw new FeedServiceError(
          "FEED_BAD_ARGUMENT",
          `There is no operation named ${JSON.stringify(operation)}; the operations are ${[...operationsByName.keys()].join(", ")}.`,
        );
      }
      return op.run(args, { store: options.store, now: now(), baseUrl, parseSearch: options.parseSearch });
    },
    isPure: (operation) => operationsByName.get(operation)?.pure === true,
    operation: (name) => operationsByName.get(name),
    pageReads: createPageReads(options.store, options.parseSearch),
  };
}

/**
 * The message a remote client may see for an error raised by an operation, or undefined when the
 * error is not meant for it (a bug, a driver error: those could hold SQL or paths, so the adapter
 * sends a generic message instead).
 */
export function describeOperationError(error: unknown): string | undefined {
  if (!(error instanceof FeedServiceError)) return undefined;
  if (error.code === "FEED_STORE_UNAVAILABLE") return "The database is not answering; try again later.";
  return error.message;
}

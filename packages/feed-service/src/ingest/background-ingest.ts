/**
 * The ingest that `serve` runs in the background, and the one-line summary of a pass that both it
 * and `feed-service ingest` print.
 */

import type { Output } from "../console-output.js";
import { FeedServiceError } from "../errors.js";
import type { Store } from "../store/store.js";
import type { IngestPassOptions, IngestSummary } from "./ingest-pass.js";
import { IngestScheduler } from "./ingest-scheduler.js";

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** The summary for people: one line of counts, then one line per failing feed. */
export function formatIngestSummary(s: IngestSummary): string {
  const lines = [
    `ingest: ${s.feeds} feed${s.feeds === 1 ? "" : "s"}: ${s.updated} updated, ${s.notModified} not modified, ` +
      `${s.failed} failed, ${s.deferred} deferred${s.claimLost > 0 ? `, ${s.claimLost} taken by another worker` : ""}` +
      `${s.stopped > 0 ? `, ${s.stopped} stopped` : ""}; ` +
      `${s.postsInserted} new posts, ${s.postsUpdated} updated posts in ${seconds(s.durationMs)}`,
  ];
  for (const f of s.failures) lines.push(`  feed ${f.feedId} ${f.feedUrl}: ${f.error}`);
  return `${lines.join("\n")}\n`;
}

/**
 * The scheduler `serve` runs unless --no-ingest: a pass over due feeds every minute, a one-line
 * log of each pass that did something.
 *
 * @example
 * const scheduler = startBackgroundIngest(store, context.output);
 * // ... on shutdown:
 * await scheduler.stop();
 */
export function startBackgroundIngest(
  store: Store,
  output: Output,
  /** Also told of every pass (serve counts refreshes and new posts for /metrics). */
  onPass?: (summary: IngestSummary) => void,
  /** The fetcher's options (serve: public addresses only unless --allow-private-fetch). */
  fetch?: IngestPassOptions["fetch"],
): IngestScheduler {
  const scheduler = new IngestScheduler(store, {
    fetch,
    onPass: (s) => {
      onPass?.(s);
      if (s.feeds > 0) output.out(formatIngestSummary(s));
    },
    onError: (error) =>
      output.err(
        `feed-service: ingest pass failed: ${error instanceof FeedServiceError ? error.message : "unexpected error"}\n`,
      ),
  });
  scheduler.start();
  return scheduler;
}

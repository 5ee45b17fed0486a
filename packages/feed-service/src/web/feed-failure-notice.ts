/**
 * What a reader is told about a feed whose refreshes fail: since when it has not been updated, a
 * plain reason for the failure's stable code (ingest/failure-codes.ts), and the code itself. The
 * stored message is for administrators and never shown here: it may name the hosts a redirect led
 * to or the service's own internals, and a public page names nothing beyond the feed's own URL.
 */
import type { FailureCode } from "../ingest/failure-codes.js";
import type { FeedFailureRecord } from "../store/store.js";
import { dateElement, plural, timeElement } from "./display-format.js";
import { type Html, html } from "./html.js";

/** One reason per code, for readers: tsc fails when a new code has none. */
const reasons = {
  FETCH_TIMEOUT: "its server takes too long to answer",
  DNS: "its server's name cannot be found",
  CONNECTION_REFUSED: "its server refuses connections",
  CONNECTION_RESET: "its server drops the connection part-way",
  TLS: "its secure connection fails (an expired or mismatched certificate)",
  TOO_LARGE: "it is larger than the 10 MiB a feed may be",
  BAD_COMPRESSION: "its server sends a damaged compressed file",
  BAD_URL: "its address, or one it redirects to, is not a web address",
  ADDRESS_REFUSED: "its address is a private one this site does not fetch",
  FETCH_FAILED: "its server cannot be reached",
  HTTP_401: "its server asks for a password",
  HTTP_403: "its server refuses access",
  HTTP_404: "there is no feed at its address any more",
  HTTP_410: "its publisher has removed it for good",
  HTTP_429: "its server asks for fewer requests",
  HTTP_4XX: "its server refuses the request",
  HTTP_5XX: "its server reports an error of its own",
  TOO_MANY_REDIRECTS: "its address redirects too many times",
  BAD_REDIRECT: "its server answers with an unusable redirect",
  NOT_TEXT: "its address serves a file that is not a feed (an image or an archive)",
  PARSE_NOT_A_FEED: "its address serves a web page, not a feed",
  PARSE_MALFORMED: "its XML or JSON is damaged beyond repair",
  PARSE_FAILED: "it cannot be read",
  STORE_FAILED: "its posts cannot be saved here",
  INTERNAL: "of an unexpected error on this site",
} as const satisfies Record<FailureCode, string>;

/** The reason for a stored code; a code this version does not know gets a generic one. */
export function failureReason(code: string | null): string {
  return code !== null && Object.hasOwn(reasons, code)
    ? reasons[code as FailureCode]
    : "of an error while reading it";
}

/** The one-line summary for the feed list's marker (a tooltip). */
export function failureSummary(failure: FeedFailureRecord): string {
  return `Not updated: ${failureReason(failure.lastErrorCode)}${failure.lastErrorCode ? ` (${failure.lastErrorCode})` : ""}.`;
}

/**
 * The notice at the top of a failing feed's page.
 *
 * @example
 * failureNotice(failure, Date.now()); // "This feed has not been updated since 3 Jan 2026: ..."
 */
export function failureNotice(failure: FeedFailureRecord, now: number): Html {
  const code = failure.lastErrorCode ? html` (<code>${failure.lastErrorCode}</code>)` : "";
  const since =
    failure.lastSuccessAt === null
      ? html`This feed could never be read`
      : html`This feed has not been updated since ${dateElement(failure.lastSuccessAt)}`;
  const attempts =
    failure.errorCount === 1
      ? html`The last attempt failed ${timeElement(failure.lastErrorAt, now)}`
      : html`The last ${plural(failure.errorCount, "attempt")} failed, the latest ${timeElement(failure.lastErrorAt, now)}`;
  return html`<div class="notice failing" role="note">
<p><strong>${since}</strong>, because ${failureReason(failure.lastErrorCode)}${code}.</p>
<p>${attempts}; it will be tried again.</p>
</div>`;
}

/**
 * The page for a failed request: FeedServiceError codes become the statuses of the JSON API
 * (spec §5.1) with a page a person can act on. Bad arguments show the §3 message (it names the
 * argument, the value and what is allowed); unknown ids a 404; an overloaded or unreachable
 * database a 503 with Retry-After; anything else a generic 500 that never shows a stack, a path
 * or SQL.
 */
import { FeedServiceError } from "../../errors.js";
import { retryAfterSeconds } from "../../http/problem-details.js";
import { describeOperationError } from "../../operations/operation-runner.js";
import { plural } from "../display-format.js";
import type { Html } from "../html.js";
import { html } from "../html.js";
import type { PageContext } from "../page-context.js";
import { pageDocument } from "../page-layout.js";

export interface ErrorPage {
  readonly status: number;
  readonly body: Html;
  /** Seconds a client should wait before retrying (503 only). */
  readonly retryAfterSeconds?: number;
}

function describe(error: unknown): {
  status: number;
  title: string;
  message: string;
  retryAfterSeconds?: number;
} {
  if (error instanceof FeedServiceError) {
    const message = describeOperationError(error) ?? "";
    switch (error.code) {
      case "FEED_BAD_ARGUMENT":
        return { status: 400, title: "This address asks for something the service cannot show", message };
      case "FEED_NOT_FOUND":
        return { status: 404, title: "Not found", message };
      case "FEED_OVERLOADED":
      case "FEED_QUERY_TIMEOUT":
      case "FEED_STORE_UNAVAILABLE":
        // The same waits as the JSON API's and the feeds' 503 answers.
        return {
          status: 503,
          title: "Busy right now",
          message,
          retryAfterSeconds: retryAfterSeconds[error.code],
        };
    }
  }
  return {
    status: 500,
    title: "Something went wrong",
    message: "The server failed to answer this request. Please try again later.",
  };
}

export function errorPage(error: unknown, context: PageContext): ErrorPage {
  const { status, title, message, retryAfterSeconds } = describe(error);
  return {
    status,
    retryAfterSeconds,
    body: pageDocument(
      {
        title,
        section: "none",
        main: html`<h1>${title}</h1>
<p class="error-message">${message}</p>
${retryAfterSeconds !== undefined && html`<p>Please try again in ${plural(retryAfterSeconds, "second")}.</p>`}
<p><a href="/">Back to the recent posts</a></p>`,
      },
      context,
    ),
  };
}

/** The 404 page for an address no route serves. */
export function notFoundPage(context: PageContext): ErrorPage {
  return errorPage(new FeedServiceError("FEED_NOT_FOUND", "No page lives at this address."), context);
}

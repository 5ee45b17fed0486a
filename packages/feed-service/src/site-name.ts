/**
 * The site's name (`--site-name`): in the title of every output feed and page, the page header and
 * the OpenSearch description, so that a reader's subscriptions and a browser's search engines say
 * whose they are.
 */
import { badArgument } from "./errors.js";

export const defaultSiteName = "Feed aggregator";
export const maxSiteNameLength = 100;

/**
 * The name as given, trimmed; a clear error for an empty or overlong one, or one holding control
 * characters (it goes into titles and XML).
 *
 * @example
 * readSiteName("  Planet Node  "); // "Planet Node"
 */
export function readSiteName(text: string, label = "The site name"): string {
  const name = text.trim();
  if (name === "" || name.length > maxSiteNameLength || /[\u0000-\u001f\u007f]/.test(name)) {
    throw badArgument(
      `${label} must be 1 to ${maxSiteNameLength} characters of text without control characters; got ${JSON.stringify(text.slice(0, 120))}.`,
    );
  }
  return name;
}

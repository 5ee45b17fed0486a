/**
 * How pages show numbers and instants: counts with thousands separators, instants as a short
 * relative time ("3 h ago") with the exact UTC time in `datetime` and in the tooltip.
 */
import { type Html, html } from "./html.js";

const counts = new Intl.NumberFormat("en");
const day = 86_400_000;
const dates = new Intl.DateTimeFormat("en-GB", {
  day: "numeric",
  month: "short",
  year: "numeric",
  timeZone: "UTC",
});

/** @example formatCount(1234567); // "1,234,567" */
export function formatCount(n: number): string {
  return counts.format(n);
}

/** `1 post`, `2 posts`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

/**
 * The age of an instant as a person says it, relative to `now`.
 *
 * @example relativeTime(now - 90 * 60_000, now); // "1 h ago"
 */
export function relativeTime(at: number, now: number): string {
  const ago = now - at;
  if (ago < 0) return dates.format(at);
  if (ago < 60_000) return "just now";
  if (ago < 3_600_000) return `${Math.floor(ago / 60_000)} min ago`;
  if (ago < day) return `${Math.floor(ago / 3_600_000)} h ago`;
  if (ago < 30 * day) return `${Math.floor(ago / day)} d ago`;
  return dates.format(at);
}

/** The exact instant in UTC, as `2026-01-15 12:00 UTC`. */
export function utcText(at: number): string {
  return `${new Date(at).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** A `<time>` element showing the UTC day (`3 Jan 2026`), the exact UTC time as its tooltip. */
export function dateElement(at: number): Html {
  return html`<time datetime="${new Date(at).toISOString()}" title="${utcText(at)}">${dates.format(at)}</time>`;
}

/** A `<time>` element: relative text, ISO 8601 in `datetime`, the exact UTC time as its tooltip. */
export function timeElement(at: number | null, now: number): Html {
  if (at === null) return html`<span class="muted">never</span>`;
  return html`<time datetime="${new Date(at).toISOString()}" title="${utcText(at)}">${relativeTime(at, now)}</time>`;
}

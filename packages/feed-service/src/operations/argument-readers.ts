/**
 * Argument validation for the 16 operations (spec §4 "Shared parameter rules"). Every reader takes
 * the decoded arguments of one call and either returns the value in the form the store wants or
 * throws a FeedServiceError whose message names the parameter, the value received and what is
 * allowed, e.g. `The limit argument must be a whole number from 0 to 1000; got -1.`
 */
import type { Arguments, ArgumentValue } from "@feed-toolkit/soap";
import { badArgument } from "../errors.js";
import type { SearchSort } from "../store/store.js";

export const maxLimit = 1000;
export const maxDaysBack = 36_500;
export const maxLanguageIds = 100;
export const maxSearchTermsLength = 256;

/** The received value as a person reads it: numbers bare, text quoted and cut short. */
export function describeValue(value: ArgumentValue): string {
  if (value === null) return "nil";
  if (value === undefined) return "nothing";
  if (typeof value === "number") return String(value);
  const shown = value.length > 60 ? `${value.slice(0, 57)}...` : value;
  return JSON.stringify(shown);
}

/** A missing parameter is a fault, as in ColdFusion (spec §4). */
function required(args: Arguments, name: string, allowed: string): ArgumentValue {
  const value = args[name];
  if (value === undefined) {
    throw badArgument(`The ${name} argument is required (${allowed}) but was not sent.`);
  }
  return value;
}

/** A number sent as a double; text holding a number is accepted too, whatever the decoder hands us. */
function asNumber(value: ArgumentValue): number | undefined {
  if (typeof value === "number") return value;
  if (typeof value === "string" && value.trim() !== "") {
    const n = Number(value.trim());
    return Number.isNaN(n) ? undefined : n;
  }
  return undefined;
}

function wholeNumberInRange(
  args: Arguments,
  name: string,
  min: number,
  max: number,
  allowed: string,
): number {
  const value = required(args, name, allowed);
  const n = asNumber(value);
  if (n === undefined || !Number.isInteger(n) || n < min || n > max) {
    throw badArgument(`The ${name} argument must be ${allowed}; got ${describeValue(value)}.`);
  }
  return n;
}

export function readLimit(args: Arguments): number {
  return wholeNumberInRange(args, "limit", 0, maxLimit, `a whole number from 0 to ${maxLimit}`);
}

export function readOffset(args: Arguments): number {
  return wholeNumberInRange(args, "offset", 0, Number.MAX_SAFE_INTEGER, "a whole number of 0 or more");
}

/** An id declared `double`: a whole number. Whether it names something is the caller's check. */
export function readId(args: Arguments, name: string): number {
  return wholeNumberInRange(
    args,
    name,
    Number.MIN_SAFE_INTEGER,
    Number.MAX_SAFE_INTEGER,
    "a whole number (an id)",
  );
}

/** `daysBack`: a number > 0 and ≤ 36500; fractions allowed. Returns the window in milliseconds. */
export function readDaysBackMs(args: Arguments): number {
  const allowed = `a number of days greater than 0 and at most ${maxDaysBack} (fractions allowed, 0.5 = 12 hours)`;
  const value = required(args, "daysBack", allowed);
  const n = asNumber(value);
  if (n === undefined || !Number.isFinite(n) || n <= 0 || n > maxDaysBack) {
    throw badArgument(`The daysBack argument must be ${allowed}; got ${describeValue(value)}.`);
  }
  return n * 86_400_000;
}

/** `languageIds`: empty or blank = every language (null); else up to 100 comma-separated whole numbers. */
export function readLanguageIds(args: Arguments): number[] | null {
  const allowed = `empty (every language) or a comma-separated list of at most ${maxLanguageIds} whole numbers, such as "1, 2"`;
  const value = required(args, "languageIds", allowed);
  if (value === null) return null;
  const text = String(value);
  if (text.trim() === "") return null;
  const parts = text.split(",");
  if (parts.length > maxLanguageIds) {
    throw badArgument(
      `The languageIds argument must be ${allowed}; got ${parts.length} ids in ${describeValue(text)}.`,
    );
  }
  const ids: number[] = [];
  for (const part of parts) {
    const item = part.trim();
    const n = /^[+-]?\d{1,15}$/.test(item) ? Number(item) : Number.NaN;
    if (!Number.isSafeInteger(n)) {
      throw badArgument(
        `The languageIds argument must be ${allowed}; got ${describeValue(text)}, where ${describeValue(item)} is not a whole number.`,
      );
    }
    if (!ids.includes(n)) ids.push(n);
  }
  return ids;
}

/** A plain string parameter; `xsi:nil` already arrives as "". */
export function readString(args: Arguments, name: string, allowed: string): string {
  const value = required(args, name, allowed);
  return value === null ? "" : String(value);
}

/** `searchTerms`: 1–256 characters after trimming. Returns the trimmed text. */
export function readSearchTerms(args: Arguments): string {
  const allowed = `text of 1 to ${maxSearchTermsLength} characters after trimming`;
  const text = readString(args, "searchTerms", allowed).trim();
  const length = [...text].length;
  if (length < 1 || length > maxSearchTermsLength) {
    throw badArgument(
      `The searchTerms argument must be ${allowed}; got ${length === 0 ? "empty text" : `${length} characters`}.`,
    );
  }
  return text;
}

/** `sortBy`: empty or `relevance` (default), `date`, `clicks`, any case. */
export function readSortBy(args: Arguments): SearchSort {
  const allowed = `one of "relevance" (the default, also when empty), "date" or "clicks"`;
  const value = readString(args, "sortBy", allowed);
  const key = value.trim().toLowerCase();
  if (key === "" || key === "relevance") return "relevance";
  if (key === "date" || key === "clicks") return key;
  throw badArgument(`The sortBy argument must be ${allowed}; got ${describeValue(value)}.`);
}

/** An `anyType` id where nil/empty/absent means no restriction (getMostPopularPosts' categoryId). */
export function readOptionalAnyTypeId(args: Arguments, name: string): number | null {
  const value = args[name];
  if (value === undefined || value === null) return null;
  if (typeof value === "string" && value.trim() === "") return null;
  const n = asNumber(value);
  if (n === undefined || !Number.isSafeInteger(n)) {
    throw badArgument(
      `The ${name} argument must be empty (no restriction) or a whole number (an id); got ${describeValue(value)}.`,
    );
  }
  return n;
}

export interface SincePost {
  sincePostId: number | null;
  sinceDate: number | null;
}

/**
 * `sincepost` (anyType): nil/empty/absent = no restriction; a whole number N (or N.0) = posts with
 * id > N; any other text is read as an ISO 8601 instant (no zone = UTC); unreadable = fault.
 */
export function readSincePost(args: Arguments): SincePost {
  const value = args.sincepost;
  const none: SincePost = { sincePostId: null, sinceDate: null };
  if (value === undefined || value === null) return none;
  if (typeof value === "number") {
    if (Number.isSafeInteger(value)) return { sincePostId: value, sinceDate: null };
    throw sincePostFault(value);
  }
  const text = value.trim();
  if (text === "") return none;
  if (/^[+-]?\d{1,15}(\.0*)?$/.test(text)) return { sincePostId: Math.trunc(Number(text)), sinceDate: null };
  const instant = parseIsoInstant(text);
  if (instant === undefined) throw sincePostFault(value);
  return { sincePostId: null, sinceDate: instant };
}

function sincePostFault(value: ArgumentValue): Error {
  return badArgument(
    `The sincepost argument must be empty, a whole post id such as 1234, or an ISO 8601 instant such as 2024-05-01T12:00:00Z; got ${describeValue(value)}.`,
  );
}

const isoInstant =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * Reads an ISO 8601 / xsd:dateTime instant strictly (Date.parse accepts far too much, e.g. "March 7").
 * A missing zone means UTC (spec §4). Returns epoch milliseconds, or undefined when unreadable.
 */
export function parseIsoInstant(text: string): number | undefined {
  const m = isoInstant.exec(text);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const [hour, minute, second] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  const millis = m[7] ? Math.floor(Number(`0.${m[7]}`) * 1000) : 0;
  if (month < 1 || month > 12 || hour > 24 || minute > 59 || second > 60) return undefined;
  if (hour === 24 && (minute !== 0 || second !== 0 || millis !== 0)) return undefined;
  const base = Date.UTC(year, month - 1, day, 0, 0, 0, 0);
  const check = new Date(base);
  // Date.UTC rolls 31 February into March; a date that rolls over is not a date.
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) {
    return undefined;
  }
  let offsetMinutes = 0;
  const zone = m[8];
  if (zone && zone !== "Z" && zone !== "z") {
    const sign = zone.startsWith("-") ? -1 : 1;
    const digits = zone.slice(1).replace(":", "");
    const zh = Number(digits.slice(0, 2));
    const zm = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
    if (zh > 23 || zm > 59) return undefined;
    offsetMinutes = sign * (zh * 60 + zm);
  }
  // A leap second (:60) is read as the next instant, as xsd:dateTime readers commonly do.
  return base + ((hour * 60 + minute - offsetMinutes) * 60 + second) * 1000 + millis;
}

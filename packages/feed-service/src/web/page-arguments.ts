/**
 * The query parameters of the pages (spec §5.3): `page`, `lang`, `days`, `sort`, `q`. Values go to
 * the operations as text, so a bad one is refused by the operation table with its own message
 * (spec §3); only `page`, which no operation has, is checked here, in the same style.
 */
import { badArgument } from "../errors.js";
import { describeValue } from "../operations/argument-readers.js";

/** The deepest page a list offers: at 25 posts a page, the newest 2.5 million posts. */
export const maxPageNumber = 100_000;

/** `?page=N`, from 1 (the default). */
export function readPageNumber(query: URLSearchParams): number {
  const value = query.get("page");
  if (value === null || value === "") return 1;
  const n = /^\d{1,7}$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > maxPageNumber) {
    throw badArgument(
      `The page argument must be a whole number from 1 to ${maxPageNumber}; got ${describeValue(value)}.`,
    );
  }
  return n;
}

/**
 * `?lang=1,2` (what links write) or `?lang=1&lang=2` (what the filter form sends with JavaScript
 * off), as the `languageIds` text of the operations: "" for every language.
 */
export function readLanguageFilter(query: URLSearchParams): string {
  return query
    .getAll("lang")
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter((v) => v !== "")
    .join(",");
}

/** The ids in a `languageIds` text that are whole numbers, to tick their boxes in the filter. */
export function selectedLanguageIds(languageIds: string): ReadonlySet<number> {
  return new Set(
    languageIds
      .split(",")
      .filter((v) => /^\d+$/.test(v))
      .map(Number),
  );
}

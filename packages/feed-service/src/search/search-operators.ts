/**
 * The search operators of spec §4, one token at a time: `word*` (words beginning with `word`, at
 * least 3 characters before the `*`), `title:` (the title only), `feed:` (feeds whose name holds
 * that word or phrase), `lang:` (language codes, comma-separated), `after:` and `before:` (UTC
 * days, inclusive). Values are analysed as words are (case, accents, NFKC: text-analyzer.ts), so
 * `title:Crème*` and `crème*` match the same words. A bad value is a bad-argument fault that names
 * the operator as typed and shows the accepted form.
 */
import { badArgument } from "../errors.js";
import type { SearchAtom, SearchTerm } from "./search-query.js";
import { analyzeText, runKindOf } from "./text-analyzer.js";

/** The operator names, written before a colon (any case): `title:`, `feed:`, ... */
export type OperatorName = "title" | "feed" | "lang" | "after" | "before";

/** One token of the input as the tokenizer cut it. */
export interface RawOperator {
  readonly text: string;
  readonly quoted: boolean;
  /** The operator before the value, or null for a plain term. */
  readonly operator: OperatorName | null;
  /** Whether a `*` ends the token (or follows its closing quote). */
  readonly prefix: boolean;
}

/** A prefix matches words that begin with it only from this many characters on (spec §4). */
export const MIN_PREFIX_CHARS = 3;

const operatorPattern = /^(title|feed|lang|after|before):(?=[^\s])/iu;

/**
 * The operator whose name starts at `input[i]` (`title:x`, `feed:"a b"`), or null: a name with
 * nothing after its colon, or an unknown name (`http://`), is text like any other.
 */
export function readOperator(input: string, i: number): OperatorName | null {
  const found = operatorPattern.exec(input.slice(i, i + 8));
  return found === null ? null : (found[1]!.toLowerCase() as OperatorName);
}

const DAY_MS = 86_400_000;
const languageCode = /^[a-z]{2,3}(-[a-z0-9]{2,8})*$/iu;

function shown(name: string, value: string, quoted: boolean): string {
  const v = value.length > 40 ? `${value.slice(0, 40)}…` : value;
  return quoted ? `${name}:"${v}"` : `${name}:${v}`;
}

/** The UTC day `YYYY-MM-DD` as epoch milliseconds of its start, or null when it is no such day. */
function utcDay(value: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/u.exec(value);
  if (m === null) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const ms = Date.UTC(year, month - 1, day);
  const back = new Date(ms);
  return back.getUTCFullYear() === year && back.getUTCMonth() === month - 1 && back.getUTCDate() === day
    ? ms
    : null;
}

/**
 * A term's words with `word*` applied: the star counts only after a word of a script written
 * with spaces, at least MIN_PREFIX_CHARS long; otherwise the term is its words (a star after
 * `東京` or `ab` adds nothing: the first already matches inside runs, the second is too short).
 */
function wordTerm(words: string[], star: boolean, titleOnly: boolean): SearchTerm | null {
  if (words.length === 0) return null;
  const last = words[words.length - 1]!;
  const prefix = star && [...last].length >= MIN_PREFIX_CHARS && runKindOf([...last][0]!, null) === "word";
  return { words, ...(prefix ? { prefix: true } : {}), ...(titleOnly ? { titleOnly: true } : {}) };
}

/**
 * The atom of one token (a term or a filter), or null for a token with no words.
 *
 * @example
 * operatorAtom({ text: "2026-01-31", quoted: false, operator: "after", prefix: false });
 * // { kind: "date", from: 1769817600000, until: null }
 */
export function operatorAtom(token: RawOperator): SearchAtom | null {
  const { text, quoted, operator } = token;
  switch (operator) {
    case null:
      return wordTerm(analyzeText(text), token.prefix, false);
    case "title":
      return wordTerm(analyzeText(text), token.prefix, true);
    case "feed": {
      const words = analyzeText(text);
      if (words.length === 0) {
        throw badArgument(
          `The search operator ${shown("feed", text, quoted)} holds no word of a feed's name; write feed:name or feed:"two words".`,
        );
      }
      const last = words[words.length - 1]!;
      return { kind: "feed", words, prefix: token.prefix && [...last].length >= MIN_PREFIX_CHARS };
    }
    case "lang": {
      const codes = text.split(",").map((c) => c.trim());
      if (codes.some((c) => !languageCode.test(c))) {
        throw badArgument(
          `The search operator ${shown("lang", text, quoted)} needs language codes, such as lang:de or lang:de,fr.`,
        );
      }
      return { kind: "lang", codes: codes.map((c) => c.toLowerCase()) };
    }
    case "after":
    case "before": {
      const day = utcDay(text.trim());
      if (day === null) {
        throw badArgument(
          `The search operator ${shown(operator, text, quoted)} needs a UTC day written YYYY-MM-DD, such as ${operator}:2026-01-31.`,
        );
      }
      return operator === "after"
        ? { kind: "date", from: day, until: null }
        : { kind: "date", from: null, until: day + DAY_MS };
    }
  }
}

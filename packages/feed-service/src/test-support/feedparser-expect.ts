/**
 * Translates feedparser's `Expect:` lines into checks on our parsed entries, for the fields the
 * service keeps: title, link, guid/id, dates, content/summary, language, author, and the byte
 * encoding chosen. Clauses about anything else (bozo, copyright, enclosures, ...) are not
 * translated and count neither way.
 */
import { htmlToText } from "../ingest/text-fields.js";
import { PyLiteralReader, type PyValue } from "./python-literal.js";

export interface ConformanceEntry {
  title: string | null;
  link: string | null;
  id: string | null;
  summary: string | null;
  content: string | null;
  published: number | null;
  updated: number | null;
  author: string | null;
  language: string | null;
}

export interface ConformanceSubject {
  encoding: string;
  feed: { title: string | null; link: string | null; description: string | null; language: string | null };
  entries: ConformanceEntry[];
}

export interface ExpectOutcome {
  checked: number;
  failures: string[];
}

/** Splits on ` and ` outside string literals. */
function splitClauses(expr: string): string[] {
  const out: string[] = [];
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < expr.length; i++) {
    const ch = expr[i]!;
    if (quote) {
      if (ch === "\\") i++;
      else if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (expr.startsWith(" and ", i)) {
      out.push(expr.slice(start, i));
      start = i + 5;
      i += 4;
    }
  }
  out.push(expr.slice(start));
  return out.map((c) => c.trim());
}

const feedFields: Record<string, keyof ConformanceSubject["feed"]> = {
  title: "title",
  "title_detail.value": "title",
  link: "link",
  language: "language",
  subtitle: "description",
  tagline: "description",
  description: "description",
  "subtitle_detail.value": "description",
  "tagline_detail.value": "description",
};

const entryFields: Record<string, keyof ConformanceEntry> = {
  title: "title",
  "title_detail.value": "title",
  link: "link",
  id: "id",
  guid: "id",
  summary: "summary",
  description: "summary",
  "summary_detail.value": "summary",
  "content.0.value": "content",
  published_parsed: "published",
  issued_parsed: "published",
  updated_parsed: "updated",
  modified_parsed: "updated",
  date_parsed: "updated",
  author: "author",
  "author_detail.name": "author",
  "content.0.language": "language",
  "title_detail.language": "language",
  "summary_detail.language": "language",
};

/**
 * Fields the service keeps as plain text, where feedparser keeps HTML: the check compares our
 * text with the plain text of feedparser's value (`<b>&amp;</b>` -> `&`).
 */
const plainTextFields = new Set(["title", "description"]);

/** Names of one encoding (the WHATWG Encoding Standard maps these labels to one decoder). */
const sameEncoding: Record<string, string> = {
  "us-ascii": "windows-1252",
  "iso-8859-1": "windows-1252",
  latin1: "windows-1252",
  gb2312: "gb18030",
  gbk: "gb18030",
};

function encodingKey(name: string): string {
  const n = name.toLowerCase().replace(/_/g, "-");
  return sameEncoding[n] ?? n;
}

const pathPattern = /^(feed|entries\[(\d+)\])((?:\[['"]\w+['"]\]|\[\d+\]|\.\w+)*)\s*==\s*/;

function pathKey(accessors: string): string {
  return [...accessors.matchAll(/\[['"](\w+)['"]\]|\[(\d+)\]|\.(\w+)/g)]
    .map((m) => m[1] ?? m[2] ?? m[3])
    .join(".");
}

function tupleMatches(actual: number | null, expected: PyValue): boolean {
  if (actual === null || !Array.isArray(expected)) return false;
  const d = new Date(actual);
  const parts = [
    d.getUTCFullYear(),
    d.getUTCMonth() + 1,
    d.getUTCDate(),
    d.getUTCHours(),
    d.getUTCMinutes(),
    d.getUTCSeconds(),
  ];
  return parts.every((p, i) => p === expected[i]);
}

type Verdict = "pass" | "fail" | "skip";

function checkClause(clause: string, subject: ConformanceSubject): Verdict {
  const enc = /^encoding\s*==\s*/.exec(clause);
  if (enc) {
    const { value, rest } = PyLiteralReader.read(clause.slice(enc[0].length));
    if (rest.trim() !== "" || typeof value !== "string") return "skip";
    return encodingKey(value) === encodingKey(subject.encoding) ? "pass" : "fail";
  }
  const count = /^len\(entries\)\s*==\s*(\d+)$/.exec(clause);
  if (count) return subject.entries.length === Number(count[1]) ? "pass" : "fail";
  const m = pathPattern.exec(clause);
  if (!m) return "skip";
  let literal: { value: PyValue; rest: string };
  try {
    literal = PyLiteralReader.read(clause.slice(m[0].length));
  } catch {
    return "skip";
  }
  if (literal.rest.trim() !== "") return "skip";
  const key = pathKey(m[3]!);
  const expected = literal.value;
  if (m[1] === "feed") {
    const field = feedFields[key];
    if (!field) return "skip";
    return subject.feed[field] === comparable(field, expected) ? "pass" : "fail";
  }
  const field = entryFields[key];
  if (!field) return "skip";
  const entry = subject.entries[Number(m[2])];
  if (!entry) return "fail";
  const actual = entry[field];
  if (field === "published" || field === "updated") {
    const value = field === "updated" ? (entry.updated ?? entry.published) : actual;
    return tupleMatches(value as number | null, expected) ? "pass" : "fail";
  }
  return actual === comparable(field, expected) ? "pass" : "fail";
}

function comparable(field: string, expected: PyValue): PyValue {
  return plainTextFields.has(field) && typeof expected === "string" ? htmlToText(expected) || null : expected;
}

/**
 * Checks every translatable clause of an `Expect:` expression against a parsed subject.
 *
 * @example
 * checkExpectation("not bozo and feed['title'] == 'Example feed'", subject); // { checked: 1, failures: [] }
 */
export function checkExpectation(expect: string, subject: ConformanceSubject): ExpectOutcome {
  const outcome: ExpectOutcome = { checked: 0, failures: [] };
  for (const clause of splitClauses(expect)) {
    const verdict = checkClause(clause, subject);
    if (verdict === "skip") continue;
    outcome.checked++;
    if (verdict === "fail") outcome.failures.push(clause);
  }
  return outcome;
}

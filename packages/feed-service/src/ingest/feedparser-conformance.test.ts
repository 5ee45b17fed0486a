/**
 * feedparser's conformance corpus (../shared/corpora/feedparser from the repository root) run
 * through our decode -> parse -> normalise. Every file must be handled without an exception
 * other than our own FEED_PARSE_FAILED escaping; the `Expect:` clauses about the fields we keep
 * are checked, the pass count printed, and a floor asserted so that it never drops.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { FeedServiceError } from "../errors.js";
import { type ConformanceSubject, checkExpectation } from "../test-support/feedparser-expect.js";
import { decodeBytes } from "./decode-bytes.js";
import { declaredTag } from "./detect-language.js";
import { processFeedDocument } from "./process-document.js";
import { sanitiseHtml } from "./sanitise-html.js";

const repoRoot = fileURLToPath(new URL("../../../../", import.meta.url));
const corpus = join(repoRoot, "..", "shared", "corpora", "feedparser");
/** Files whose every translated clause passes; raise it when the parser gets better. */
const passFloor = 724;

function listFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) listFiles(full, out);
    else if (/\.(xml|json|rdf|atom|rss)$/i.test(name)) out.push(full);
  }
  return out;
}

function headerLines(bytes: Buffer): {
  expect: string | null;
  contentType: string | null;
  contentLanguage: string | null;
} {
  // The comment block is ASCII in every encoding but UTF-16/32; decode those first.
  const text = decodeBytes(bytes).text.slice(0, 8000);
  const expect = /(?:^|\n|")\s*Expect:\s*(.*?)\s*(?:-->)?\s*(?:\n|"|$)/.exec(text)?.[1] ?? null;
  const contentType = /Header:\s*Content-type:\s*(.*)/i.exec(text)?.[1]?.trim() ?? null;
  const contentLanguage = /Header:\s*Content-Language:\s*(.*)/i.exec(text)?.[1]?.trim() ?? null;
  return { expect, contentType, contentLanguage };
}

test("feedparser conformance corpus: no exception escapes; Expect checks pass at or above the floor", (t) => {
  let exists = false;
  try {
    exists = statSync(corpus).isDirectory();
  } catch {}
  if (!exists) {
    const message = `feedparser corpus not found at ${corpus}`;
    if (process.env.CI === "true") assert.fail(message);
    console.error(`\n!!! SKIPPED: ${message}\n`);
    t.skip(message);
    return;
  }
  const files = listFiles(corpus);
  const escaped: string[] = [];
  let parsed = 0;
  let refused = 0;
  let withChecks = 0;
  let passing = 0;
  let clauses = 0;
  let clausesPassing = 0;
  const failures: string[] = [];
  for (const file of files) {
    const bytes = readFileSync(file);
    const { expect, contentType, contentLanguage } = headerLines(bytes);
    let subject: ConformanceSubject;
    try {
      const doc = processFeedDocument(
        bytes,
        contentType,
        "http://example.com/feed.xml",
        Date.now(),
        contentLanguage,
      );
      parsed++;
      const base = doc.metadata.siteUrl ?? "http://example.com/feed.xml";
      subject = {
        encoding: doc.encoding,
        feed: {
          title: doc.metadata.title,
          link: doc.metadata.siteUrl,
          description: doc.metadata.description,
          language: declaredTag(doc.metadata.language),
        },
        entries: doc.entries.map((e, i) => {
          const raw = doc.parsed.entries[i]!;
          return {
            title: e.title,
            link: e.link,
            id: raw.guid,
            summary: raw.summaryHtml !== null ? sanitiseHtml(raw.summaryHtml, base) : e.content || null,
            content: raw.contentHtml !== null ? e.content : null,
            published: e.publishedAt,
            updated: e.updatedAt,
            author: e.author,
            language: declaredTag(e.declaredLanguage),
          };
        }),
      };
    } catch (error) {
      if (error instanceof FeedServiceError && error.code === "FEED_PARSE_FAILED") {
        refused++;
        subject = {
          encoding: "",
          feed: { title: null, link: null, description: null, language: null },
          entries: [],
        };
      } else {
        escaped.push(`${file}: ${String(error)}`);
        continue;
      }
    }
    if (!expect) continue;
    const outcome = checkExpectation(expect, subject);
    if (outcome.checked === 0) continue;
    withChecks++;
    clauses += outcome.checked;
    clausesPassing += outcome.checked - outcome.failures.length;
    if (outcome.failures.length === 0) passing++;
    else failures.push(`${file.slice(corpus.length + 1)}: ${outcome.failures.join(" | ")}`);
  }
  console.error(
    `feedparser corpus: ${files.length} files, ${parsed} parsed, ${refused} refused as not a feed, ` +
      `${escaped.length} exceptions escaped; ${passing}/${withChecks} files with translated Expect checks pass ` +
      `(${clausesPassing}/${clauses} clauses)`,
  );
  if (process.env.CONFORMANCE_VERBOSE) console.error(failures.join("\n"));
  assert.deepEqual(escaped, [], "exceptions escaped");
  assert.ok(passing >= passFloor, `conformance pass count ${passing} fell below the floor ${passFloor}`);
});

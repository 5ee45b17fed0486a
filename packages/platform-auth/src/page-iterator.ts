import { PlatformAuthError } from "./errors.js";

interface PagedBody {
  _page?: { next?: unknown };
}

/**
 * Follows a Platform listing page by page: each answer's `_page.next` becomes the `start` query
 * parameter of the next request, until `next` is empty. A `next` that repeats is an error rather
 * than an endless loop.
 */
export async function* iteratePages<P>(
  getJson: (target: string) => Promise<unknown>,
  target: string,
  maxPages = 10_000,
): AsyncGenerator<P> {
  const seen = new Set<string>();
  let current = target;
  for (let n = 1; ; n++) {
    const page = (await getJson(current)) as Awaited<P> & PagedBody;
    yield page;
    const next = page?._page?.next;
    if (next === undefined || next === null || next === "") return;
    const start = String(next);
    if (seen.has(start)) {
      throw new PlatformAuthError(
        "PA_BAD_RESPONSE",
        `paging did not advance: _page.next ${JSON.stringify(start)} came twice`,
      );
    }
    if (n >= maxPages) {
      throw new PlatformAuthError("PA_BAD_RESPONSE", `paging stopped after ${maxPages} pages (maxPages)`);
    }
    seen.add(start);
    current = withStart(target, start);
  }
}

function withStart(target: string, start: string): string {
  const base = target.startsWith("/") ? new URL(target, "http://x") : new URL(target);
  base.searchParams.set("start", start);
  return target.startsWith("/") ? base.pathname + base.search : base.href;
}

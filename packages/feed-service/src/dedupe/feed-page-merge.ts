/**
 * A feed's list with the stories it carries as copies (src/dedupe/): the feed's own posts and its
 * copies are each date ordered, so one page of the merge is read from the first `offset + limit`
 * copies and a window of own posts just wide enough, never from the whole feed. With K copies
 * before the page's end, at most K of the first `offset` merged rows are copies, so the page's own
 * posts start at own index `offset - K` or later: the window is own[offset - K, offset + limit).
 */

/** A row's place in date order: newest first, ties by id descending (spec §4). */
export interface DatedId {
  postId: number;
  postDate: number;
}

/** Whether `a` comes before `b` in a list. */
function before(a: DatedId, b: DatedId): boolean {
  return a.postDate > b.postDate || (a.postDate === b.postDate && a.postId > b.postId);
}

/**
 * Where the window of own posts starts, given the copies read (the first `offset + limit`).
 *
 * @example
 * ownWindow({ offset: 40, limit: 20 }, 3); // -> { offset: 37, limit: 23 }
 */
export function ownWindow(
  page: { offset: number; limit: number },
  copies: number,
): { offset: number; limit: number } {
  const offset = Math.max(0, page.offset - copies);
  return { offset, limit: page.limit + copies };
}

/**
 * The page's ids in order: own rows come from `own`, read at `ownStart` (see `ownWindow`), copies
 * from `copies` (the first `offset + limit` of the feed, newest first).
 *
 * @example
 * mergeFeedPage({ offset: 0, limit: 2 }, [{ postId: 1, postDate: 5 }], 0, [{ postId: 9, postDate: 7 }]); // -> [9, 1]
 */
export function mergeFeedPage(
  page: { offset: number; limit: number },
  own: readonly DatedId[],
  ownStart: number,
  copies: readonly DatedId[],
): number[] {
  let ci = 0;
  let position = 0;
  if (ownStart > 0) {
    // Copies before the window's first own row sit before the page (see the file's comment).
    while (ci < copies.length && own.length > 0 && before(copies[ci]!, own[0]!)) ci++;
    position = ownStart + ci;
  }
  const ids: number[] = [];
  let oi = 0;
  while (ids.length < page.limit) {
    const o = own[oi];
    const c = copies[ci];
    if (o === undefined && c === undefined) break;
    let next: DatedId;
    if (c === undefined || (o !== undefined && before(o, c))) {
      next = o!;
      oi++;
    } else {
      next = c;
      ci++;
    }
    if (position >= page.offset) ids.push(next.postId);
    position++;
  }
  return ids;
}

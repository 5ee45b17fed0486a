import assert from "node:assert/strict";
import { test } from "node:test";
import { SeededRandom } from "../demo/seeded-random.js";
import { type DatedId, mergeFeedPage, ownWindow } from "./feed-page-merge.js";

const newestFirst = (a: DatedId, b: DatedId) => b.postDate - a.postDate || b.postId - a.postId;

test("every page of the merge equals the same page of the whole list merged and sorted", () => {
  const rng = new SeededRandom(33);
  for (let round = 0; round < 300; round++) {
    let id = 0;
    const row = (): DatedId => ({ postId: ++id, postDate: rng.int(0, 40) });
    const own = Array.from({ length: rng.int(0, 30) }, row).sort(newestFirst);
    const copies = Array.from({ length: rng.int(0, 12) }, row).sort(newestFirst);
    const whole = [...own, ...copies].sort(newestFirst).map((r) => r.postId);
    for (const limit of [1, 3, 10]) {
      for (let offset = 0; offset <= whole.length + 2; offset++) {
        const page = { offset, limit };
        const read = copies.slice(0, offset + limit);
        const window = ownWindow(page, read.length);
        const ownRead = own.slice(window.offset, window.offset + window.limit);
        assert.deepEqual(
          mergeFeedPage(page, ownRead, window.offset, read),
          whole.slice(offset, offset + limit),
          `round ${round}, offset ${offset}, limit ${limit}`,
        );
      }
    }
  }
});

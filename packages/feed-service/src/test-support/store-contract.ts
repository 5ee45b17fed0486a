/**
 * The store contract: every behaviour the operation table, ingest and the demo loader rely on,
 * as one node:test suite that runs against any dialect. A dialect's test file calls it with a
 * factory that opens a fresh, migrated store per name (the same name twice must reopen the same
 * database).
 *
 * @example
 * // sqlite-store.test.ts
 * runStoreContract("sqlite", (name) => openStore(join(dir, `${slug(name)}.db`)));
 */
import { describe } from "node:test";
import { activityContract } from "./store-contract/activity-contract.js";
import { adminContract } from "./store-contract/admin-contract.js";
import { boundsContract } from "./store-contract/bounds-contract.js";
import { catalogContract } from "./store-contract/catalog-contract.js";
import type { StoreFactory } from "./store-contract/contract-fixture.js";
import { crossScopeContract } from "./store-contract/cross-scope-contract.js";
import { feedContract } from "./store-contract/feed-contract.js";
import { postListContract } from "./store-contract/post-list-contract.js";
import { searchContract } from "./store-contract/search-contract.js";
import { searchCountContract } from "./store-contract/search-count-contract.js";
import { storyContract } from "./store-contract/story-contract.js";
import { webSubContract } from "./store-contract/websub-contract.js";

export type { StoreFactory } from "./store-contract/contract-fixture.js";

export function runStoreContract(dialect: string, factory: StoreFactory): void {
  describe(`store contract (${dialect})`, () => {
    postListContract(factory);
    searchContract(factory);
    searchCountContract(factory);
    catalogContract(factory);
    feedContract(factory);
    activityContract(factory);
    boundsContract(factory);
    crossScopeContract(factory);
    webSubContract(factory);
    adminContract(factory);
    storyContract(factory);
  });
}

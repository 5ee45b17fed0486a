/**
 * The site the browser tests read: the real service (Fastify, SQLite, operation table, pages) on
 * 127.0.0.1 with a fresh database holding the demo corpus (the generator behind `feed-service
 * demo`) and the hostile feed, at a pinned clock.
 */
import { loadDemoData } from "../demo/load-demo-data.js";
import { type HostileFeed, seedHostileFeed } from "./hostile-feed.js";
import { fixtureNow, type RunningService, startTestService } from "./service-fixture.js";

export interface DemoSite {
  readonly service: RunningService;
  readonly hostile: HostileFeed;
  readonly now: number;
}

/** Demo posts in the test corpus: enough for several pages per list and every language. */
export const demoPosts = 3000;

export async function startDemoSite(): Promise<DemoSite> {
  const service = await startTestService();
  await loadDemoData(service.store, { posts: demoPosts, now: fixtureNow });
  // Two days old: the hostile posts sit in every list and search, but not at the top of /, where
  // the click and shortcut tests follow the first posts to their (stubbed) pages.
  const hostile = await seedHostileFeed(service.store, fixtureNow - 2 * 86_400_000);
  return { service, hostile, now: fixtureNow };
}

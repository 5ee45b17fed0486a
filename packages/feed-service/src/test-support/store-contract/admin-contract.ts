/**
 * Contract: the admin store — administrators, sessions, the sign-in throttle's failures,
 * suggestions, and every admin change written to the audit log in the same transaction (a change
 * that fails leaves no audit row).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { pausedUntil } from "../../store/admin-fields.js";
import type { Store } from "../../store/store.js";
import { HOUR, incoming, rejectsWith, type StoreFactory, T0, withStore } from "./contract-fixture.js";

const actor = "cli:tester";

function refuses(change: Promise<unknown>, code: string): Promise<void> {
  return assert.rejects(change, rejectsWith(code));
}

async function actions(store: Store): Promise<string[]> {
  return (await store.admin.auditLog({ limit: 100 })).map((a) => a.action).reverse();
}

export function adminContract(factory: StoreFactory): void {
  describe("admin store", () => {
    it(
      "adds, lists, finds (any case), re-passwords and removes users, each change audited",
      withStore(factory, async (store) => {
        const alice = await store.admin.addUser(actor, "Alice", "scrypt$hash-1", T0);
        assert.deepEqual(alice, { userId: alice.userId, userName: "Alice", createdAt: T0, changedAt: T0 });
        await refuses(store.admin.addUser(actor, "alice", "scrypt$x", T0), "FEED_CONFLICT");
        await refuses(store.admin.addUser(actor, "bad name", "scrypt$x", T0), "FEED_BAD_ARGUMENT");
        await refuses(store.admin.addUser(actor, "a".repeat(65), "scrypt$x", T0), "FEED_BAD_ARGUMENT");
        assert.equal((await store.admin.userCredentials("ALICE"))?.passwordHash, "scrypt$hash-1");
        assert.equal(await store.admin.userCredentials("bob"), undefined);
        assert.ok(await store.admin.setPassword(actor, "alice", "scrypt$hash-2", T0 + 5));
        const changed = await store.admin.userCredentials("alice");
        assert.equal(changed?.passwordHash, "scrypt$hash-2");
        assert.equal(changed?.changedAt, T0 + 5);
        assert.equal(await store.admin.setPassword(actor, "nobody", "scrypt$x", T0), false);
        assert.deepEqual(
          (await store.admin.users()).map((u) => u.userName),
          ["Alice"],
        );
        assert.ok(await store.admin.removeUser(actor, "alice", T0 + 9));
        assert.equal(await store.admin.removeUser(actor, "alice", T0 + 9), false);
        assert.deepEqual(await store.admin.users(), []);
        assert.deepEqual(await actions(store), ["user.add", "user.passwd", "user.remove"]);
        const [removal] = await store.admin.auditLog({ limit: 1 });
        assert.equal(removal?.actor, actor);
        assert.equal(removal?.at, T0 + 9);
        assert.equal(removal?.subject, `user:${alice.userId}`);
        assert.deepEqual(JSON.parse(removal!.details), { name: "Alice" });
        // No password hash ever reaches the log.
        for (const row of await store.admin.auditLog({ limit: 100 }))
          assert.doesNotMatch(row.details, /scrypt/);
      }),
    );

    it(
      "keeps sessions while used, drops idle ones, and ends all of a user's on a new password or removal",
      withStore(factory, async (store) => {
        const u = await store.admin.addUser(actor, "carol", "scrypt$h", T0);
        await store.admin.createSession({ idHash: "s1", userId: u.userId, csrfToken: "t1", now: T0 });
        await store.admin.createSession({ idHash: "s2", userId: u.userId, csrfToken: "t2", now: T0 });
        const seen = await store.admin.touchSession("s1", T0 + HOUR, 12 * HOUR);
        assert.deepEqual(seen, {
          userId: u.userId,
          userName: "carol",
          csrfToken: "t1",
          createdAt: T0,
          lastSeenAt: T0 + HOUR,
        });
        // s1 was used an hour in, so 12 hours after that it is still alive; s2 was not.
        assert.equal(await store.admin.touchSession("s2", T0 + 12 * HOUR, 12 * HOUR), undefined);
        assert.equal((await store.admin.touchSession("s1", T0 + 12 * HOUR, 12 * HOUR))?.csrfToken, "t1");
        assert.equal(await store.admin.sessionCount(u.userId), 1);
        await store.admin.endSession("s1");
        assert.equal(await store.admin.touchSession("s1", T0 + 12 * HOUR, 12 * HOUR), undefined);

        await store.admin.createSession({ idHash: "s3", userId: u.userId, csrfToken: "t3", now: T0 });
        await store.admin.createSession({ idHash: "s4", userId: u.userId, csrfToken: "t4", now: T0 });
        await store.admin.setPassword(actor, "carol", "scrypt$h2", T0 + 1);
        assert.equal(await store.admin.sessionCount(u.userId), 0);
        await store.admin.createSession({ idHash: "s5", userId: u.userId, csrfToken: "t5", now: T0 });
        await store.admin.removeUser(actor, "carol", T0 + 2);
        assert.equal(await store.admin.touchSession("s5", T0 + 3, 12 * HOUR), undefined);

        // Idle sessions are swept by time, used ones stay.
        const dan = await store.admin.addUser(actor, "dan", "scrypt$h", T0);
        await store.admin.createSession({ idHash: "old", userId: dan.userId, csrfToken: "o", now: T0 });
        await store.admin.createSession({
          idHash: "new",
          userId: dan.userId,
          csrfToken: "n",
          now: T0 + 5 * HOUR,
        });
        assert.equal(await store.admin.endIdleSessions(T0 + HOUR), 1);
        assert.equal(await store.admin.touchSession("old", T0 + 5 * HOUR, 12 * HOUR), undefined);
        assert.equal((await store.admin.touchSession("new", T0 + 5 * HOUR, 12 * HOUR))?.csrfToken, "n");
      }),
    );

    it(
      "counts sign-in failures per key since a time",
      withStore(factory, async (store) => {
        await store.admin.recordSignInFailure(["name:dave", "addr:x"], T0);
        await store.admin.recordSignInFailure(["name:erin", "addr:x"], T0 + 1000);
        assert.deepEqual(await store.admin.signInFailures("addr:x", T0), [T0, T0 + 1000]);
        assert.deepEqual(await store.admin.signInFailures("addr:x", T0 + 1), [T0 + 1000]);
        assert.deepEqual(await store.admin.signInFailures("name:dave", T0), [T0]);
        assert.deepEqual(await store.admin.signInFailures("name:frank", 0), []);
      }),
    );

    it(
      "takes suggestions, counts them per client, and approves (adding the feed) or rejects each once",
      withStore(factory, async (store) => {
        const cat = await store.addCategory("Blogs");
        const s = await store.admin.addSuggestion(
          {
            url: "https://site.test/",
            feedUrl: "https://site.test/feed",
            feedTitle: "Site",
            categoryId: cat.categoryId,
            note: "  good one ",
            clientHash: "c1",
          },
          T0,
        );
        assert.equal(s.state, "waiting");
        assert.equal(s.note, "good one");
        const other = await store.admin.addSuggestion(
          {
            url: "https://b.test/rss",
            feedUrl: "https://b.test/rss",
            feedTitle: null,
            categoryId: null,
            note: "",
            clientHash: "c1",
          },
          T0 + 10,
        );
        assert.equal(await store.admin.suggestionsFrom("c1", T0), 2);
        assert.equal(await store.admin.suggestionsFrom("c1", T0 + 1), 1);
        assert.equal(await store.admin.suggestionsFrom("c2", 0), 0);
        assert.deepEqual(
          (await store.admin.suggestions("waiting")).map((x) => x.suggestionId),
          [s.suggestionId, other.suggestionId],
        );
        const feed = await store.admin.approveSuggestion(
          "admin:ann",
          s.suggestionId,
          { feedUrl: s.feedUrl, feedName: "Site", categoryId: cat.categoryId },
          T0 + 20,
        );
        assert.equal(feed.categoryId, cat.categoryId);
        const approved = await store.admin.suggestionById(s.suggestionId);
        assert.equal(approved?.state, "approved");
        assert.equal(approved?.feedId, feed.feedId);
        assert.equal(approved?.decidedBy, "admin:ann");
        await refuses(store.admin.rejectSuggestion("admin:ann", s.suggestionId, T0), "FEED_CONFLICT");
        assert.ok(await store.admin.rejectSuggestion("admin:ann", other.suggestionId, T0 + 30));
        await refuses(store.admin.rejectSuggestion("admin:ann", 9999, T0), "FEED_NOT_FOUND");
        assert.deepEqual(await store.admin.suggestions("waiting"), []);
        assert.deepEqual(await actions(store), [
          "suggestion.add",
          "suggestion.add",
          "feed.add",
          "suggestion.approve",
          "suggestion.reject",
        ]);
      }),
    );

    it(
      "an approval whose feed already exists changes nothing: no feed, no state change, no audit row",
      withStore(factory, async (store) => {
        await store.admin.addFeed(actor, { feedUrl: "https://dup.test/feed", feedName: "Dup" }, T0);
        const s = await store.admin.addSuggestion(
          {
            url: "https://dup.test/feed",
            feedUrl: "https://dup.test/feed",
            feedTitle: null,
            categoryId: null,
            note: "",
            clientHash: "c",
          },
          T0,
        );
        const before = await actions(store);
        await refuses(
          store.admin.approveSuggestion(
            actor,
            s.suggestionId,
            { feedUrl: s.feedUrl, feedName: "Dup" },
            T0 + 1,
          ),
          "FEED_CONFLICT",
        );
        assert.equal((await store.admin.suggestionById(s.suggestionId))?.state, "waiting");
        assert.deepEqual(await actions(store), before);
        assert.equal((await store.adminFeeds()).length, 1);
      }),
    );

    it(
      "edits, pauses, resumes, refreshes and removes feeds, each audited; the posts follow a new category",
      withStore(factory, async (store) => {
        const web = await store.addCategory("Web");
        const fr = await store.ensureLanguage("fr");
        const feed = await store.admin.addFeed(actor, { feedUrl: "https://e.test/feed", feedName: "E" }, T0);
        await store.applyFeedUpdate(feed.feedId, {
          fetchState: {},
          posts: [incoming("e1", { publishedAt: T0 })],
        });
        const edited = await store.admin.editFeed(
          actor,
          feed.feedId,
          { feedName: "Renamed", categoryId: web.categoryId, languageId: fr.languageId },
          T0 + 1,
        );
        assert.equal(edited.feedName, "Renamed");
        assert.equal(edited.categoryId, web.categoryId);
        assert.equal(edited.languageId, fr.languageId);
        const [post] = await store.postsByFeed({ feedId: feed.feedId, limit: 5, offset: 0 });
        assert.equal(post?.categoryId, web.categoryId);
        assert.equal(post?.feedName, "Renamed");
        await refuses(store.admin.editFeed(actor, feed.feedId, { categoryId: 9999 }, T0), "FEED_NOT_FOUND");
        await refuses(store.admin.editFeed(actor, 9999, { feedName: "x" }, T0), "FEED_NOT_FOUND");
        const [editRow] = await store.admin.auditLog({ limit: 1 });
        assert.deepEqual(JSON.parse(editRow!.details), {
          feedName: ["E", "Renamed"],
          categoryId: [null, web.categoryId],
          languageId: [1, fr.languageId],
        });

        const paused = await store.admin.setFeedPaused(actor, feed.feedId, true, T0 + 2);
        assert.equal(paused.nextFetchAt, pausedUntil);
        assert.deepEqual([...(await store.admin.pausedFeeds())], [feed.feedId]);
        assert.deepEqual(await store.dueFeeds(T0 + 1_000 * HOUR), []);
        const resumed = await store.admin.setFeedPaused(actor, feed.feedId, false, T0 + 3);
        assert.equal(resumed.nextFetchAt, T0 + 3);
        assert.equal((await store.admin.pausedFeeds()).size, 0);
        await store.applyFeedUpdate(feed.feedId, { fetchState: { nextFetchAt: T0 + 99 * HOUR }, posts: [] });
        assert.ok(await store.admin.refreshFeedNow(actor, feed.feedId, T0 + 4));
        assert.equal((await store.feedById(feed.feedId))?.nextFetchAt, T0 + 4);
        assert.equal(await store.admin.refreshFeedNow(actor, 9999, T0), false);
        assert.ok(await store.admin.removeFeed(actor, feed.feedId, T0 + 5));
        assert.equal(await store.admin.removeFeed(actor, feed.feedId, T0 + 5), false);
        assert.equal(await store.feedById(feed.feedId), undefined);
        assert.deepEqual(await actions(store), [
          "feed.add",
          "feed.edit",
          "feed.pause",
          "feed.resume",
          "feed.refresh",
          "feed.remove",
        ]);
      }),
    );

    it(
      "adds, renames and removes categories, smart categories and languages; removal's effect is told first",
      withStore(factory, async (store) => {
        const c = await store.admin.addCategory(actor, "News", T0);
        await store.admin.addCategory(actor, "Other", T0);
        await refuses(store.admin.addCategory(actor, "news", T0), "FEED_CONFLICT");
        assert.equal(
          (await store.admin.renameCategory(actor, c.categoryId, "World news", T0)).categoryName,
          "World news",
        );
        await refuses(store.admin.renameCategory(actor, c.categoryId, "other", T0), "FEED_CONFLICT");
        const f = await store.admin.addFeed(
          actor,
          { feedUrl: "https://n.test/feed", feedName: "N", categoryId: c.categoryId },
          T0,
        );
        await store.applyFeedUpdate(f.feedId, { fetchState: {}, posts: [incoming("n1"), incoming("n2")] });
        assert.deepEqual(await store.admin.categoryUsage(c.categoryId), { feeds: 1, posts: 2 });
        assert.ok(await store.admin.removeCategory(actor, c.categoryId, T0));
        assert.equal((await store.feedById(f.feedId))?.categoryId, null);
        assert.equal(await store.admin.removeCategory(actor, c.categoryId, T0), false);

        const s = await store.admin.addSmartCategory(actor, { name: "Flex", query: "flex" }, T0);
        assert.equal(
          (await store.admin.renameSmartCategory(actor, s.smartCategoryId, "Flex news", T0))
            .smartCategoryName,
          "Flex news",
        );
        assert.ok(await store.admin.removeSmartCategory(actor, s.smartCategoryId, T0));

        const de = await store.admin.addLanguage(actor, "de-DE", undefined, T0);
        assert.equal(de.languageCode, "de");
        assert.equal(
          (await store.admin.renameLanguage(actor, de.languageId, "Deutsch", T0)).languageName,
          "Deutsch",
        );
        await store.admin.editFeed(actor, f.feedId, { languageId: de.languageId }, T0);
        assert.deepEqual(await store.admin.languageUsage(de.languageId), { feeds: 1, posts: 0 });
        await refuses(store.admin.removeLanguage(actor, de.languageId, T0), "FEED_CONFLICT");
        await refuses(store.admin.removeLanguage(actor, 1, T0), "FEED_CONFLICT");
        await store.admin.editFeed(actor, f.feedId, { languageId: 1 }, T0);
        assert.ok(await store.admin.removeLanguage(actor, de.languageId, T0));
        assert.equal(await store.languageById(de.languageId), undefined);
        const log = await actions(store);
        assert.deepEqual(
          log.filter((a) => !a.startsWith("feed.")),
          [
            "category.add",
            "category.add",
            "category.rename",
            "category.remove",
            "smart-category.add",
            "smart-category.rename",
            "smart-category.remove",
            "language.add",
            "language.rename",
            "language.remove",
          ],
        );
      }),
    );

    it(
      "pages the audit log newest first",
      withStore(factory, async (store) => {
        for (let i = 0; i < 5; i++)
          await store.admin.recordAudit(actor, "opml.import", null, { n: i }, T0 + i);
        const first = await store.admin.auditLog({ limit: 2 });
        assert.deepEqual(
          first.map((a) => JSON.parse(a.details).n),
          [4, 3],
        );
        const next = await store.admin.auditLog({ limit: 2, before: first[1]!.auditId });
        assert.deepEqual(
          next.map((a) => JSON.parse(a.details).n),
          [2, 1],
        );
      }),
    );
  });
}

// The built bin (`npx tsc -b` first) on SQLite and PostgreSQL: what the admin pages do, the CLI
// does too — feeds edit/pause/resume/refresh, renames, languages remove, suggestions
// list/approve/reject, the audit log — through the same store calls, each change audited as
// cli:<os user>; visitors' text reaches the terminal without its control characters.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { userInfo } from "node:os";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { pausedUntil } from "../store/admin-fields.js";
import { openStore } from "../store/open-store.js";
import { postgresBackend, sqliteBackend, type TestBackend } from "../test-support/test-backends.js";

const bin = fileURLToPath(new URL("../../bin/feed-service.js", import.meta.url));

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

const backends: TestBackend[] = [sqliteBackend, postgresBackend()];
after(() => Promise.all(backends.map((b) => b.stop())));

for (const backend of backends) {
  describe(`admin commands (${backend.name})`, () => {
    it("edit, pause, resume, refresh, rename, remove, decide suggestions and read the audit log", async () => {
      const db = await backend.newDatabase();
      const where = ["--database", db.location];
      const seed = await openStore(db.location);
      const feed = await seed.addFeed({ feedUrl: "http://a.invalid/feed", feedName: "A" });
      const category = await seed.addCategory("Birds");
      const smart = await seed.addSmartCategory({ name: "Flex", query: "flex" });
      const waiting = await seed.admin.addSuggestion(
        {
          url: "http://s.invalid/",
          feedUrl: "http://s.invalid/feed",
          feedTitle: "S",
          categoryId: category.categoryId,
          note: "look \u001b]0;owned\u0007 here \u202Etxt.exe",
          clientHash: "h",
        },
        Date.now(),
      );
      const other = await seed.admin.addSuggestion(
        {
          url: "http://t.invalid/",
          feedUrl: "http://t.invalid/feed",
          feedTitle: null,
          categoryId: null,
          note: "",
          clientHash: "h",
        },
        Date.now(),
      );
      await seed.close();
      try {
        const id = String(feed.feedId);
        const edited = await cli([
          "feeds",
          "edit",
          id,
          "--name",
          "Alpha",
          "--category",
          "birds",
          "--language",
          "de-AT",
          ...where,
        ]);
        assert.equal(edited.code, 0, edited.stderr);
        assert.equal(edited.stdout, `edited feed ${id}\n`);
        assert.equal((await cli(["feeds", "edit", id, ...where])).code, 2);
        assert.equal((await cli(["feeds", "pause", id, ...where])).stdout, `paused feed ${id}\n`);
        const paused = JSON.parse((await cli(["feeds", "list", "--json", ...where])).stdout)[0];
        assert.equal(paused.nextFetchAt, new Date(pausedUntil).toISOString());
        assert.equal((await cli(["feeds", "resume", id, ...where])).code, 0);
        assert.equal((await cli(["feeds", "refresh", id, ...where])).stdout, `feed ${id} is due now\n`);
        assert.equal((await cli(["feeds", "refresh", "999", ...where])).code, 1);
        assert.equal((await cli(["feeds", "edit", id, "--category", "none", ...where])).code, 0);

        assert.equal(
          (await cli(["categories", "rename", String(category.categoryId), "Raptors", ...where])).code,
          0,
        );
        assert.equal(
          (await cli(["smart-categories", "rename", String(smart.smartCategoryId), "Flex news", ...where]))
            .code,
          0,
        );
        const languages = JSON.parse((await cli(["languages", "list", "--json", ...where])).stdout);
        const de = languages.find((l: { languageCode: string }) => l.languageCode === "de");
        assert.equal(
          (await cli(["languages", "rename", String(de.languageId), "Deutsch", ...where])).code,
          0,
        );
        const inUse = await cli(["languages", "remove", String(de.languageId), ...where]);
        assert.equal(inUse.code, 1);
        assert.match(inUse.stderr, /used by 1 feeds and 0 posts/);
        assert.equal((await cli(["languages", "remove", "1", ...where])).code, 1);

        const listed = await cli(["suggestions", "list", ...where]);
        assert.equal(listed.code, 0);
        assert.match(listed.stdout, /look \[U\+001B\]\]0;owned\[U\+0007\] here \[U\+202E\]txt\.exe/);
        assert.ok(
          !/[\u0000-\u0008\u000b-\u001f\u202e]/.test(listed.stdout),
          "control characters reached the terminal",
        );
        const approved = await cli(["suggestions", "approve", String(waiting.suggestionId), ...where]);
        assert.equal(approved.code, 0, approved.stderr);
        assert.match(approved.stdout, /^\d+\n$/);
        assert.equal((await cli(["suggestions", "approve", String(waiting.suggestionId), ...where])).code, 1);
        assert.equal((await cli(["suggestions", "reject", String(other.suggestionId), ...where])).code, 0);
        assert.equal((await cli(["suggestions", "list", ...where])).stdout, "(none)\n");
        const all = JSON.parse(
          (await cli(["suggestions", "list", "--state", "all", "--json", ...where])).stdout,
        );
        assert.deepEqual(all.map((s: { state: string }) => s.state).sort(), ["approved", "rejected"]);
        assert.equal((await cli(["suggestions", "list", "--state", "maybe", ...where])).code, 2);

        const audit = JSON.parse((await cli(["audit", "--json", "--limit", "100", ...where])).stdout);
        const mine = audit.filter((r: { actor: string }) => r.actor === `cli:${userInfo().username}`);
        assert.deepEqual(mine.map((r: { action: string }) => r.action).reverse(), [
          "language.add",
          "feed.edit",
          "feed.pause",
          "feed.resume",
          "feed.refresh",
          "feed.edit",
          "category.rename",
          "smart-category.rename",
          "language.rename",
          "feed.add",
          "suggestion.approve",
          "suggestion.reject",
        ]);
        const two = await cli(["audit", "--limit", "2", ...where]);
        assert.equal(two.stdout.trim().split("\n").length, 3);
        assert.match(two.stdout, /^auditId\s+at\s+actor\s+action\s+subject\s+details\n/);
        assert.equal((await cli(["audit", "--limit", "0", ...where])).code, 2);
      } finally {
        db.drop();
      }
    });
  });
}

// The built bin (`npx tsc -b` first): `users add|list|passwd|remove` on SQLite and PostgreSQL —
// passwords from standard input only, never echoed; stored as salted scrypt; exit codes 0/1/2;
// every change in the audit log as cli:<os user>.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { userInfo } from "node:os";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { verifyPassword } from "../admin/passwords.js";
import { openStore } from "../store/open-store.js";
import { postgresBackend, sqliteBackend, type TestBackend } from "../test-support/test-backends.js";

const bin = fileURLToPath(new URL("../../bin/feed-service.js", import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[], stdin?: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [bin, ...args], { timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
    if (stdin !== undefined) child.stdin!.end(stdin);
    else child.stdin!.end();
  });
}

const password = "correct horse battery staple";
const backends: TestBackend[] = [sqliteBackend, postgresBackend()];
after(() => Promise.all(backends.map((b) => b.stop())));

for (const backend of backends) {
  describe(`feed-service users (${backend.name})`, () => {
    it("adds, lists, re-passwords and removes administrators; the password is never shown", async () => {
      const db = await backend.newDatabase();
      const where = ["--database", db.location];
      try {
        const added = await cli(["users", "add", "alice", "--password-stdin", ...where], `${password}\n`);
        assert.equal(added.code, 0, added.stderr);
        assert.equal(added.stdout, "added user alice\n");
        const bob = await cli(
          ["users", "add", "Bob.Smith", "--password-stdin", "--json", ...where],
          `${password}\r\n`,
        );
        assert.equal(bob.code, 0, bob.stderr);
        assert.equal(JSON.parse(bob.stdout).userName, "Bob.Smith");

        const table = await cli(["users", "list", ...where]);
        assert.equal(table.code, 0);
        assert.match(table.stdout, /^userId\s+userName\s+createdAt\s+changedAt\n/);
        assert.match(table.stdout, /alice/);
        const json = JSON.parse((await cli(["users", "list", "--json", ...where])).stdout);
        assert.deepEqual(
          json.map((u: { userName: string }) => u.userName),
          ["alice", "Bob.Smith"],
        );
        assert.ok(json.every((u: object) => !("passwordHash" in u)));

        const store = await openStore(db.location);
        try {
          const a = await store.admin.userCredentials("alice");
          const b = await store.admin.userCredentials("bob.smith");
          assert.match(a!.passwordHash, /^scrypt\$32768\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
          // The same password, a salt of its own: the hashes differ.
          assert.notEqual(a!.passwordHash.split("$")[4], b!.passwordHash.split("$")[4]);
          assert.equal(await verifyPassword(password, a!.passwordHash), true);
          assert.equal(await verifyPassword(`${password}!`, a!.passwordHash), false);
        } finally {
          await store.close();
        }

        const passwd = await cli(
          ["users", "passwd", "ALICE", "--password-stdin", ...where],
          "a whole new passphrase\n",
        );
        assert.equal(passwd.code, 0, passwd.stderr);
        const removed = await cli(["users", "remove", "bob.smith", ...where]);
        assert.equal(removed.code, 0);
        assert.equal((await cli(["users", "remove", "bob.smith", ...where])).code, 1);

        const after = await openStore(db.location);
        try {
          const a = await after.admin.userCredentials("alice");
          assert.equal(await verifyPassword("a whole new passphrase", a!.passwordHash), true);
          const log = await after.admin.auditLog({ limit: 10 });
          assert.deepEqual(log.map((r) => r.action).reverse(), [
            "user.add",
            "user.add",
            "user.passwd",
            "user.remove",
          ]);
          assert.ok(log.every((r) => r.actor === `cli:${userInfo().username}`));
          for (const r of log) assert.ok(!r.details.includes(password) && !r.details.includes("scrypt"));
        } finally {
          await after.close();
        }
        for (const run of [added, bob, passwd, removed]) {
          assert.ok(!run.stdout.includes(password) && !run.stderr.includes(password));
          assert.ok(!run.stdout.includes("passphrase") && !run.stderr.includes("passphrase"));
        }
      } finally {
        db.drop();
      }
    });

    it("refuses short passwords, bad names, missing terminals, duplicates and unknown users with the right exit code", async () => {
      const db = await backend.newDatabase();
      const where = ["--database", db.location];
      try {
        const short = await cli(["users", "add", "carol", "--password-stdin", ...where], "short pw\n");
        assert.equal(short.code, 2);
        assert.match(
          short.stderr,
          /^feed-service users: The password must be at least 12 characters; it has 8\.\n$/,
        );
        assert.ok(!short.stderr.includes("short pw"));
        const badName = await cli(
          ["users", "add", "carol smith", "--password-stdin", ...where],
          `${password}\n`,
        );
        assert.equal(badName.code, 2);
        assert.match(badName.stderr, /user name must be 1 to 64 letters/);
        // No terminal and no --password-stdin: nothing to prompt on.
        const noTty = await cli(["users", "add", "carol", ...where]);
        assert.equal(noTty.code, 2);
        assert.match(noTty.stderr, /--password-stdin/);
        assert.equal(
          (await cli(["users", "add", "carol", "--password-stdin", ...where], `${password}\n`)).code,
          0,
        );
        const duplicate = await cli(["users", "add", "CAROL", "--password-stdin", ...where], `${password}\n`);
        assert.equal(duplicate.code, 1);
        assert.match(duplicate.stderr, /already exists/);
        const unknown = await cli(["users", "passwd", "dave", "--password-stdin", ...where], `${password}\n`);
        assert.equal(unknown.code, 1);
        assert.match(unknown.stderr, /No user is named "dave"/);
        assert.equal((await cli(["users", "list", "extra", ...where])).code, 2);
        assert.equal((await cli(["users"])).code, 2);
        const help = await cli(["users", "--help"]);
        assert.equal(help.code, 0);
        assert.match(help.stdout, /^usage: feed-service users/);
      } finally {
        db.drop();
      }
    });
  });
}

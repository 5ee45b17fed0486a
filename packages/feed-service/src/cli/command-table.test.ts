import assert from "node:assert/strict";
import { test } from "node:test";
import { commandTable } from "./command-table.js";

test("each table entry loads its command, with the same name and summary", async () => {
  for (const entry of commandTable) {
    const command = await entry.load();
    assert.equal(command.name, entry.name);
    assert.equal(
      command.summary,
      entry.summary,
      `${entry.name}: the table's summary differs from the command's`,
    );
    assert.match(command.usage, new RegExp(`^usage: feed-service ${entry.name}`));
  }
});

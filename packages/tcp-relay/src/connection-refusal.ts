import type { Socket } from "node:net";
import { ConnectionFaults } from "./connection-faults.js";
import { connectionLogs } from "./connection-logs.js";
import type { FaultTable } from "./fault-table.js";
import { hitsConnection } from "./fault-table.js";
import { IndentSlots } from "./indent-slots.js";
import type { RelayContext } from "./relay-connection.js";

/**
 * `-refuse @N`: connection `n` is accepted and at once closed, before anything is connected
 * upstream, with its fault line (`F-<n>-s2c-refuse @N`) in the log; it has no Finished lines, as a
 * connection whose server cannot be reached has none. Returns false (doing nothing) for a
 * connection that is not refused.
 */
export function refuseIfAsked(n: number, client: Socket, context: RelayContext, table: FaultTable): boolean {
  if (!table.entries.some((e) => e.fault.kind === "refuse" && hitsConnection(e.fault, n))) return false;
  const slot = context.slots.acquire(n);
  const logs = connectionLogs(context, n, IndentSlots.indentFor(slot));
  const writers = logs === null ? null : { C: logs.c.writer, S: logs.s.writer };
  const faults = new ConnectionFaults(n, table, context.clock(), context.clock, writers, {
    reset() {},
    close() {},
  });
  if (!faults.refuses()) {
    context.slots.release(n, slot);
    void logs?.close();
    return false;
  }
  client.on("error", () => {});
  client.destroy();
  context.slots.release(n, slot);
  void logs?.close();
  return true;
}

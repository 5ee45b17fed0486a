// What each thread of a local process has spent so far (Linux /proc), for the benchmarks that
// say where a served call's CPU went: the latency bench's per-thread trace and per-request
// figures, and served-thread-cpu.
import { readdirSync, readFileSync } from "node:fs";

/** Per thread of `pid`: CPU ns run, user and system ticks, minor faults, read syscalls (Linux /proc). */
export function threadCounters(pid) {
  const counters = new Map();
  let tids = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return counters;
  }
  for (const tid of tids) {
    try {
      const dir = `/proc/${pid}/task/${tid}`;
      const stat = readFileSync(`${dir}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const io = readFileSync(`${dir}/io`, "utf8");
      counters.set(tid, {
        ns: Number(readFileSync(`${dir}/schedstat`, "utf8").split(" ")[0]),
        utime: Number(f[11]),
        stime: Number(f[12]),
        minflt: Number(f[7]),
        syscr: Number(/syscr: (\d+)/.exec(io)?.[1] ?? 0),
      });
    } catch {
      // a thread that ended between the listing and the read
    }
  }
  return counters;
}

// CPU time of a PostgreSQL server on this machine (Linux /proc): its postmaster and every child,
// live and exited (a child that exited is counted in the postmaster's cutime/cstime).
import { readdirSync, readFileSync } from "node:fs";

const stat = (pid) => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");

/** CPU ms of the server whose postmaster is `pid`: it and its children, live and exited. */
export function serverCpuMs(pid) {
  const tick = 10; // USER_HZ 100
  let ticks = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const f = stat(entry);
      // Fields after the name: state ppid ... utime (12th) stime (13th) cutime cstime.
      if (Number(f[1]) === pid) ticks += Number(f[11]) + Number(f[12]);
    } catch {}
  }
  const own = stat(pid);
  ticks += Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  return ticks * tick;
}

/** CPU ms of one process (a server backend). */
export function processCpuMs(pid) {
  const f = stat(pid);
  return (Number(f[11]) + Number(f[12])) * 10;
}

/** The postmaster's pid, from any of its backends' (its parent). */
export function postmasterOf(backendPid) {
  return Number(stat(backendPid)[1]);
}

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

/**
 * The process id of `url`'s PostgreSQL server when it runs on this machine (the parent of its
 * checkpointer, read in /proc), else null.
 */
export async function localPostmasterOf(url) {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const [row] = (await client.query("SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'"))
      .rows;
    return postmasterOf(row.pid);
  } catch {
    return null;
  } finally {
    await client.end();
  }
}

/** The postmaster's pid, from any of its backends' (its parent). */
export function postmasterOf(backendPid) {
  return Number(stat(backendPid)[1]);
}

/**
 * A backend's time on a CPU (ns, /proc/<pid>/schedstat: finer than stat's ticks) and its minor
 * page faults (stat field 10: pages of shared memory it mapped for the first time).
 */
export function backendUsage(pid) {
  try {
    const onCpu = Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]);
    return { onCpu, minflt: Number(stat(pid)[7]) };
  } catch {
    return { onCpu: Number.NaN, minflt: Number.NaN };
  }
}

/** Runs `f` and says what it cost backend `pid`: wall ms, CPU ms, minor faults, and its answer. */
export async function timedOnBackend(pid, f) {
  const u0 = backendUsage(pid);
  const t0 = performance.now();
  const answer = await f();
  const ms = performance.now() - t0;
  const u1 = backendUsage(pid);
  return { answer, ms, cpu: (u1.onCpu - u0.onCpu) / 1e6, faults: u1.minflt - u0.minflt };
}

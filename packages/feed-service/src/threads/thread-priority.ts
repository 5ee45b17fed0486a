/**
 * Lowers the CPU priority of the calling thread (Linux "nice" is per thread). The heavy query
 * threads run below the request thread and the cheap lane, so that on a busy machine a page of
 * getCategories is not queued behind a million-post search for a core. Elsewhere (no
 * /proc/thread-self) it does nothing; a refusal leaves the priority as it was.
 *
 * @returns whether the priority was changed
 * @example
 * lowerThisThreadPriority(10); // in a worker thread
 */
import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";

export function lowerThisThreadPriority(nice: number): boolean {
  try {
    // "<pid>/task/<tid>": the kernel's id of this very thread.
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    setPriority(tid, nice);
    return true;
  } catch {
    return false;
  }
}

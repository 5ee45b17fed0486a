/**
 * The sign-in throttle (spec §5.5): after 5 failed sign-ins for one name, or from one client
 * address, within 15 minutes, further tries are refused until the oldest of those 5 is 15 minutes
 * old. Refused tries are not checked at all, so a right password is refused too while it lasts.
 */
import type { Store } from "../store/store.js";

export const throttleWindowMs = 15 * 60 * 1000;
export const throttleLimit = 5;

/** The throttle's keys for a try: the name as typed (any case) and the hashed client address. */
export function throttleKeys(name: string, clientHash: string): string[] {
  return [`name:${name.trim().toLowerCase().slice(0, 100)}`, `addr:${clientHash}`];
}

/** Milliseconds until a try with these keys is allowed again; 0 when it is allowed now. */
export async function throttleWait(store: Store, keys: readonly string[], now: number): Promise<number> {
  let wait = 0;
  for (const key of keys) {
    const failures = await store.admin.signInFailures(key, now - throttleWindowMs);
    if (failures.length >= throttleLimit) {
      const oldest = failures[failures.length - throttleLimit]!;
      wait = Math.max(wait, oldest + throttleWindowMs - now);
    }
  }
  return wait;
}

// The same conversation cut into TCP segments three ways (every byte alone, all at once, random
// cuts from a seeded generator): every view must give the same log for each.

/** A deterministic generator (mulberry32), so that a failing random cut can be replayed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const SEGMENTATIONS = ["byte by byte", "all at once", "random"] as const;
export type Segmentation = (typeof SEGMENTATIONS)[number];

/** Cuts `bytes` into segments the given way. */
export function segment(bytes: Buffer, how: Segmentation, random = seededRandom(7)): Buffer[] {
  if (bytes.length === 0) return [];
  if (how === "all at once") return [bytes];
  if (how === "byte by byte") return [...bytes].map((_, k) => bytes.subarray(k, k + 1));
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; ) {
    const n = 1 + Math.floor(random() * 40);
    out.push(bytes.subarray(i, i + n));
    i += n;
  }
  return out;
}

/** One step of a conversation: bytes sent by the client (`C`) or the server (`S`). */
export interface Step {
  dir: "C" | "S";
  data: string | Buffer;
}

/** Something that takes one direction's bytes: an assembler, a view. */
export interface StreamTaker {
  push(chunk: Buffer): void;
}

/** Feeds every step, each cut the given way, to the taker of its direction, in order. */
export function replay(
  steps: readonly Step[],
  how: Segmentation,
  take: (dir: "C" | "S") => StreamTaker,
): void {
  const random = seededRandom(11);
  for (const step of steps) {
    const bytes = typeof step.data === "string" ? Buffer.from(step.data, "latin1") : step.data;
    const taker = take(step.dir);
    for (const piece of segment(bytes, how, random)) taker.push(piece);
  }
}

/** Spaces per indentation slot, as in the classic tool. */
export const SPACES_PER_SLOT = 4;

/**
 * The `-i` slots: an opening connection takes the lowest free slot and frees it when it closes;
 * when every slot is taken, it shares slot `n mod slots` without owning it.
 *
 * @example
 * const slots = new IndentSlots(2);
 * slots.acquire(0); // 0
 * slots.acquire(1); // 1
 * slots.acquire(2); // 0 (all busy: 2 mod 2), owned by connection 0 still
 */
export class IndentSlots {
  readonly #owner: (number | undefined)[];

  constructor(readonly count: number) {
    this.#owner = new Array(count).fill(undefined);
  }

  /** The slot for connection `n`; 0 (no indent) when indentation is off. */
  acquire(n: number): number {
    if (this.count === 0) return 0;
    const free = this.#owner.indexOf(undefined);
    if (free === -1) return n % this.count;
    this.#owner[free] = n;
    return free;
  }

  /** Frees connection `n`'s slot if it owns one. */
  release(n: number, slot: number): void {
    if (this.count > 0 && this.#owner[slot] === n) this.#owner[slot] = undefined;
  }

  /** The prefix that puts an entry in `slot`. */
  static indentFor(slot: number): string {
    return " ".repeat(slot * SPACES_PER_SLOT);
  }
}

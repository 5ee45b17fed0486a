// har-validator ships no types: the one call the tests make.
declare module "har-validator/lib/promise.js" {
  /** Resolves when `data` is a valid HAR 1.2 document; rejects with the schema's errors. */
  export function har(data: unknown): Promise<unknown>;
}

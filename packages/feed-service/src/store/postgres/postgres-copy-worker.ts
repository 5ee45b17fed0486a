/**
 * A thread of the post encoders (postgres-copy-encoders.ts): turns a batch of posts into COPY
 * lines with their search vectors, the part of `migrate-data` into PostgreSQL that costs the most
 * on the Node side (every post's text analysed, spec §4), so that it runs beside the reading of
 * the source and the sending of the rows instead of between them.
 */
import { parentPort } from "node:worker_threads";
import type { Row } from "../copied-tables.js";
import { postCopyLines } from "./postgres-copy-rows.js";

export interface EncodeRequest {
  readonly id: number;
  readonly rows: readonly Row[];
  /** Feed id and name of the feeds the batch's posts belong to. */
  readonly names: ReadonlyArray<readonly [number, string]>;
  /** Whether the lines carry the rank columns (postCopyLines' `unranked`). */
  readonly ranked: boolean;
}

export type EncodeReply =
  | {
      readonly id: number;
      readonly ok: true;
      readonly bytes: Uint8Array;
      readonly ms: number;
      /** The posts sent without their rank columns (ranked requests). */
      readonly unranked: number[];
    }
  | { readonly id: number; readonly ok: false; readonly message: string };

const utf8 = new TextEncoder();

parentPort!.on("message", (request: EncodeRequest) => {
  const started = performance.now();
  let reply: EncodeReply;
  try {
    const unranked: number[] = [];
    const lines = postCopyLines(request.rows, new Map(request.names), request.ranked ? unranked : undefined);
    const bytes = utf8.encode(lines);
    reply = { id: request.id, ok: true, bytes, ms: performance.now() - started, unranked };
    parentPort!.postMessage(reply, [bytes.buffer]);
    return;
  } catch (error) {
    reply = { id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(reply);
});

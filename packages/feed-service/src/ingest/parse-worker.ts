/**
 * The worker thread side of the parse pool: runs `processFeedDocument` on the documents the
 * ingest pass sends, so that decoding, parsing and sanitising (CPU-bound) run on another core
 * while the main thread fetches and writes to the database.
 */
import { parentPort, workerData } from "node:worker_threads";
import { FeedServiceError } from "../errors.js";
import { setDetectableLanguages } from "./detectable-languages.js";
import type { CodedFailure } from "./failure-codes.js";
import { type DocumentForStore, processFeedDocument } from "./process-document.js";

export interface ParseRequest {
  id: number;
  body: Uint8Array;
  contentType: string | null;
  contentLanguage: string | null;
  url: string;
  now: number;
}

/** What the pool gives each worker at its start. */
export interface ParseWorkerData {
  readonly detectLanguages: readonly string[];
}

const data = workerData as ParseWorkerData | null;
if (data?.detectLanguages) setDetectableLanguages(data.detectLanguages);

export type ParseReply =
  | { id: number; ok: true; doc: DocumentForStore }
  | { id: number; ok: false; code: string; message: string; failure?: string };

parentPort?.on("message", (req: ParseRequest) => {
  let reply: ParseReply;
  try {
    // Only what the store needs crosses the thread boundary; the raw parse stays here.
    const { parsed: _raw, ...doc } = processFeedDocument(
      req.body,
      req.contentType,
      req.url,
      req.now,
      req.contentLanguage,
    );
    reply = { id: req.id, ok: true, doc };
  } catch (error) {
    reply =
      error instanceof FeedServiceError
        ? {
            id: req.id,
            ok: false,
            code: error.code,
            message: error.message,
            failure: (error as Partial<CodedFailure>).failure,
          }
        : { id: req.id, ok: false, code: "FEED_PARSE_FAILED", message: "The document could not be read." };
  }
  parentPort?.postMessage(reply);
});

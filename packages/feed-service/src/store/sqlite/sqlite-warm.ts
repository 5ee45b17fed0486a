/**
 * Warms a SQLite database at start: reads the file (and its WAL) once, front to back, so that the
 * OS keeps its pages in memory and the first calls after a start do not wait on scattered disk
 * reads (figures in bench/NOTES.md). Only a file that fits in half
 * of the memory available is read: a larger one would push out what it read first.
 */
import { open, stat } from "node:fs/promises";
import { freemem } from "node:os";
import { megabytes, type WarmProgress, type WarmReport } from "../cache-warm.js";

const chunkBytes = 1 << 20;

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return 0;
    throw error;
  }
}

async function readThrough(path: string, onChunk: (bytes: number) => void): Promise<number> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return 0;
    throw error;
  }
  const buffer = Buffer.allocUnsafe(chunkBytes);
  let total = 0;
  try {
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, chunkBytes, total);
      if (bytesRead === 0) return total;
      total += bytesRead;
      onChunk(bytesRead);
    }
  } finally {
    await handle.close();
  }
}

/**
 * @example
 * const report = await warmSqliteFile("./data/feeds.db");
 * console.log(`${report.bytes} bytes read`, report.skipped ?? "");
 */
export async function warmSqliteFile(
  path: string,
  onProgress?: WarmProgress,
  availableBytes: number = freemem(),
): Promise<WarmReport> {
  const files = [path, `${path}-wal`];
  const sizes = await Promise.all(files.map(sizeOf));
  const total = sizes.reduce((a, b) => a + b, 0);
  if (total > availableBytes / 2) {
    return {
      bytes: 0,
      skipped: `the database (${megabytes(total)}) is larger than half the memory available (${megabytes(availableBytes)})`,
    };
  }
  let done = 0;
  for (const file of files) {
    await readThrough(file, (bytes) => {
      done += bytes;
      onProgress?.(done, Math.max(total, done));
    });
  }
  return { bytes: done };
}

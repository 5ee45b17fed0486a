/**
 * The pages' static files (stylesheet, script, favicon), served by the service itself under
 * content-hashed names (`/assets/pages.1a2b3c4d5e.css`) with a year-long immutable cache: a new
 * version is a new name, so browsers never need to ask again. Read and hashed once at start-up;
 * a gzip copy is kept for clients that accept it.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";

export interface Asset {
  readonly path: string;
  readonly contentType: string;
  readonly body: Buffer;
  readonly gzipped: Buffer;
}

export interface AssetCatalog {
  readonly stylesheet: string;
  readonly script: string;
  readonly favicon: string;
  /** The asset served at a path under /assets/, or undefined. */
  get(path: string): Asset | undefined;
}

/** Where the files are, from src/web or dist/web alike (both sit two folders below the package). */
const assetFolder = new URL("../../src/web/assets/", import.meta.url);

const sources = {
  stylesheet: { file: "pages.css", contentType: "text/css; charset=utf-8" },
  script: { file: "pages.js", contentType: "text/javascript; charset=utf-8" },
  favicon: { file: "favicon.svg", contentType: "image/svg+xml" },
} as const;

/** Cache lifetime of hashed assets: a year, immutable (RFC 8246). */
export const assetCacheControl = "public, max-age=31536000, immutable";

/**
 * @example
 * const assets = loadAssetCatalog();
 * assets.stylesheet; // "/assets/pages.1a2b3c4d5e.css"
 */
export function loadAssetCatalog(): AssetCatalog {
  const byPath = new Map<string, Asset>();
  const paths = {} as Record<keyof typeof sources, string>;
  for (const [name, { file, contentType }] of Object.entries(sources) as [
    keyof typeof sources,
    (typeof sources)[keyof typeof sources],
  ][]) {
    const body = readFileSync(new URL(file, assetFolder));
    const hash = createHash("sha256").update(body).digest("hex").slice(0, 10);
    const dot = file.lastIndexOf(".");
    const path = `/assets/${file.slice(0, dot)}.${hash}${file.slice(dot)}`;
    byPath.set(path, { path, contentType, body, gzipped: gzipSync(body, { level: 9 }) });
    paths[name] = path;
  }
  return { ...paths, get: (path) => byPath.get(path) };
}

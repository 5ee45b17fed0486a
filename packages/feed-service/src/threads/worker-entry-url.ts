/**
 * Where a worker thread starts. Built code runs the compiled `.js` module next to the caller. Run
 * from the TypeScript sources (the tests, under tsx), a worker does not inherit tsx's loader, so
 * a tiny module registers it first and then imports the `.ts` entry.
 */

/**
 * @param callerUrl `import.meta.url` of the module that starts the worker
 * @param name the worker module's file name without extension, next to the caller
 * @example
 * new Worker(workerEntryUrl(import.meta.url, "parse-worker"));
 */
export function workerEntryUrl(callerUrl: string, name: string): URL {
  if (!callerUrl.endsWith(".ts")) return new URL(`./${name}.js`, callerUrl);
  const tsx = import.meta.resolve("tsx/esm/api");
  const entry = new URL(`./${name}.ts`, callerUrl).href;
  const code = `import { register } from ${JSON.stringify(tsx)}; register(); await import(${JSON.stringify(entry)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(code)}`);
}

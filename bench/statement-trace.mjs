// Every SQL statement a build's SQLite store runs, timed in this process: its StatementCache
// wrapped so that each statement's all/get/run/iterate (and each step of an iterator) adds its
// CPU time (the process's, from getrusage: a loaded machine's waits for a core do not count), its
// calls, rows and read syscalls (Linux /proc/self/io: the pages SQLite read from the OS) to
// `trace.spent`, by statement text, while that is a Map (null: not recorded).
// Used by sqlite-search-stages.mjs and sqlite-search-mix-cpu.bench.mjs.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

export const processCpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** Read syscalls of this process so far (0 where /proc/self/io is not there). */
export const readCalls = () => {
  try {
    return Number(/^syscr: (\d+)$/m.exec(readFileSync("/proc/self/io", "utf8"))?.[1] ?? 0);
  } catch {
    return 0;
  }
};

/** The read syscalls that readCalls itself makes (reading /proc/self/io). */
const READ_CALLS_OWN = -readCalls() + readCalls();

/** The statements of the call being timed: text -> { ms, calls, rows, reads }; null between calls. */
export const trace = { spent: null };

/** Wraps the StatementCache of the build in `folder` (a dist) so that every statement it hands out is timed. */
export async function traceStatements(folder) {
  const { StatementCache } = await import(pathToFileURL(`${folder}/store/sqlite/sqlite-connection.js`).href);
  const get = StatementCache.prototype.get;
  const wrapped = new WeakMap();
  StatementCache.prototype.get = function (sql) {
    const stmt = get.call(this, sql);
    let proxy = wrapped.get(stmt);
    if (proxy === undefined) {
      const text = sql.replace(/\s+/g, " ").trim();
      proxy = new Proxy(stmt, {
        get(target, prop) {
          const value = target[prop];
          if (typeof value !== "function") return value;
          if (prop === "all" || prop === "get" || prop === "run" || prop === "iterate") {
            const entryOf = () => {
              const entry = trace.spent.get(text) ?? { ms: 0, calls: 0, rows: 0, reads: 0 };
              trace.spent.set(text, entry);
              return entry;
            };
            return (...args) => {
              const reads = readCalls();
              const started = processCpu();
              const result = value.apply(target, args);
              if (trace.spent !== null) {
                const entry = entryOf();
                entry.reads += readCalls() - reads - READ_CALLS_OWN;
                entry.ms += processCpu() - started;
                entry.calls++;
                entry.rows += prop === "iterate" ? 0 : Array.isArray(result) ? result.length : 1;
              }
              if (prop !== "iterate") return result;
              // An iterator steps the statement on each next(): each step is timed as the statement's.
              return {
                [Symbol.iterator]() {
                  return this;
                },
                next() {
                  const at = processCpu();
                  const step = result.next();
                  if (trace.spent !== null) {
                    const entry = entryOf();
                    entry.ms += processCpu() - at;
                    if (!step.done) entry.rows++;
                  }
                  return step;
                },
                return(v) {
                  return result.return ? result.return(v) : { done: true, value: v };
                },
              };
            };
          }
          // pluck(), raw(), safeIntegers() return the statement itself: keep the proxy.
          return (...args) => {
            const result = value.apply(target, args);
            return result === target ? proxy : result;
          };
        },
      });
      wrapped.set(stmt, proxy);
    }
    return proxy;
  };
}

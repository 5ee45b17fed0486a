import { PlatformAuthError } from "../errors.js";
import { checkBudget, readLayers } from "../settings-resolver.js";
import { type HourCounts, hourOf, readUsageFile } from "../usage-meter.js";
import { defaultUsagePath } from "../xdg-paths.js";
import type { CliIo } from "./cli-io.js";
import { parseCommand, settingsFromFlags } from "./cli-options.js";

// Warn from this share of a budget on, so that there is time to slow down before throttling.
const WARN_AT = 0.8;

/**
 * `usage [--json] [--hours N] [--calls-per-hour N] [--mints-per-hour N]`: tokens minted and calls
 * sent per credential and hour by every process of this user, and a warning when the current hour
 * nears a budget the user sets.
 */
export async function usageCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseCommand("usage", args, {
    json: { type: "boolean" },
    hours: { type: "string" },
    "calls-per-hour": { type: "string" },
    "mints-per-hour": { type: "string" },
  });
  const hours = positive(values.hours, "--hours") ?? 24;
  // Flags first, then the budgets of the settings (AEP_CALLS_PER_HOUR, a profile's callsPerHour, ...).
  const { layers } = readLayers({ options: settingsFromFlags(values), env: io.env, cwd: io.cwd });
  const setting = (key: "callsPerHour" | "mintsPerHour") =>
    layers.find((l) => l.values[key] !== undefined)?.values[key];
  const budget = {
    calls:
      positive(values["calls-per-hour"], "--calls-per-hour") ??
      checkBudget("calls-per-hour budget", setting("callsPerHour")),
    mints:
      positive(values["mints-per-hour"], "--mints-per-hour") ??
      checkBudget("mints-per-hour budget", setting("mintsPerHour")),
  };
  const path = defaultUsagePath(io.env);
  const file = readUsageFile(path);
  const now = Date.now();
  const thisHour = hourOf(now);
  const since = hourOf(now - (hours - 1) * 3_600_000);
  const credentials = Object.values(file).map((u) => {
    const rows = Object.entries(u.hours)
      .filter(([h]) => h >= since)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([hour, c]) => ({ hour, ...c }));
    const current: HourCounts = u.hours[thisHour] ?? { mints: 0, calls: 0 };
    const warnings: string[] = [];
    for (const what of ["calls", "mints"] as const) {
      const limit = budget[what];
      if (limit === undefined || current[what] < limit * WARN_AT) continue;
      const pct = Math.round((current[what] / limit) * 100);
      warnings.push(
        current[what] >= limit
          ? `${current[what]} ${what} this hour for client ${u.clientId}: the budget of ${limit} is reached (${pct}%); stop or spread the work of every app using this credential`
          : `${current[what]} of ${limit} ${what} this hour for client ${u.clientId} (${pct}%); slow down before the budget is reached (every app using this credential counts)`,
      );
    }
    return { clientId: u.clientId, orgId: u.orgId, thisHour: current, hours: rows, warnings };
  });
  if (values.json) {
    io.stdout(`${JSON.stringify({ file: path, thisHour, budget, credentials }, null, 2)}\n`);
  } else if (credentials.length === 0) {
    io.stdout(`no usage recorded yet in ${path}\n`);
  } else {
    for (const c of credentials) {
      io.stdout(`client ${c.clientId}, org ${c.orgId} (last ${hours} h, UTC)\n`);
      io.stdout(`HOUR           MINTS  CALLS\n`);
      for (const r of c.hours)
        io.stdout(`${r.hour}  ${String(r.mints).padStart(5)}  ${String(r.calls).padStart(5)}\n`);
    }
  }
  for (const c of credentials) for (const w of c.warnings) io.stderr(`platform-auth: warning: ${w}\n`);
  return 0;
}

function positive(value: unknown, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) {
    throw new PlatformAuthError(
      "PA_USAGE",
      `usage: ${flag} must be a whole number ≥ 1, got ${JSON.stringify(value)}`,
    );
  }
  return n;
}

import { ERROR_CODES, type PlatformAuthErrorCode } from "../errors.js";

export type StepStatus = "ok" | "warn" | "fail" | "skip";

/** One step of the doctor: what it found and, when it failed, the fix. No secret, no token. */
export interface DoctorStep {
  id: "settings" | "identity" | "token" | "test-call" | "sandbox";
  title: string;
  status: StepStatus;
  /** What the step found, one line each. */
  found: string[];
  /** The failure's reason code (see failure-reasons.ts), when the failure came from an answer. */
  reason?: string;
  /** The fix, in one sentence. */
  fix?: string;
  /** Our error code of the failure (it decides the exit code). */
  code?: PlatformAuthErrorCode;
}

export interface DoctorReport {
  ok: boolean;
  /** The CLI's exit code: 0, or that of the first failed step's error code. */
  exitCode: number;
  steps: DoctorStep[];
}

export function reportOf(steps: DoctorStep[]): DoctorReport {
  const failed = steps.find((s) => s.status === "fail");
  const exitCode = failed ? (failed.code ? ERROR_CODES[failed.code].exitCode : 1) : 0;
  return { ok: failed === undefined, exitCode, steps };
}

const MARK: Record<StepStatus, string> = { ok: "ok  ", warn: "warn", fail: "FAIL", skip: "skip" };

/** The report for people: one line per step, what it found indented below, then the fix. */
export function formatReport(report: DoctorReport): string {
  const width = Math.max(...report.steps.map((s) => s.title.length));
  const lines: string[] = [];
  for (const s of report.steps) {
    lines.push(`${MARK[s.status]}  ${s.title.padEnd(width)}  ${s.found[0] ?? ""}`.trimEnd());
    for (const f of s.found.slice(1)) lines.push(`      ${"".padEnd(width)}  ${f}`);
    if (s.fix && !s.found.some((f) => f.includes(s.fix as string))) {
      lines.push(`      ${"".padEnd(width)}  fix${s.reason ? ` (${s.reason})` : ""}: ${s.fix}`);
    }
  }
  const failed = report.steps.find((s) => s.status === "fail");
  lines.push(
    failed
      ? `credentials do not work yet: fix "${failed.title}" first`
      : report.steps.some((s) => s.status === "warn")
        ? "credentials work (with warnings above)"
        : "credentials work",
  );
  return `${lines.join("\n")}\n`;
}

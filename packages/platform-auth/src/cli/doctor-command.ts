import { runDoctor } from "../doctor/doctor.js";
import { formatReport } from "../doctor/doctor-report.js";
import { defaultUsagePath } from "../xdg-paths.js";
import type { CliIo } from "./cli-io.js";
import { parseCommand, settingsFromFlags } from "./cli-options.js";

/**
 * `doctor [--json]`: checks the credentials step by step and says what each step found and, on
 * failure, the fix. Exit 0 when the credentials work (warnings allowed), else the exit code of the
 * first failure, as every other command.
 */
export async function doctorCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseCommand("doctor", args, { json: { type: "boolean" } });
  const { tokenCache: _ignored, ...flags } = settingsFromFlags(values);
  const report = await runDoctor({
    ...flags,
    env: io.env,
    cwd: io.cwd,
    usageFile: defaultUsagePath(io.env),
  });
  io.stdout(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
  return report.exitCode;
}

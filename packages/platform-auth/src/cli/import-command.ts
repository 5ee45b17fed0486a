import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { saveProfile } from "../config-file-writer.js";
import { readConsoleProject } from "../console-project.js";
import { PlatformAuthError } from "../errors.js";
import { toList } from "../settings.js";
import { configFilePath } from "../xdg-paths.js";
import type { CliIo } from "./cli-io.js";
import { parseCommand } from "./cli-options.js";

/**
 * `import <file> [--profile NAME] [--credential NAME] [--force] [--json]`: reads the project JSON
 * the Developer Console downloads into a profile of the config file (written 0600). Prints what
 * was imported, never a secret.
 */
export async function importCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommand("import", args, {
    credential: { type: "string" },
    force: { type: "boolean" },
    json: { type: "boolean" },
  });
  const [fileArg, ...extra] = positionals;
  if (!fileArg || extra.length > 0) {
    throw new PlatformAuthError(
      "PA_USAGE",
      "import: expected one file, the project JSON downloaded from the Developer Console (workspace → Download all)",
    );
  }
  const file = resolve(io.cwd, fileArg);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new PlatformAuthError(
      "PA_USAGE",
      `import: ${file} could not be read (${(err as NodeJS.ErrnoException).code ?? "error"})`,
    );
  }
  const cred = readConsoleProject(text, file, values.credential as string | undefined);
  const profile = (values.profile as string | undefined) ?? profileNameOf(cred.workspace);
  const configFile = configFilePath(io.env);
  const saved = saveProfile(configFile, profile, cred.settings, { force: values.force === true });
  const secrets = cred.settings.clientSecrets ? toList(cred.settings.clientSecrets)?.length : 1;
  const summary = {
    profile,
    configFile,
    credential: cred.name,
    method: cred.method,
    project: cred.project,
    workspace: cred.workspace,
    clientId: cred.settings.clientId,
    orgId: cred.settings.orgId,
    clientSecrets: secrets,
    scopes: toList(cred.settings.scopes) ?? null,
    replaced: saved.replaced,
    defaultProfile: saved.madeDefault,
  };
  if (values.json) io.stdout(`${JSON.stringify(summary, null, 2)}\n`);
  else {
    io.stdout(
      `imported ${cred.method === "oauth" ? "OAuth Server-to-Server" : "JWT (deprecated)"} credential "${cred.name}" of ${cred.project} / ${cred.workspace}\n` +
        `into profile "${profile}"${saved.replaced ? " (replaced)" : ""}${saved.madeDefault ? " (the default profile)" : ""} of ${configFile} (mode 0600)\n` +
        `client id ${summary.clientId}, org ${summary.orgId}, ${secrets} client secret${secrets === 1 ? "" : "s"}` +
        `${summary.scopes ? `, scopes ${summary.scopes.join(",")}` : ""}\n` +
        `check it with: platform-auth doctor${saved.madeDefault ? "" : ` --profile ${profile}`}\n`,
    );
  }
  if (saved.tightened)
    io.stderr(`platform-auth: ${configFile} was readable by others; it is now mode 0600\n`);
  // The downloaded file holds the secret in clear too.
  try {
    if ((statSync(file).mode & 0o077) !== 0) {
      io.stderr(
        `platform-auth: warning: ${file} holds the client secret and other users can read it; delete it or run chmod 600 on it\n`,
      );
    }
  } catch {}
  return 0;
}

/** "Production" -> "production", "My Stage 2" -> "my-stage-2". */
function profileNameOf(workspace: string): string {
  const name = workspace
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
  return name === "" ? "default" : name;
}

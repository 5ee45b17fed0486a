/** Usage text of the platform-auth command. */
export const usage = `usage: platform-auth <command> [options]

Obtains, caches and uses Adobe Experience Platform credentials.
commands: token, headers, test, call, jwt, inspect, emulator
  --help             show this help`;

export async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(`${usage}\n`);
    return argv.length === 0 ? 2 : 0;
  }
  process.stderr.write(`platform-auth: unknown command ${JSON.stringify(argv[0])}\n`);
  return 2;
}

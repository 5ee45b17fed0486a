/** Usage text of the feed-service command. */
export const usage = `usage: feed-service <command> [options]

commands: serve, demo, ingest, feeds, categories, smart-categories, languages, opml, start-demo
  --help             show this help`;

export async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(`${usage}\n`);
    return argv.length === 0 ? 2 : 0;
  }
  if (argv[0] === "start-demo") {
    process.stdout.write("feed-service: the service is not built yet; this placeholder starts nothing.\n");
    return 0;
  }
  process.stderr.write(`feed-service: unknown command ${JSON.stringify(argv[0])}\n`);
  return 2;
}

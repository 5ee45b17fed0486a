/** Usage text, shaped after the classic proxy.jar command line. */
export const usage = `usage: tcp-relay <host> <remoteport> <localport> [-q] [-b] [-t] [-logfile <file>] [-i [n]]

Relays every TCP connection on <localport> to <host>:<remoteport> and logs the conversation.
  -q                 quiet: no entries on the console
  -b                 binary mode: hex and characters, 16 bytes per entry
  -t                 timestamp every entry
  -logfile <file>    also append the log to <file>
  -i [n]             indent entries by connection slot (n slots, default 16)
  --help             show this help`;

export async function main(argv: string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  process.stderr.write("tcp-relay: the relay is not built yet\n");
  return 2;
}

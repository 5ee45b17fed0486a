// The local feed server of the shaped corpora, run as a child process (its rendering costs the
// service nothing): node bench/shape-feed-server.mjs <shape> <posts>. Listens on 127.0.0.1, port
// 0, and prints the port. The parent moves it from pass to pass with an IPC message {pass} (it
// answers {pass} when ready); GET /opml/<pass>.opml lists the feeds subscribed at that pass and
// GET /feed/<n>.xml serves feed n's document of the current pass.
import { createServer } from "node:http";
import { feedDocument, opmlDocument, planShape, shapeByName } from "./corpus-shapes.mjs";

const plan = planShape(shapeByName(process.argv[2]), Number(process.argv[3]));
let pass = 0;
let base = "";

const server = createServer((req, res) => {
  const feed = /^\/feed\/(\d+)\.xml$/.exec(req.url ?? "");
  const opml = /^\/opml\/(\d+)\.opml$/.exec(req.url ?? "");
  let body;
  let type;
  if (feed && plan.feeds[Number(feed[1])]) {
    body = feedDocument(plan, plan.feeds[Number(feed[1])], pass, base);
    type = "application/rss+xml; charset=utf-8";
  } else if (opml) {
    body = opmlDocument(plan, Number(opml[1]), base);
    type = "text/x-opml; charset=utf-8";
  } else {
    return void res.writeHead(404).end();
  }
  res.writeHead(200, { "content-type": type, "content-length": body.length });
  res.end(body);
});
// The ingest client keeps connections alive between fetches; Node's default 5 s keep-alive made
// the server close sockets the client was about to reuse (CONNECTION_RESET under load).
server.keepAliveTimeout = 600_000;
server.headersTimeout = 610_000;
server.requestTimeout = 0;
process.on("message", (message) => {
  pass = message.pass;
  process.send({ pass });
});
server.listen(0, "127.0.0.1", () => {
  base = `http://127.0.0.1:${server.address().port}`;
  process.stdout.write(`${server.address().port}\n`);
});
process.on("disconnect", () => process.exit(0));

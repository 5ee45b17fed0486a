// Generated feeds for the ingest benchmark: RSS 2.0 documents with a declared language and items
// of about 1 KB of HTML each (design.md, "Benchmark inputs"). Deterministic for a given seed.
const words =
  "aggregator river signal harbour lantern meadow quartz timber velvet orbit canyon ember falcon glacier horizon island jasmine kernel lagoon mosaic nectar onyx prairie quiver saffron tundra umbra vortex willow yonder zephyr".split(
    " ",
  );

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Draws one word: the 30 words above, each as likely (a real list: `useWordList`). */
let drawWord = (rand) => words[Math.floor(rand() * words.length)];

/**
 * Draws the documents' words from a word list (one a line, e.g. Debian's
 * /usr/share/dict/american-english) instead of the 30 words above, which understate what a
 * full-text index writes (few terms, long posting lists): the list's lower-case words shuffled
 * (seeded), then drawn by Zipf's law (rank r with weight 1/r), as words occur in text, so that a
 * few words are in most posts and most in few. The same list gives the same documents in every
 * process (the feed server is one).
 */
export function useWordList(path, readText) {
  const list = readText(path)
    .split("\n")
    .filter((w) => /^[a-z]+$/.test(w));
  if (list.length === 0) throw new Error(`${path} holds no lower-case words`);
  const shuffle = rng(42);
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(shuffle() * (i + 1));
    [list[i], list[j]] = [list[j], list[i]];
  }
  // Cumulative weights, searched by bisection for each draw.
  const cumulative = new Float64Array(list.length);
  let total = 0;
  for (let r = 0; r < list.length; r++) cumulative[r] = total += 1 / (r + 1);
  drawWord = (rand) => {
    const x = rand() * total;
    let lo = 0;
    let hi = list.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return list[lo];
  };
}

function sentence(rand, n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(drawWord(rand));
  return out.join(" ");
}

/**
 * One feed document (a Buffer) with `items` items, numbered from `first`: a later document of the
 * same feed (a larger `first`) holds newer items, as a feed does when it is refreshed. With
 * `copyEvery` n > 0, every n-th item of a feed (but the first feed) is a copy of the previous
 * feed's item of the same number, as a planet or category feed carries it: the same title, text
 * and date under its own guid, its link with tracking parameters; each item's text is then drawn
 * from a generator of its own, so that the copy can repeat it.
 */
export function feedDocument(feedIndex, items, baseUrl, first = 0, copyEvery = 0) {
  if (copyEvery > 0) return copyingDocument(feedIndex, items, baseUrl, first, copyEvery);
  const rand = rng(feedIndex + 1 + first * 7_919);
  const now = Date.UTC(2026, 0, 1);
  const parts = [
    `<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/">`,
    `<channel><title>Bench feed ${feedIndex}</title><link>${baseUrl}/site/${feedIndex}/</link>`,
    `<description>Generated feed ${feedIndex}</description><language>en-US</language>`,
  ];
  for (let k = 0; k < items; k++) {
    const i = first + k;
    const date = new Date(now + first * 3_600_000 - (feedIndex * items + k) * 60_000).toUTCString();
    const html =
      `<p>${sentence(rand, 40)} <a href="/site/${feedIndex}/posts/${i}">read</a></p>` +
      `<p>${sentence(rand, 40)} <img src="/img/${i}.png" alt="x"></p><blockquote>${sentence(rand, 30)}</blockquote>` +
      `<ul><li>${sentence(rand, 8)}</li><li>${sentence(rand, 8)}</li></ul>`;
    parts.push(
      `<item><title>${sentence(rand, 6)} &amp; ${i}</title><link>${baseUrl}/site/${feedIndex}/posts/${i}</link>`,
      `<guid isPermaLink="false">bench:${feedIndex}:${i}</guid><pubDate>${date}</pubDate><dc:creator>Author ${i % 7}</dc:creator>`,
      `<description><![CDATA[${html.slice(0, 300)}]]></description><content:encoded><![CDATA[${html}]]></content:encoded></item>`,
    );
  }
  parts.push("</channel></rss>");
  return Buffer.from(parts.join("\n"));
}

function copyingDocument(feedIndex, items, baseUrl, first, copyEvery) {
  const now = Date.UTC(2026, 0, 1);
  const item = (feed, i, k) => {
    const rand = rng((feed + 1) * 1_000_003 + i * 7_919);
    const date = new Date(now + first * 3_600_000 - (feed * items + k) * 60_000).toUTCString();
    const html =
      `<p>${sentence(rand, 40)} <a href="/site/${feed}/posts/${i}">read</a></p>` +
      `<p>${sentence(rand, 40)} <img src="/img/${i}.png" alt="x"></p><blockquote>${sentence(rand, 30)}</blockquote>` +
      `<ul><li>${sentence(rand, 8)}</li><li>${sentence(rand, 8)}</li></ul>`;
    return {
      title: `${sentence(rand, 6)} &amp; ${i}`,
      link: `${baseUrl}/site/${feed}/posts/${i}`,
      date,
      html,
    };
  };
  const parts = [
    `<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/">`,
    `<channel><title>Bench feed ${feedIndex}</title><link>${baseUrl}/site/${feedIndex}/</link>`,
    `<description>Generated feed ${feedIndex}</description><language>en-US</language>`,
  ];
  for (let k = 0; k < items; k++) {
    const i = first + k;
    const copy = feedIndex > 0 && (feedIndex + i) % copyEvery === 0;
    const it = copy ? item(feedIndex - 1, i, k) : item(feedIndex, i, k);
    const link = copy ? `${it.link}?utm_source=bench&amp;utm_medium=feed` : it.link;
    parts.push(
      `<item><title>${it.title}</title><link>${link}</link>`,
      `<guid isPermaLink="false">bench:${feedIndex}:${i}</guid><pubDate>${it.date}</pubDate><dc:creator>Author ${i % 7}</dc:creator>`,
      `<description><![CDATA[${it.html.slice(0, 300)}]]></description><content:encoded><![CDATA[${it.html}]]></content:encoded></item>`,
    );
  }
  parts.push("</channel></rss>");
  return Buffer.from(parts.join("\n"));
}

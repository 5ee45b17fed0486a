// The shapes of the bench corpora (spec §4 "Latency": "data of any shape"): how many feeds, how
// their sizes spread, which languages, over how many years, and the order in which a user's
// service would have stored the posts: an OPML import whose feed documents carry archives of up to
// 1,000 entries, then yearly polling passes that bring each feed's newer entries, and later
// imports of feeds whose archives reach back years. Everything is drawn from a seed: the same
// shape and size give the same feeds, posts, words and clicks on every machine.
//
// The plan is shared by the feed server (bench/shape-feed-server.mjs, which renders the documents)
// and the builder (bench/shape-corpus.mjs, which drives the real CLI and adds the clicks).
import { demoTechTerms, SeededRandom, unspaced, vocabulary, zipfWord } from "./shape-vocabulary.mjs";

const DAY = 86_400_000;
const YEAR = 365.25 * DAY;

/** Corpora end at this instant (as the demo corpus does), so cached files stay valid. */
export const shapeNow = Date.UTC(2026, 0, 15, 12, 0, 0);

/** Bump when the plan or the text changes: cached corpora of another version are not reused. */
export const shapeVersion = "s1";

/**
 * The shapes. `demo` is the demo loader's corpus (45 feeds, 10 languages, 90 days, posts stored in
 * date order); the others are generated here. `languages`: [code, share of feeds].
 */
export const shapes = {
  demo: {
    description: "the demo loader's corpus: 45 feeds, 10 languages, 90 days, stored in date order",
  },
  "long-tail": {
    description:
      "3,000 feeds of heavy-tailed sizes (log-normal, a few thousand posts down to a handful), 12 years, English 60% of feeds, de/fr/es/it/pt/zh/ja the rest",
    feeds: 3000,
    sigma: 1.6,
    years: 12,
    seed: 31,
    languages: [
      ["en", 60],
      ["de", 6],
      ["fr", 6],
      ["es", 6],
      ["it", 5],
      ["pt-BR", 5],
      ["zh", 6],
      ["ja", 6],
    ],
  },
  "minority-english": {
    description:
      "1,500 feeds of heavy-tailed sizes, 12 years, eight languages none dominant: English 14% of feeds, de 16, fr 14, es 14, it 12, pt 12, zh 9, ja 9",
    feeds: 1500,
    sigma: 1.3,
    years: 12,
    seed: 32,
    languages: [
      ["en", 14],
      ["de", 16],
      ["fr", 14],
      ["es", 14],
      ["it", 12],
      ["pt-BR", 12],
      ["zh", 9],
      ["ja", 9],
    ],
  },
  "many-feeds": {
    description:
      "10,000 feeds (the spec's most), mostly small (log-normal, sigma 1.2), 12 years, English 45% of feeds, the seven others the rest",
    feeds: 10_000,
    sigma: 1.2,
    years: 12,
    seed: 33,
    languages: [
      ["en", 45],
      ["de", 10],
      ["fr", 10],
      ["es", 9],
      ["it", 7],
      ["pt-BR", 7],
      ["zh", 6],
      ["ja", 6],
    ],
  },
};

export const shapeNames = Object.keys(shapes);

export function shapeByName(name) {
  const shape = shapes[name];
  if (!shape) throw new Error(`unknown shape ${JSON.stringify(name)}; shapes: ${shapeNames.join(", ")}`);
  return { name, ...shape };
}

/** Entries per feed document: the archive an OPML import meets, and the most one poll brings. */
export const DOCUMENT_ENTRIES = 1000;
/** Polling passes: the import 3 years after the corpus's start, then one pass a year to its end. */
const IMPORT_AFTER_YEARS = 3;
const categoryNames = [
  "News",
  "Technology",
  "Science",
  "Culture",
  "Business",
  "Sport",
  "Travel",
  "Food",
  "Personal",
];
/** Clicks: half a click per post, over the last 3.5 years. */
const CLICKS_PER_POST = 0.5;
const CLICK_YEARS = 3.5;

function normal(rng) {
  // Box-Muller.
  const u = 1 - rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
}

/**
 * The plan of a shape at `posts` posts: feeds (language, category, subscription pass, host) and,
 * per feed, its posts' dates oldest first, each with the pass that stores it. Posts are numbered
 * feed by feed; a post's number seeds its text.
 */
export function planShape(shape, posts) {
  const start = shapeNow - shape.years * YEAR;
  const passTimes = [start + IMPORT_AFTER_YEARS * YEAR];
  while (passTimes.at(-1) < shapeNow - 1) passTimes.push(Math.min(shapeNow, passTimes.at(-1) + YEAR));
  const rng = new SeededRandom(shape.seed);
  const languageTotal = shape.languages.reduce((sum, [, share]) => sum + share, 0);
  const feeds = [];
  for (let i = 0; i < shape.feeds; i++) {
    let x = rng.next() * languageTotal;
    let language = shape.languages[0][0];
    for (const [code, share] of shape.languages) {
      if (x < share) {
        language = code;
        break;
      }
      x -= share;
    }
    const born = rng.chance(0.55) ? start : start + rng.next() * (shapeNow - 60 * DAY - start);
    const ends = rng.chance(0.15) ? born + (0.3 + 0.7 * rng.next()) * (shapeNow - born) : shapeNow;
    feeds.push({
      index: i,
      language,
      category: rng.chance(0.85) ? categoryNames[rng.int(0, categoryNames.length - 1)] : null,
      // 70% come with the first OPML import, the rest with later ones, archives and all.
      subscribedPass: rng.chance(0.7) ? 0 : rng.int(1, passTimes.length - 1),
      weight: Math.exp(shape.sigma * normal(rng)),
      born,
      ends,
      seed: rng.int(0, 2 ** 31),
    });
  }
  // Sizes: scale the weights until the posts the documents carry reach `posts` (documents cap
  // what is stored: an archive keeps its newest 1,000 entries), then drop the surplus at random.
  let scale = posts / feeds.reduce((sum, f) => sum + f.weight, 0);
  let kept;
  for (let round = 0; round < 8; round++) {
    kept = feeds.map((f) => keptDates(f, Math.max(1, Math.round(f.weight * scale)), passTimes));
    const total = kept.reduce((sum, k) => sum + k.dates.length, 0);
    if (total >= posts || total === 0) break;
    scale *= (posts / total) * 1.02;
  }
  const total = kept.reduce((sum, k) => sum + k.dates.length, 0);
  const drop = new Set();
  const dropRng = new SeededRandom(shape.seed + 1);
  while (drop.size < total - posts) drop.add(dropRng.int(0, total - 1));
  let number = 0;
  let seen = 0;
  for (const [i, f] of feeds.entries()) {
    const { dates, passes } = kept[i];
    const keepDates = [];
    const keepPasses = [];
    for (let k = 0; k < dates.length; k++, seen++) {
      if (drop.has(seen)) continue;
      keepDates.push(dates[k]);
      keepPasses.push(passes[k]);
    }
    f.firstPost = number;
    f.dates = Float64Array.from(keepDates);
    f.passes = Uint8Array.from(keepPasses);
    number += keepDates.length;
  }
  return { shape, posts: number, feeds, passTimes, start };
}

/** The dates of `n` posts of feed `f` that its documents carry, and the pass that brings each. */
function keptDates(f, n, passTimes) {
  const rng = new SeededRandom(f.seed);
  const all = Array.from({ length: n }, () => f.born + rng.next() * (f.ends - f.born)).sort((a, b) => a - b);
  const byPass = passTimes.map(() => []);
  for (const date of all) {
    let pass = passTimes.findIndex((t) => date <= t);
    if (pass < f.subscribedPass) pass = f.subscribedPass;
    byPass[pass].push(date);
  }
  const dates = [];
  const passes = [];
  for (const [pass, list] of byPass.entries()) {
    for (const date of list.slice(-DOCUMENT_ENTRIES)) {
      dates.push(date);
      passes.push(pass);
    }
  }
  return { dates, passes };
}

/** The feeds subscribed at `pass`, as an OPML 2.0 document grouped by category. */
export function opmlDocument(plan, pass, baseUrl) {
  const groups = new Map();
  for (const f of plan.feeds) {
    if (f.subscribedPass !== pass) continue;
    const list = groups.get(f.category) ?? [];
    list.push(f);
    groups.set(f.category, list);
  }
  const outline = (f) =>
    `<outline type="rss" text="${feedTitle(f)}" title="${feedTitle(f)}" xmlUrl="${baseUrl}/feed/${f.index}.xml" htmlUrl="${baseUrl}/site/${f.index}/"/>`;
  const body = [];
  for (const [category, list] of groups) {
    if (category === null) body.push(...list.map(outline));
    else body.push(`<outline text="${category}">`, ...list.map(outline), "</outline>");
  }
  return Buffer.from(
    `<?xml version="1.0" encoding="utf-8"?>\n<opml version="2.0"><head><title>Subscriptions, pass ${pass}</title></head><body>\n${body.join("\n")}\n</body></opml>\n`,
  );
}

const languageNames = {
  en: "Daily",
  de: "Tagebuch",
  fr: "Journal",
  es: "Diario",
  it: "Giornale",
  "pt-BR": "Diário",
  zh: "日报",
  ja: "日誌",
};

function feedTitle(f) {
  return `${languageNames[f.language]} ${f.index}`;
}

const escapeXml = (text) => text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");

/** A token: mostly the language's own words, some English loanwords and technology terms. */
function token(rng, code, own, english) {
  const x = rng.next();
  if (x < 0.02) return rng.pick(demoTechTerms);
  if (code !== "en" && x < 0.06) return zipfWord(rng, english);
  return zipfWord(rng, own);
}

function words(rng, code, n, own, english) {
  const parts = Array.from({ length: n }, () => token(rng, code, own, english));
  if (!unspaced.has(code)) return parts.join(" ");
  // Runs of Chinese or Japanese without spaces; a Latin word keeps a space on each side.
  let text = "";
  for (const part of parts) {
    const latin = /^[\x00-\x7f]/.test(part);
    const prevLatin = /[\x00-\x7f]$/.test(text);
    text += text !== "" && (latin || prevLatin) ? ` ${part}` : part;
  }
  return text;
}

/** Post number `n` of feed `f` (its title, excerpt and ~1 KB of HTML), drawn from `n`'s seed. */
export function postText(plan, f, n) {
  const rng = new SeededRandom(plan.shape.seed * 1_000_003 + n);
  const own = vocabulary(f.language);
  const english = vocabulary("en");
  const end = unspaced.has(f.language) ? "。" : ". ";
  const sentence = () => {
    const s = words(rng, f.language, rng.int(8, 16), own, english);
    return s.charAt(0).toUpperCase() + s.slice(1) + end;
  };
  const paragraph = () =>
    Array.from({ length: rng.int(2, 3) }, sentence)
      .join("")
      .trim();
  const title = words(rng, f.language, rng.int(4, 9), own, english);
  const paragraphs = [paragraph(), paragraph(), paragraph()];
  const html = paragraphs.map((p) => `<p>${escapeXml(p)}</p>`).join("\n");
  return { title: title.charAt(0).toUpperCase() + title.slice(1), excerpt: paragraphs[0], html };
}

/** The link of post `n` of feed `f`: the builder maps stored posts back to the plan through it. */
export const postLink = (baseUrl, f, n) => `${baseUrl}/site/${f.index}/posts/${n}`;
export const postNumberOfLink = (link) => Number(/\/posts\/(\d+)$/.exec(link)?.[1]);

/** Feed `f`'s document at `pass`: the entries that pass brings (at most 1,000), newest first. */
export function feedDocument(plan, f, pass, baseUrl) {
  const parts = [
    `<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/">`,
    `<channel><title>${feedTitle(f)}</title><link>${baseUrl}/site/${f.index}/</link>`,
    `<description>Feed ${f.index} of the ${plan.shape.name} corpus</description><language>${f.language}</language>`,
  ];
  for (let k = f.dates.length - 1; k >= 0; k--) {
    if (f.passes[k] !== pass) continue;
    const n = f.firstPost + k;
    const { title, excerpt, html } = postText(plan, f, n);
    const link = postLink(baseUrl, f, n);
    parts.push(
      `<item><title>${escapeXml(title)}</title><link>${link}</link><guid isPermaLink="true">${link}</guid>`,
      `<pubDate>${new Date(f.dates[k]).toUTCString()}</pubDate><description>${escapeXml(excerpt)}</description>`,
      `<content:encoded><![CDATA[${html}]]></content:encoded></item>`,
    );
  }
  parts.push("</channel></rss>\n");
  return Buffer.from(parts.join("\n"));
}

/**
 * The clicks: half a click per post, on posts of the last 3.5 years, each post's share
 * heavy-tailed (Pareto), most clicks within days of the post, some months later. Calls
 * `each(postNumber, at, client)` in post order.
 */
export function planClicks(plan, each) {
  const rng = new SeededRandom(plan.shape.seed + 2);
  const from = shapeNow - CLICK_YEARS * YEAR;
  const clients = Array.from({ length: 5000 }, () => rng.uuid().replaceAll("-", ""));
  const eligible = [];
  for (const f of plan.feeds) {
    for (let k = 0; k < f.dates.length; k++) {
      if (f.dates[k] >= from && rng.chance(0.3)) eligible.push([f.firstPost + k, f.dates[k]]);
    }
  }
  const weights = eligible.map(() => (1 - rng.next()) ** (-1 / 1.5));
  const scale = (plan.posts * CLICKS_PER_POST) / weights.reduce((a, b) => a + b, 0);
  let clicks = 0;
  for (const [i, [n, date]] of eligible.entries()) {
    const expected = weights[i] * scale;
    const count = Math.floor(expected) + (rng.next() < expected % 1 ? 1 : 0);
    for (let c = 0; c < count; c++) {
      const delay = rng.chance(0.9) ? -Math.log(1 - rng.next()) * 3 * DAY : rng.next() * YEAR;
      each(n, Math.min(shapeNow, Math.floor(date + delay)), rng.pickSkewed(clients));
      clicks++;
    }
  }
  return clicks;
}

/**
 * Smart categories on the corpus's common words (rank 1 is the second commonest word of a
 * language): one huge, one OR, one AND, one of a minority language.
 */
export function smartCategoriesOf(shape) {
  const en = vocabulary("en").words;
  const second = shape.languages.find(([code]) => code !== "en" && !unspaced.has(code))?.[0] ?? "de";
  const other = vocabulary(second).words;
  return [
    { name: `Common: ${en[1]}`, query: en[1] },
    { name: `Either: ${en[6]} or ${other[3]}`, query: `${en[6]} OR ${other[3]}` },
    { name: `Both: ${en[4]} ${en[8]}`, query: `${en[4]} ${en[8]}` },
    { name: `Minority: ${other[9]}`, query: other[9] },
  ];
}

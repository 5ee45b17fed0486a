/**
 * Writes one demo post: a headline in the feed's language, usually about a technology; about 1 KB of HTML content (paragraphs, a list, a link, inline code); a plain
 * excerpt; and the date fields the way real feeds fill them (most published, some only updated,
 * a few with neither).
 */
import type { IncomingPost } from "../store/store.js";
import { demoCommonWords, demoRareWords, demoTechTerms } from "./demo-vocabulary.js";
import type { SeededRandom } from "./seeded-random.js";

export interface DemoPostContext {
  readonly host: string;
  readonly languageCode: string;
  readonly languageId: number;
  /** The sentence's closing mark: `。` for Japanese and Chinese, `.` otherwise. */
  readonly sentenceEnd: string;
}

/** Languages written without spaces between words (see demo-vocabulary.ts). */
const unspaced = new Set(["ja", "zh"]);

/** Joins words as the language writes them: with spaces, or run together. */
function joinWords(languageCode: string, parts: readonly string[]): string {
  if (!unspaced.has(languageCode)) return parts.join(" ");
  // A Latin word (a technology, a rare word) keeps a space on each side, as Japanese and Chinese
  // writers usually put one around it.
  let text = "";
  for (const part of parts) {
    const latin = /^[\x00-\x7f]/.test(part);
    const prevLatin = /[\x00-\x7f]$/.test(text);
    text += text !== "" && (latin || prevLatin) ? ` ${part}` : part;
  }
  return text;
}

function sentence(rng: SeededRandom, languageCode: string, length: number, extra: string[]): string {
  const common = demoCommonWords[languageCode]!;
  const parts: string[] = [];
  for (let i = 0; i < length; i++) parts.push(rng.pickSkewed(common));
  for (const word of extra) parts.splice(rng.int(0, parts.length), 0, word);
  const text = joinWords(languageCode, parts);
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Headline shapes per language: {T} a technology (or a word), {w} an everyday word. */
const titleTemplates: Readonly<Record<string, readonly string[]>> = {
  en: [
    "How to {w} {w} with {T}",
    "{T} {w}: a {w} {w}",
    "Why {w} {w} matters",
    "What's new in {T} {w}",
    "{w} {w} in {T}",
  ],
  fr: ["Comment {w} {w} avec {T}", "{T} : {w} {w}", "Pourquoi {w} {w}", "Les {w} de {T}"],
  de: ["Wie man {w} mit {T} {w}", "{T}: {w} und {w}", "Warum {w} {w} wichtig ist"],
  es: ["Cómo {w} {w} con {T}", "{T}: {w} y {w}", "Por qué {w} {w} importa"],
  "pt-BR": ["Como {w} {w} com {T}", "{T}: {w} e {w}", "Por que {w} {w} importa"],
  ja: ["{T}の{w}{w}", "{T}で{w}を{w}する方法", "{w}{w}入門"],
  zh: ["{T}的{w}{w}", "如何用{T}{w}{w}", "{w}{w}入门"],
  ko: ["{T}로 {w} {w}하는 방법", "{T}: {w}와 {w}", "{w} {w} 입문"],
  it: ["Come {w} {w} con {T}", "{T}: {w} e {w}", "Perché {w} {w} conta"],
  nl: ["Hoe je {w} {w} met {T}", "{T}: {w} en {w}", "Waarom {w} {w} belangrijk is"],
};

function headline(rng: SeededRandom, languageCode: string, tech: string | null): string {
  const common = demoCommonWords[languageCode]!;
  const text = rng
    .pick(titleTemplates[languageCode]!)
    .replace("{T}", tech ?? rng.pickSkewed(common))
    .replace(/\{w\}/g, () => rng.pickSkewed(common));
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/** About 1 KB of sanitised-looking HTML, and the excerpt taken from its first paragraph. */
function body(
  rng: SeededRandom,
  ctx: DemoPostContext,
  extra: string[],
): { content: string; excerpt: string } {
  const common = demoCommonWords[ctx.languageCode]!;
  const paragraphs: string[] = [];
  const count = rng.int(3, 4);
  for (let p = 0; p < count; p++) {
    const sentences: string[] = [];
    const n = rng.int(2, 3);
    for (let s = 0; s < n; s++)
      sentences.push(sentence(rng, ctx.languageCode, rng.int(8, 14), p === 0 && s === 0 ? extra : []));
    const between = unspaced.has(ctx.languageCode) ? ctx.sentenceEnd : `${ctx.sentenceEnd} `;
    paragraphs.push(sentences.join(between) + ctx.sentenceEnd);
  }
  const items = [rng.pick(demoTechTerms), rng.pickSkewed(common), rng.pickSkewed(common)];
  const link = `https://${ctx.host}/docs/${rng.int(1, 999)}`;
  const content = [
    `<p>${escapeHtml(paragraphs[0]!)}</p>`,
    `<p>${escapeHtml(paragraphs[1]!)} <code>${escapeHtml(rng.pickSkewed(common))}()</code></p>`,
    `<ul>${items.map((i) => `<li>${escapeHtml(i)}</li>`).join("")}</ul>`,
    ...paragraphs
      .slice(2)
      .map((p) => `<p>${escapeHtml(p)} <a href="${link}">${escapeHtml(rng.pickSkewed(common))}</a></p>`),
  ].join("\n");
  const first = paragraphs[0]!;
  // Cut at a space where there is one; text written without spaces is cut at 299 characters.
  const space = first.lastIndexOf(" ", 299);
  const excerpt = first.length <= 300 ? first : `${first.slice(0, space > 0 ? space : 299)}…`;
  return { content, excerpt };
}

/**
 * @param at the post's publication instant (epoch ms); `now` caps the first-seen time.
 */
export function writeDemoPost(
  rng: SeededRandom,
  ctx: DemoPostContext,
  sequence: number,
  at: number,
  now: number,
): IncomingPost {
  const tech = rng.chance(0.7) ? rng.pick(demoTechTerms) : null;
  const rare = rng.chance(0.8) ? [rng.pick(demoRareWords)] : [];
  const title = headline(rng, ctx.languageCode, tech);
  const { content, excerpt } = body(rng, ctx, rare);
  const seenAt = Math.min(now, at + rng.int(0, 2 * 3_600_000));
  const shape = rng.next();
  const slug = `${sequence.toString(36)}-${rng.int(0, 1e6).toString(36)}`;
  const date = new Date(at);
  return {
    guid: `https://${ctx.host}/posts/${slug}`,
    link: `https://${ctx.host}/${date.getUTCFullYear()}/${date.getUTCMonth() + 1}/${slug}`,
    title,
    excerpt,
    content,
    // 93% publish a date, 5% only an update time, 2% neither (first-seen time then dates them).
    publishedAt: shape < 0.93 ? at : null,
    updatedAt:
      shape < 0.93 ? (rng.chance(0.1) ? Math.min(now, at + 86_400_000) : null) : shape < 0.98 ? at : null,
    seenAt: shape < 0.98 ? seenAt : at,
    languageId: ctx.languageId,
  };
}

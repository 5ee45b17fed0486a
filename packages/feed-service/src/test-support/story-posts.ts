/**
 * Fixtures for the tests of one story once: news texts with enough words for a text print
 * (dedupe/text-fingerprint.ts, `minWords`), so that copies under other links are found by text,
 * and posts that are each their own story.
 */
import type { IncomingPost } from "../store/store.js";
import { incoming } from "./store-contract/contract-fixture.js";

/** Three stories of one sentence each (about 200 characters). */
export const storyTexts = {
  tram: "The city council voted on Tuesday to extend the tram line across the river, after two years of public hearings in which residents of the northern districts argued that buses could no longer carry the commuters.",
  garden:
    "Volunteers planted four hundred trees along the old railway embankment this weekend, turning a strip of gravel and weeds into the first part of a garden path that will link the market square with the lake.",
  harbour:
    "Ten years ago the harbour was a place of empty warehouses and broken cranes; today the old customs house holds a museum, the piers host a night market and ferries carry more visitors than fishing boats.",
} as const;

/** Longer tellings of two of them (about 270 characters), as the end-to-end tests store them. */
export const longStoryTexts = {
  tram:
    "The city council voted on Tuesday to extend the tram line across the river, after two years of " +
    "public hearings in which residents of the northern districts argued that the buses could no longer " +
    "carry the commuters who travel to the hospital and the university every morning.",
  garden:
    "Volunteers planted four hundred trees along the old railway embankment this weekend, turning a strip " +
    "of gravel and weeds into the first part of a garden path that will link the market square with the " +
    "lake shore by the end of next summer, the parks department said.",
} as const;

/**
 * A post that is its own story (`storyLink` is its link), its content the excerpt as one
 * paragraph; the rest as `incoming` makes it (seen at T0, language 1) unless `fields` say otherwise.
 */
export function storyPost(
  guid: string,
  link: string,
  title: string,
  excerpt: string,
  publishedAt: number,
  fields: Partial<IncomingPost> = {},
): IncomingPost {
  return incoming(guid, {
    link,
    title,
    excerpt,
    content: `<p>${excerpt}</p>`,
    publishedAt,
    storyLink: link,
    ...fields,
  });
}

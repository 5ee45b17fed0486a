/** The top of the OpenAPI 3.1 document of the JSON API; the paths come from the routes' schemas. */
import type { FastifyDynamicSwaggerOptions } from "@fastify/swagger";

export const openApiInfo: FastifyDynamicSwaggerOptions["openapi"] = {
  openapi: "3.1.0",
  info: {
    title: "feed-service JSON API",
    version: "1.0.0",
    description:
      "The 16 read-only operations of the feed aggregator as JSON (the same operations, rules and " +
      "messages as its SOAP endpoint at /webservices/FeedAggregator). Answers carry an ETag and " +
      "Cache-Control: public, max-age=30; errors are RFC 9457 problem documents.",
  },
  tags: [
    { name: "posts", description: "Recent and popular posts." },
    { name: "search", description: "Full-text search and its history." },
    { name: "categories", description: "Categories, their posts and feeds." },
    { name: "smart-categories", description: "Saved searches and their posts." },
    { name: "feeds", description: "Feeds, the most popular and prolific ones, and their posts." },
    { name: "languages", description: "Languages, their feeds and figures." },
  ],
};

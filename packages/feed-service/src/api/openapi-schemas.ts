/**
 * The OpenAPI side of each JSON route, generated from the operation table (spec §5.1): its query
 * and path parameters with the §4 rules as JSON Schema, the column set of its answer as the item
 * schema, and the problem document of its errors. @fastify/swagger collects these route schemas
 * into the OpenAPI 3.1 document; Fastify itself does not validate with them (routes.ts turns its
 * validator off), so every message a client sees is the operation's own.
 */
import type { ParameterType } from "@feed-toolkit/soap";
import type { FastifySchema } from "fastify";
import { maxDaysBack, maxLimit, maxSearchTermsLength } from "../operations/argument-readers.js";
import type { FeedColumnSpec } from "../operations/column-sets.js";
import type { FeedOperation } from "../operations/operation-table.js";
import type { QueryParameter } from "./api-arguments.js";

type JsonSchema = Record<string, unknown>;

const cellTypes: Record<FeedColumnSpec["type"], JsonSchema> = {
  int: { type: "integer" },
  double: { type: "number" },
  string: { type: "string" },
  dateTime: { type: "string", format: "date-time" },
};

export function columnSetSchema(columns: readonly FeedColumnSpec[]): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const c of columns) {
    const base = cellTypes[c.type];
    properties[c.name] = c.nullable ? { ...base, type: [base.type, "null"] } : base;
  }
  return { type: "object", properties, required: columns.map((c) => c.name) };
}

/** The §4 rules of each argument, as far as JSON Schema says them (the messages say the rest). */
const argumentSchemas: Record<string, JsonSchema> = {
  limit: { type: "integer", minimum: 0, maximum: maxLimit, description: "How many items at most." },
  offset: { type: "integer", minimum: 0, description: "How many items to skip." },
  daysBack: {
    type: "number",
    exclusiveMinimum: 0,
    maximum: maxDaysBack,
    description: "The window in days, fractions allowed (0.5 = the last 12 hours).",
  },
  languageIds: {
    type: "string",
    description: "Comma-separated language ids (at most 100, spaces allowed); empty for every language.",
  },
  searchTerms: {
    type: "string",
    minLength: 1,
    maxLength: maxSearchTermsLength,
    description:
      'Search terms: words are ANDed, "a phrase", -word excludes, OR (upper case) joins its neighbours; operators: word* (a prefix of 3 or more characters), title:word or title:"a phrase", feed:name, lang:de,fr, after:YYYY-MM-DD and before:YYYY-MM-DD (UTC days, inclusive), combined like words (-feed:name excludes).',
  },
  sortBy: {
    type: "string",
    description: "relevance (the default when empty), date or clicks, in any case.",
  },
  sincepost: {
    type: "string",
    description: "Only posts newer than this: a post id (whole number) or an ISO 8601 instant.",
  },
  categoryId: { type: "integer", description: "A category id." },
  feedId: { type: "integer", description: "A feed id." },
  languageId: { type: "integer", description: "A language id." },
};

function argumentSchema(arg: string, type: ParameterType | undefined): JsonSchema {
  return argumentSchemas[arg] ?? (type === "double" ? { type: "number" } : { type: "string" });
}

export const problemSchema: JsonSchema = {
  type: "object",
  description: "An RFC 9457 problem document; detail is the person-readable message of spec §3.",
  properties: {
    type: { type: "string" },
    title: { type: "string" },
    status: { type: "integer" },
    detail: { type: "string" },
    code: { type: "string", description: "The error code (FEED_BAD_ARGUMENT, FEED_NOT_FOUND, …)." },
  },
  required: ["type", "title", "status", "detail"],
};

function problemResponse(description: string, retryAfter = false): JsonSchema {
  return {
    description,
    ...(retryAfter
      ? {
          headers: {
            "Retry-After": { type: "integer", description: "Seconds to wait before trying again." },
          },
        }
      : {}),
    content: { "application/problem+json": { schema: problemSchema } },
  };
}

const idOrKeySchema: JsonSchema = {
  type: "string",
  pattern: "^(?:[0-9]+|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$",
  description: "The smart category's id (digits) or its key (a UUID).",
};

/** One line per operation for the docs page (the operation table names them; people read these). */
const summaries: Record<string, string> = {
  search: "Search posts (words, phrases, -exclusions, OR)",
  getMostRecentPosts: "The newest posts",
  getPostsByCategory: "The newest posts of a category's feeds",
  getPostsByFeed: "The newest posts of a feed",
  getPostsBySmartCategory: "The newest posts matching a smart category",
  getMostPopularPosts: "The most clicked posts within a window",
  getCategories: "Every category, by name",
  getSmartCategories: "Every smart category, by name",
  getLanguages: "Every language, by id",
  getMostPopularFeeds: "The feeds whose posts were clicked most within a window",
  getMostProlificFeeds: "The feeds with the most posts within a window",
  getFeeds: "Every feed, by name",
  getFeedsByCategory: "The feeds of a category, by name",
  getSearchHistory: "The 20 most recent distinct searches",
  getFeedsByLanguage: "The feeds of a language, by name",
  getAggregateLanguageData: "Feeds, posts, clicks and last post per language",
};

/** The post lists' last field: the other feeds that carry the same story (one story once). */
function withAlsoIn(schema: JsonSchema): JsonSchema {
  const alsoIn: JsonSchema = {
    type: "array",
    description:
      "The other feeds that carry this story, in the order they first carried it; empty for most posts.",
    items: {
      type: "object",
      properties: { feedId: { type: "integer" }, feedName: { type: "string" } },
      required: ["feedId", "feedName"],
    },
  };
  const properties = { ...(schema.properties as Record<string, JsonSchema>), alsoIn };
  return { ...schema, properties, required: [...(schema.required as string[]), "alsoIn"] };
}

export interface RouteSchemaInput {
  readonly path: string;
  readonly operation: FeedOperation;
  readonly query: ReadonlyMap<string, QueryParameter>;
  readonly pathParameters: readonly string[];
  readonly postList: boolean;
}

export function routeSchema({
  path,
  operation,
  query,
  pathParameters,
  postList,
}: RouteSchemaInput): FastifySchema {
  const types = new Map(operation.parameters.map((p) => [p.name, p.type]));
  const queryProperties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [name, spec] of query) {
    const schema = argumentSchema(spec.arg, types.get(spec.arg));
    queryProperties[name] =
      spec.default === undefined || spec.default === null ? schema : { ...schema, default: spec.default };
    if (spec.default === undefined) required.push(name);
  }
  const pathProperties: Record<string, JsonSchema> = {};
  for (const name of pathParameters) {
    pathProperties[name] = name === "idOrKey" ? idOrKeySchema : argumentSchema(name, types.get(name));
  }
  const answer: JsonSchema = {
    type: "object",
    properties: {
      items: {
        type: "array",
        items: postList ? withAlsoIn(columnSetSchema(operation.columns)) : columnSetSchema(operation.columns),
      },
      ...(postList
        ? { next: { type: ["string", "null"], format: "uri", description: "The next page, or null." } }
        : {}),
    },
    required: postList ? ["items", "next"] : ["items"],
  };
  return {
    operationId: operation.name,
    summary: summaries[operation.name] ?? operation.name,
    description: `The ${operation.name} operation: the same rules, order and messages as over SOAP.`,
    tags: [path.split("/")[3]],
    ...(query.size > 0 ? { querystring: { type: "object", properties: queryProperties, required } } : {}),
    ...(pathParameters.length > 0
      ? { params: { type: "object", properties: pathProperties, required: [...pathParameters] } }
      : {}),
    response: {
      200: {
        description: "The operation's items, in its order.",
        headers: {
          ETag: { type: "string", description: "Changes whenever the answer does." },
          "Cache-Control": { type: "string", description: "public, max-age=30" },
        },
        content: { "application/json": { schema: answer } },
      },
      304: { description: "Not modified: the If-None-Match tag is still current.", type: "null" },
      400: problemResponse("A bad argument: the detail names it, the value received and what is allowed."),
      ...(pathParameters.length > 0 || query.has("categoryId")
        ? { 404: problemResponse("An id or key in the request names nothing.") }
        : {}),
      500: problemResponse("An internal error (the detail is generic)."),
      503: problemResponse(
        "The database does not answer, the query ran past its deadline, or the service is busy.",
        true,
      ),
    },
  } as FastifySchema;
}

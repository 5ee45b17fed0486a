/** `GET /metrics` (spec §5.4): the Prometheus text, for allowed addresses only; anyone else gets 404. */
import type { FastifyReply, FastifyRequest } from "fastify";
import { sendText } from "../http/responses.js";
import type { MetricsAccess } from "./metrics-access.js";
import type { ServiceMetrics } from "./service-metrics.js";

export function createMetricsRoute(metrics: ServiceMetrics, access: MetricsAccess) {
  return async function metricsRoute(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    // The same answer as an unknown path: a refused scraper learns nothing about the service.
    if (!access.allows(request.socket.remoteAddress)) return sendText(reply, 404, "Not found.\n");
    const { contentType, body } = await metrics.scrape();
    reply.code(200).header("content-type", contentType).header("cache-control", "no-store").send(body);
  };
}

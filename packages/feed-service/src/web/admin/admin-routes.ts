/**
 * Registers the administrators' pages and the public suggestion form (spec §5.5) on the service's
 * Fastify instance: `/suggest`, `/admin/sign-in`, `/admin/sign-out` and everything under /admin.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { requestBaseUrl } from "../../http/base-url.js";
import type { OperationRunner } from "../../operations/operation-runner.js";
import type { Store } from "../../store/store.js";
import type { AssetCatalog } from "../asset-catalog.js";
import type { PageContext } from "../page-context.js";
import { createAdminGuard } from "./admin-guard.js";
import { createAdminKit } from "./admin-kit.js";
import { catalogAdminRoutes } from "./catalog-admin-routes.js";
import { dashboardRoutes } from "./dashboard-routes.js";
import { feedAdminRoutes } from "./feed-admin-routes.js";
import { signInRoutes } from "./sign-in-routes.js";
import { suggestionRoutes } from "./suggestion-routes.js";
import { userAdminRoutes } from "./user-admin-routes.js";

export interface AdminRoutesOptions {
  readonly store: Store;
  readonly runner: OperationRunner;
  readonly assets: AssetCatalog;
  readonly siteName: string;
  readonly publicUrl: string | undefined;
  readonly now?: () => number;
  /** Let addresses given by people reach loopback, private and link-local hosts (--allow-private-fetch). */
  readonly allowPrivateFetch?: boolean;
  readonly logError: (message: string) => void;
}

export function registerAdminRoutes(app: FastifyInstance, options: AdminRoutesOptions): void {
  const now = options.now ?? Date.now;
  const context = (request: FastifyRequest): PageContext => ({
    runner: options.runner,
    baseUrl: requestBaseUrl(request.raw, options.publicUrl),
    now: now(),
    assets: options.assets,
    siteName: options.siteName,
  });
  const secure = options.publicUrl?.startsWith("https:") ?? false;
  const guard = createAdminGuard({ store: options.store, now, secure, context, logError: options.logError });
  const kit = createAdminKit({
    app,
    store: options.store,
    guard,
    now,
    context,
    allowPrivateFetch: options.allowPrivateFetch ?? false,
    logError: options.logError,
  });
  signInRoutes(kit, secure);
  dashboardRoutes(kit);
  suggestionRoutes(kit);
  feedAdminRoutes(kit);
  catalogAdminRoutes(kit);
  userAdminRoutes(kit);
}

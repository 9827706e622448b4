// The /api/* Pages Function a site's `functions/api/[[path]].ts` re-exports (`content-index init` writes
// that file). `_routes.json` keeps the current version and the alias static, so this runs only for
// deprecated, withdrawn and unknown versions. The logic lives in the pure core.
import { type AssetFetcher, requestClock, serveApi } from '../core/edge/serve-api.ts';

export interface ApiFunctionEnv {
  ASSETS: AssetFetcher;
  /** Test-only clock (ISO 8601), set with `wrangler pages dev --binding`. Never set it in production. */
  CONTENT_INDEX_TEST_NOW?: string;
}

export function onRequest(context: { request: Request; env: ApiFunctionEnv }): Promise<Response> {
  return serveApi(context.request, {
    assets: context.env.ASSETS,
    now: requestClock(context.env.CONTENT_INDEX_TEST_NOW),
  });
}

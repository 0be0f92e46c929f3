// /healthz, /metrics, /openapi.json: unauthenticated operational routes.
import type { ServerModule } from '../app';
import { openapiDocument } from '../openapi';
import { version } from 'dotcode-sdk';

export const systemModule: ServerModule = {
  name: 'system',
  register({ router, deps }) {
    router.get('/healthz', async (ctx) => {
      try {
        await deps.store.ping();
        ctx.body = { ok: true, store: deps.store.kind, version };
      } catch {
        // 503 so a load balancer takes this instance out while its store is unreachable
        ctx.status = 503;
        ctx.set('Retry-After', '1');
        ctx.body = { ok: false, error: 'store_unavailable', message: `The ${deps.store.kind} store does not answer.`, store: deps.store.kind, version };
      }
    });
    router.get('/metrics', async (ctx) => {
      ctx.type = deps.metrics.registry.contentType;
      ctx.body = await deps.metrics.registry.metrics();
    });
    router.get('/openapi.json', async (ctx) => {
      ctx.body = openapiDocument();
    });
  },
};

// The engine as the server uses it (issue 16, item 4): every decode passes the fair megapixel
// gate (pixel-gate.ts), and after large images the engine's threads are recycled once the server
// is idle, so the memory a pixel bomb took returns to the system instead of staying resident.
import { ApiError } from './errors';
import type { Engine } from './engine';
import type { Logger } from './logger';
import { PixelGate, PixelGateFull, type GateOptions } from './pixel-gate';

export interface BudgetOptions extends GateOptions {
  /** a decode of at least this many pixels marks the engine for recycling */
  recycleAfterPixels: number;
  /** how long the server must be idle before the recycle (ms) */
  recycleIdleMs: number;
}

export interface BudgetedEngine extends Engine {
  readonly gate: PixelGate;
  /** recycles done so far (exposed in /metrics) */
  recycles(): number;
  /** stops the idle timer (server close) */
  stop(): void;
}

export function budgetedEngine(inner: Engine, o: BudgetOptions, logger?: Logger): BudgetedEngine {
  const gate = new PixelGate(o);
  let dirty = false;
  let recycling: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let count = 0;

  const schedule = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      if (!dirty || gate.load.running > 0 || gate.load.waiting > 0) return;
      dirty = false;
      const t0 = Date.now();
      recycling = inner.recycle()
        .then(() => { count++; logger?.info({ ms: Date.now() - t0 }, 'engine threads recycled after large images'); })
        .catch((e: Error) => logger?.warn({ err: e.message }, 'engine recycle failed'))
        .finally(() => { recycling = null; });
    }, o.recycleIdleMs);
    timer.unref();
  };

  // Every decode, a stream's frames included, passes the gate; large images mark the engine for recycling.
  async function gated<T>(bytes: Buffer, tenant: string, run: () => Promise<T>): Promise<T> {
    const probe = inner.probeImage(bytes);
    // a header that names no size (not an image) costs what the smallest image would
    const pixels = probe.width && probe.height ? probe.width * probe.height : 1;
    try {
      return await gate.run(tenant, pixels, async () => {
        if (recycling) await recycling; // never decode on threads being stopped
        return run();
      });
    } catch (e) {
      if (e instanceof PixelGateFull) {
        throw new ApiError(429, 'rate_limited', `Too many images of this key are waiting to be decoded (${e.waiting}); retry after 1 s.`, {}, { 'Retry-After': '1' });
      }
      throw e;
    } finally {
      if (pixels >= o.recycleAfterPixels) dirty = true;
      if (dirty) schedule();
    }
  }

  return {
    gate,
    recycles: () => count,
    stop: () => { if (timer) clearTimeout(timer); },
    probeImage: (bytes) => inner.probeImage(bytes),
    warmUp: () => inner.warmUp(),
    recycle: () => inner.recycle(),
    decode: (bytes, options, tenant = 'anonymous') => gated(bytes, tenant, () => inner.decode(bytes, options)),
    frames(options) {
      const session = inner.frames(options);
      return { push: (bytes, tenant = 'anonymous') => gated(bytes, tenant, () => session.push(bytes)), close: () => session.close() };
    },
  };
}

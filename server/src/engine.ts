// The server decodes only through the SDK's one engine module (no second decoding path). This
// seam exists so the app receives the engine as a dependency (the load bench measures the same
// functions the API calls), not to swap it in tests: tests use the real engine.
import * as engine from 'dotcode-sdk/engine';
import type { DecodeOptions, DecodeResult, ImageProbe } from 'dotcode-sdk/engine';

export interface Engine {
  /** `tenant` (customer or licence) is who the decode is for: budgets are fair between tenants */
  decode(bytes: Buffer, options: DecodeOptions, tenant?: string): Promise<DecodeResult>;
  probeImage(bytes: Uint8Array): ImageProbe;
  warmUp(): Promise<void>;
  /**
   * Stops the engine's threads and starts fresh ones: a worker's WebAssembly memory only grows
   * (zxing-wasm keeps the largest image it read), so after large images this is how memory
   * returns. Call it only while nothing decodes.
   */
  recycle(): Promise<void>;
}

export const sdkEngine: Engine = {
  decode: (bytes, options) => engine.decode(bytes, options),
  probeImage: (bytes) => engine.probeImage(bytes),
  warmUp: () => engine.warmUp(),
  recycle: async () => {
    await engine.close();
    await engine.warmUp();
  },
};

export { DECODE_ERROR_PREFIX, decodeErrorCode, FORMATS, GS1_MODES, isInternalError, MAX_IMAGE_BYTES, MAX_PIXELS, SPEEDS } from 'dotcode-sdk/engine';
export type { DecodeOptions, DecodeResult, Format, Gs1Mode, ImageProbe, Speed } from 'dotcode-sdk/engine';

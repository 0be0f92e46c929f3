// The server decodes only through the SDK's one engine module (no second decoding path). This
// seam exists so the app receives the engine as a dependency (the load bench measures the same
// functions the API calls), not to swap it in tests: tests use the real engine.
import * as engine from 'dotcode-sdk/engine';
import type { DecodeOptions, DecodeResult, FrameReaderOptions, FrameResult, ImageProbe } from 'dotcode-sdk/engine';

/** One camera stream's frames (a socket): DotCode tracked and fused over them (engine FrameReader). */
export interface FrameSession {
  push(bytes: Buffer, tenant?: string): Promise<FrameResult>;
  close(): void;
}

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
  /** A FrameReader for one stream (docs/engine.md, "Video: FrameReader"). */
  frames(options: FrameReaderOptions): FrameSession;
}

export const sdkEngine: Engine = {
  decode: (bytes, options) => engine.decode(bytes, options),
  probeImage: (bytes) => engine.probeImage(bytes),
  warmUp: () => engine.warmUp(),
  recycle: async () => {
    await engine.close();
    await engine.warmUp();
  },
  frames: (options) => {
    const reader = new engine.FrameReader(options);
    return { push: (bytes) => reader.push(bytes), close: () => reader.close() };
  },
};

export { DECODE_ERROR_PREFIX, decodeErrorCode, FORMATS, GS1_MODES, isInternalError, MAX_IMAGE_BYTES, MAX_PIXELS, SPEEDS } from 'dotcode-sdk/engine';
export type { DecodeOptions, DecodeResult, FrameResult, Format, Gs1Mode, ImageProbe, Speed } from 'dotcode-sdk/engine';

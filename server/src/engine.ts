// The server decodes only through the SDK's one engine module (no second decoding path). This
// seam exists so the app receives the engine as a dependency (the load bench measures the same
// functions the API calls), not to swap it in tests: tests use the real engine.
import * as engine from '../../lib/engine';
import type { DecodeOptions, DecodeResult, ImageProbe } from '../../lib/engine';

export interface Engine {
  decode(bytes: Buffer, options: DecodeOptions): Promise<DecodeResult>;
  probeImage(bytes: Uint8Array): ImageProbe;
  warmUp(): Promise<void>;
}

export const sdkEngine: Engine = {
  decode: (bytes, options) => engine.decode(bytes, options),
  probeImage: (bytes) => engine.probeImage(bytes),
  warmUp: () => engine.warmUp(),
};

export { FORMATS, GS1_MODES, MAX_PIXELS } from '../../lib/engine';
export type { DecodeOptions, DecodeResult, Format, Gs1Mode, ImageProbe } from '../../lib/engine';

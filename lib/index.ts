// The package's public exports. Grouped by part so each part's owner can add a line here.
export { version } from './version';

// Engine: decode functions, image probe, and their types.
export {
  decode, decodeSync, decodeAll, warmUp, close, probeImage, MAX_PIXELS, FORMATS, GS1_MODES,
} from './engine';
export type {
  Format, Gs1Mode, ImageInput, RawFrame, MatLike, DecodeOptions, DecodeResult, DecodeAllResult,
  SymbolResult, Gs1Result, ImageProbe, Point,
} from './engine';

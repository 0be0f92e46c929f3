// The package's public exports. Grouped by part so each part's owner can add a line here.
export { version } from './version';

// Engine: decode functions, image probe, the detector inspection, and their types.
export {
  decode, decodeSync, decodeAll, inspect, warmUp, close, probeImage, MAX_PIXELS, FORMATS, GS1_MODES, SPEEDS,
  FrameReader,
} from './engine';
export type {
  Format, Gs1Mode, Speed, ImageInput, RawFrame, MatLike, DecodeOptions, DecodeResult, DecodeAllResult,
  SymbolResult, Gs1Result, ImageProbe, Point, FrameReaderOptions, FrameResult,
  InspectOptions, InspectReport, InspectStage, InspectStageGroup, InspectPass, InspectLattice, InspectHypothesis, InspectRead, InspectWindow,
} from './engine';

// SDK: the licensed Scanner, its error, and its types.
export { Scanner } from './scanner';
export type {
  ScannerOptions, ScannerLicense, ScanOptions, ScanResult, ScanSymbol, ScanAllResult, ScannerFrameReader, ScannerFrameReaderOptions,
  ScanFrameResult,
} from './scanner';
export { LicenseError } from './errors';
export type { LicenseErrorCode } from './errors';

// GS1: the parser behind `gs1` and `fields` (docs/gs1.md), usable on any payload.
export { parseGs1, aiLabel, fieldsOf, GS1_ERROR_CODES, GS1_JSON_SCHEMA } from './gs1';
export type { Gs1Element, Gs1Error, Gs1ErrorCode, ParseGs1Options } from './gs1';

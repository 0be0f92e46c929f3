// The one GS1 module (docs/ARCHITECTURE.md): payload -> SPEC 2.2 `gs1` object. Reference: docs/gs1.md.
export { parseGs1, GS, MISMATCH_SUFFIX, DEFAULT_RESOLVER, GS1_SYMBOLOGY_IDS, formatDecimal } from './parse';
export { aiLabel, aiDef, AI_TABLE } from './table';
export { resolveYear } from './dates';
export { mod10CheckDigit, mod10Valid, checkCharPair } from './checks';
export { GS1_ERROR_CODES, GS1_JSON_SCHEMA } from './schema';
export type {
  Gs1Mode, Gs1Result, Gs1Element, Gs1Error, Gs1ErrorCode, ParseGs1Options, AiDef, AiRange, AiPart, Charset,
} from './types';
import type { Gs1Result } from './types';

/** The SDK's `fields` member: AI -> value (a fresh object; empty when there is no GS1 data). */
export function fieldsOf(gs1: Gs1Result | null | undefined): Record<string, string> {
  return gs1 ? { ...gs1.fields } : {};
}

// JSON Schema (OpenAPI 3.1 dialect) of the `gs1` object, for the OpenAPI document: one source of
// truth for the error codes, next to the parser that emits them.
import type { Gs1ErrorCode } from './types';

/** Every `errors[].code` the parser can emit (docs/gs1.md explains each). */
export const GS1_ERROR_CODES = [
  'empty', 'unknown_ai', 'truncated', 'invalid_length', 'missing_separator', 'invalid_character', 'bracket_syntax',
  'check_digit_mismatch', 'invalid_date', 'invalid_value', 'duplicate_ai', 'missing_required_ai', 'mutually_exclusive_ai',
] as const satisfies readonly Gs1ErrorCode[];

// Compile-time check that the list above names every code of the Gs1ErrorCode union.
type Missing = Exclude<Gs1ErrorCode, (typeof GS1_ERROR_CODES)[number]>;
const _allCodesListed: Missing extends never ? true : never = true;
void _allCodesListed;

export const GS1_JSON_SCHEMA = {
  type: 'object',
  required: ['is_gs1', 'fields', 'elements', 'errors'],
  properties: {
    is_gs1: { type: 'boolean', description: 'The symbol carried the GS1 flag, or the payload parsed as a GS1 element string.' },
    fields: { type: 'object', additionalProperties: { type: 'string' }, description: 'AI -> value (first occurrence); a wrong check digit adds " (check digit mismatch)".' },
    elements: {
      type: 'array',
      items: {
        type: 'object', required: ['ai', 'label', 'value'],
        properties: {
          ai: { type: 'string', pattern: '^[0-9]{2,4}$' },
          label: { type: 'string', examples: ['GTIN', 'Expiry date', 'Batch/Lot', 'Serial number'] },
          value: { type: 'string' },
          formatted: { type: 'string', description: 'Dates as YYYY-MM-DD (date-times YYYY-MM-DDTHH:MM, ranges A/B); measures and amounts with the decimal point applied.' },
        },
      },
    },
    errors: {
      type: 'array',
      items: {
        type: 'object', required: ['ai', 'code', 'message'],
        properties: {
          ai: { type: ['string', 'null'] },
          code: { type: 'string', enum: [...GS1_ERROR_CODES] },
          message: { type: 'string' },
          position: { type: 'integer', minimum: 0, description: 'Offset in `text` where the fault was seen.' },
        },
      },
    },
    hri: { type: 'string', description: 'Human readable interpretation, e.g. (01)09506000134352(17)261231.' },
    digital_link: { type: 'string', format: 'uri', description: 'GS1 Digital Link URI (resolver https://id.gs1.org), when a primary key is present and there is no error.' },
  },
} as const;

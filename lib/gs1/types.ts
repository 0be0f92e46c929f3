/** Parsing mode (SPEC 4.1 query `gs1`, SDK option `parseGs1`). */
export type Gs1Mode = 'auto' | 'always' | 'off';

/** Character sets of the GS1 syntax: N digits, X CSET 82, Y CSET 39, Z base64url (CSET 64). */
export type Charset = 'N' | 'X' | 'Y' | 'Z';

/** One component of an AI's value: [charset, min length, max length, optional, linter names]. */
export type AiPart = readonly [Charset, number, number, boolean, readonly string[]];

/** One row of the generated table (lib/gs1/ai-table.ts): an AI or a range of AIs. */
export interface AiRange {
  ai: string;
  to: string;
  /** Predefined length (GS1 '*' flag): no separator needs to follow the value. */
  predefined: boolean;
  /** Permitted as a GS1 Digital Link data attribute (query parameter). */
  dlAttr: boolean;
  parts: readonly AiPart[];
  /** Every rule must hold; a rule holds when one of its alternatives (all AIs present) holds. */
  req: readonly (readonly (readonly string[])[])[];
  /** AI patterns ('n' = any digit) that must not appear together with this AI. */
  ex: readonly string[];
  /** null: not a primary key; else alternative ordered qualifier sequences. */
  dlpkey: readonly (readonly string[])[] | null;
}

/** One AI, expanded from its table row. */
export interface AiDef extends AiRange {
  label: string;
  /** Fixed total value length when the value has no variable or optional component. */
  fixedLength: number | null;
  minLength: number;
  maxLength: number;
}

/** Error codes of `gs1.errors[].code` (documented in docs/gs1.md). */
export type Gs1ErrorCode =
  | 'empty'
  | 'unknown_ai'
  | 'truncated'
  | 'invalid_length'
  | 'missing_separator'
  | 'invalid_character'
  | 'check_digit_mismatch'
  | 'invalid_date'
  | 'invalid_value'
  | 'duplicate_ai'
  | 'missing_required_ai'
  | 'mutually_exclusive_ai'
  | 'bracket_syntax';

export interface Gs1Error {
  /** The AI concerned, or null when the fault is not tied to one (empty payload, bad AI digits). */
  ai: string | null;
  code: Gs1ErrorCode;
  message: string;
  /** Offset in `text` (UTF-16 code units, after nothing is stripped) where the fault was seen. */
  position?: number;
}

export interface Gs1Element {
  ai: string;
  label: string;
  value: string;
  formatted?: string;
}

/** SPEC 2.2 `gs1` object, plus `hri` and `digital_link`. */
export interface Gs1Result {
  is_gs1: boolean;
  fields: Record<string, string>;
  elements: Gs1Element[];
  errors: Gs1Error[];
  hri?: string;
  digital_link?: string;
}

export interface ParseGs1Options {
  mode: Gs1Mode;
  /** The symbol carried the GS1 flag (FNC1 in first position), as reported by the engine. */
  symbolIsGs1?: boolean;
  /** AIM symbology identifier of the symbol, e.g. ']J1' (DotCode GS1), ']Q1' (plain QR). */
  symbologyId?: string;
  /** The clock for the date century rule; defaults to the current time. */
  now?: Date;
  /** Base of the GS1 Digital Link URI; default https://id.gs1.org. */
  resolver?: string;
}

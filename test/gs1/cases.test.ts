// Table-driven cases for lib/gs1: labels, both SPEC 2.2 parsing rules (dates, check digits),
// separators and prefixes, the bracketed form, modes, formatted values, pairing rules, HRI,
// Digital Link and bad input. Every case runs the real parser; none of them mocks anything.
import * as assert from 'assert';
import { aiLabel, fieldsOf, GS1_ERROR_CODES, GS1_JSON_SCHEMA, parseGs1, type Gs1Mode, type Gs1Result } from '../../lib/gs1';

import { breakCheckDigit, withCheckDigit } from './helpers';

const GS = '\u001d';
const GTIN = '09506000134352'; // GS1's own example GTIN (valid)
const G = `01${GTIN}`;
const BAD_GTIN = '09506000134353';
const SSCC = withCheckDigit('10614141123456789');
const GLN = withCheckDigit('950600013435');
const NOW = new Date('2025-06-15T12:00:00Z');
const MM = ' (check digit mismatch)';

interface Case {
  name: string;
  text: string;
  mode?: Gs1Mode;
  now?: Date;
  flag?: boolean;
  sid?: string;
  resolver?: string;
  isNull?: true;
  isGs1?: boolean;
  /** [ai, value] or [ai, value, formatted]; the whole elements list, in order. */
  elements?: [string, string, string?][];
  /** Error codes, in order; [] asserts there is none. */
  codes?: string[];
  errorAis?: (string | null)[];
  positions?: number[];
  fields?: Record<string, string>;
  hri?: string | null;
  dl?: string | null;
  /** Formatted value of one AI (when the element list is not worth spelling out). */
  formatted?: [string, string | undefined];
  /** One entry of `fields`. */
  field?: [string, string];
  labels?: [string, string][];
}

const cases: Case[] = [];
const add = (...cs: Case[]) => cases.push(...cs);

// --- SPEC 2.2: the four labels and the basic GS1 payload -------------------------------------
add(
  { name: 'SPEC example: GTIN, expiry, batch, serial', text: `${G}17261231` + `10ABC123${GS}21SN42`, mode: 'auto',
    elements: [['01', GTIN], ['17', '261231', '2026-12-31'], ['10', 'ABC123'], ['21', 'SN42']], codes: [],
    fields: { '01': GTIN, '17': '261231', '10': 'ABC123', '21': 'SN42' } },
  { name: 'labels of the SPEC: GTIN, Expiry date, Batch/Lot, Serial number', text: `${G}17261231` + `10A${GS}21B`,
    labels: [['01', 'GTIN'], ['17', 'Expiry date'], ['10', 'Batch/Lot'], ['21', 'Serial number']] },
);
for (const [ai, label] of [['00', 'SSCC'], ['15', 'Best before date'], ['11', 'Production date'], ['3103', 'Net weight (kg)'],
  ['3302', 'Gross weight (kg)'], ['414', 'Location GLN'], ['8004', 'GIAI'], ['8003', 'GRAI'], ['253', 'GDTI'], ['7003', 'Expiry date and time'],
  ['99', 'Company internal information'], ['4307', 'Ship to country code']] as const) {
  add({ name: `label of ${ai}: ${label}`, text: '', labels: [[ai, label]] });
}

// --- SPEC 2.2 rule 2 and issue item 4: check digits on every mod-10 key ------------------------
const keys: [string, string, string][] = [
  ['00', SSCC, ''], ['01', GTIN, ''], ['02', withCheckDigit('1950600013435'), `3712${GS}00${SSCC}`], ['03', withCheckDigit('1950600013435'), ''],
  ['410', GLN, ''], ['411', GLN, ''], ['412', GLN, ''], ['413', GLN, ''], ['414', GLN, ''], ['416', GLN, ''], ['417', GLN, ''],
  ['402', withCheckDigit('9506000134352001'), ''], ['8017', withCheckDigit('95060001343520012'), ''],
  ['8018', withCheckDigit('95060001343520012'), ''],
];
for (const [ai, value, tail] of keys) {
  add({ name: `(${ai}) valid check digit`, text: `${ai}${value}${tail}`, codes: [], field: [ai, value] });
  add({ name: `(${ai}) check digit mismatch: suffix in fields and elements, error entry`, text: `${ai}${breakCheckDigit(value)}${tail}`,
    codes: ['check_digit_mismatch'], errorAis: [ai], field: [ai, breakCheckDigit(value) + MM] });
}
add(
  { name: 'GDTI (253): check digit on the first 13 digits, serial after', text: `253${GLN}DOC-7`, codes: [], fields: { '253': `${GLN}DOC-7` }, dl: `https://id.gs1.org/253/${GLN}DOC-7` },
  { name: 'GDTI (253): mismatch keeps the serial and adds the suffix', text: `253${breakCheckDigit(GLN)}DOC-7`, codes: ['check_digit_mismatch'], fields: { '253': `${breakCheckDigit(GLN)}DOC-7${MM}` }, dl: null },
  { name: 'GCN (255): valid', text: `255${GLN}12345`, codes: [], fields: { '255': `${GLN}12345` } },
  { name: 'GCN (255): mismatch', text: `255${breakCheckDigit(GLN)}`, codes: ['check_digit_mismatch'] },
  { name: 'GRAI (8003): zero, GTIN-13 with check digit, serial', text: `80030${GLN}A1`, codes: [], fields: { '8003': `0${GLN}A1` } },
  { name: 'GRAI (8003): mismatch', text: `80030${breakCheckDigit(GLN)}A1`, codes: ['check_digit_mismatch'] },
  { name: 'GRAI (8003): leading digit must be 0', text: `80031${GLN}A1`, codes: ['invalid_value'] },
  { name: 'ITIP (8006): GTIN check digit plus piece of total', text: `8006${GTIN}0102`, codes: [], formatted: ['8006', undefined] },
  { name: 'ITIP (8006): mismatch', text: `8006${BAD_GTIN}0102`, codes: ['check_digit_mismatch'] },
  { name: 'ITIP (8006): piece 03 of 02 is impossible', text: `8006${GTIN}0302`, codes: ['invalid_value'] },
  { name: 'GMN (8013): check character pair valid', text: '80131987654Ad4X4bL5ttr2310c2K', codes: [], dl: 'https://id.gs1.org/8013/1987654Ad4X4bL5ttr2310c2K' },
  { name: 'GMN (8013): check character pair wrong', text: '80131987654Ad4X4bL5ttr2310c2L', codes: ['check_digit_mismatch'],
    fields: { '8013': `1987654Ad4X4bL5ttr2310c2L${MM}` } },
  { name: 'text is never altered by a mismatch (hri shows the raw value)', text: `01${BAD_GTIN}`, hri: `(01)${BAD_GTIN}`,
    elements: [['01', BAD_GTIN + MM]] },
  { name: 'mismatch error names the expected digit', text: `01${BAD_GTIN}`, codes: ['check_digit_mismatch'], positions: [2] },
  { name: 'GTIN with bad check digit in auto mode without the GS1 flag: not GS1 (null)', text: `01${BAD_GTIN}`, mode: 'auto', isNull: true },
  { name: 'GTIN with bad check digit in auto mode with the GS1 flag: reported', text: `01${BAD_GTIN}`, mode: 'auto', flag: true,
    codes: ['check_digit_mismatch'], isGs1: true },
);

// --- SPEC 2.2 rule 1 and issue item 3: dates, century rule, day 00 ----------------------------
const at = (iso: string) => new Date(iso);
const dateCase = (name: string, value: string, now: Date, want: string | null, ai = '17') =>
  add({ name, text: `${G}${ai}${value}`, now, formatted: [ai, want ?? undefined], codes: want ? [] : ['invalid_date'] });
dateCase('YYMMDD in this century', '261231', NOW, '2026-12-31');
dateCase('century rule: +50 years stays ahead (2025 -> 75 = 2075)', '750101', NOW, '2075-01-01');
dateCase('century rule: +51 years goes back (2025 -> 76 = 1976)', '760101', NOW, '1976-01-01');
dateCase('century rule: 49 years behind stays (2060 -> 11 = 2011)', '110101', at('2060-03-01T00:00:00Z'), '2011-01-01');
dateCase('century rule: 50 years behind goes ahead (2060 -> 10 = 2110)', '100101', at('2060-03-01T00:00:00Z'), '2110-01-01');
dateCase('century rule at a century end (2099 -> 00 = 2100)', '000101', at('2099-12-31T23:59:59Z'), '2100-01-01');
dateCase('century rule at a century end (2099 -> 49 = 2149)', '490101', at('2099-06-01T00:00:00Z'), '2149-01-01');
dateCase('century rule at a century end (2099 -> 50 = 2050, 49 years behind)', '500101', at('2099-06-01T00:00:00Z'), '2050-01-01');
dateCase('century rule at a century end (2099 -> 48 = 2148, 51 years behind is too far)', '480101', at('2099-06-01T00:00:00Z'), '2148-01-01');
dateCase('century rule at a century start (2000 -> 50 = 2050)', '500101', at('2000-01-01T00:00:00Z'), '2050-01-01');
dateCase('century rule at a century start (2000 -> 51 = 1951)', '510101', at('2000-01-01T00:00:00Z'), '1951-01-01');
dateCase('century rule at a century start (2000 -> 99 = 1999)', '991231', at('2000-01-01T00:00:00Z'), '1999-12-31');
dateCase('century rule uses the injected clock, not the real one (1990 -> 30 = 2030)', '300101', at('1990-01-01T00:00:00Z'), '2030-01-01');
dateCase('century rule uses the injected clock, not the real one (1990 -> 41 = 1941)', '410101', at('1990-01-01T00:00:00Z'), '1941-01-01');
dateCase('day 00 = last day of the month (31)', '261200', NOW, '2026-12-31');
dateCase('day 00 = last day of the month (30)', '260400', NOW, '2026-04-30');
dateCase('day 00 in February of a leap year', '240200', NOW, '2024-02-29');
dateCase('day 00 in February of a common year', '250200', NOW, '2025-02-28');
dateCase('day 00 in February 2000 (leap: divisible by 400)', '000200', NOW, '2000-02-29');
dateCase('day 00 in February 2100 (not leap: divisible by 100)', '000200', at('2060-01-01T00:00:00Z'), '2100-02-28');
dateCase('29 February 2100 is impossible', '000229', at('2060-01-01T00:00:00Z'), null);
dateCase('29 February 2024 exists', '240229', NOW, '2024-02-29');
dateCase('29 February 2025 is impossible', '250229', NOW, null);
dateCase('31 April is impossible', '260431', NOW, null);
dateCase('month 13 is impossible', '261301', NOW, null);
dateCase('month 00 is impossible', '260001', NOW, null);
dateCase('best before date (15)', '270615', NOW, '2027-06-15', '15');
dateCase('production date (11) with day 00', '250900', NOW, '2025-09-30', '11');
dateCase('packaging date (13)', '250102', NOW, '2025-01-02', '13');
dateCase('sell by date (16)', '251010', NOW, '2025-10-10', '16');
add(
  { name: 'impossible date keeps its raw value in fields and elements', text: `${G}17251301`, codes: ['invalid_date'],
    elements: [['01', GTIN], ['17', '251301']], fields: { '01': GTIN, '17': '251301' } },
  { name: 'first freeze date (7006) does not allow day 00', text: `${G}7006250100`, codes: ['invalid_date'] },
  { name: 'first freeze date (7006)', text: `${G}7006250131`, formatted: ['7006', '2025-01-31'], codes: [] },
  { name: 'expiry date and time (7003)', text: `${G}70032512311430`, formatted: ['7003', '2025-12-31T14:30'], codes: [] },
  { name: 'expiry time 24:00 is impossible', text: `${G}70032512312400`, codes: ['invalid_date'] },
  { name: 'expiry time minute 60 is impossible', text: `${G}70032512311260`, codes: ['invalid_date'] },
  { name: 'production date and time (8008): hour only', text: `${G}800825123114`, formatted: ['8008', '2025-12-31T14'], codes: [] },
  { name: 'production date and time (8008): hour and minute', text: `${G}80082512311405`, formatted: ['8008', '2025-12-31T14:05'], codes: [] },
  { name: 'production date and time (8008): seconds', text: `${G}8008251231140559`, formatted: ['8008', '2025-12-31T14:05:59'], codes: [] },
  { name: 'production date and time (8008): odd length', text: `${G}800825123114055`, codes: ['invalid_length'] },
  { name: 'harvest date range (7007)', text: `${G}7007250101250105`, formatted: ['7007', '2025-01-01/2025-01-05'], codes: [] },
  { name: 'harvest date single (7007)', text: `${G}7007250101`, formatted: ['7007', '2025-01-01'], codes: [] },
  { name: 'test by date (7011) with time', text: `${G}70112512310800`, formatted: ['7011', '2025-12-31T08:00'], codes: [] },
  { name: 'date of birth (7250) YYYYMMDD in a leap year', text: `8018${withCheckDigit('95060001343520012')}${GS}725019800229`, formatted: ['7250', '1980-02-29'], codes: [] },
  { name: 'date of birth (7250) 29 February 1981 is impossible', text: `8018${withCheckDigit('95060001343520012')}${GS}725019810229`, codes: ['invalid_date'] },
  { name: 'date and time of birth (7251)', text: `8018${withCheckDigit('95060001343520012')}${GS}7251200002291200`, formatted: ['7251', '2000-02-29T12:00'], codes: [] },
  { name: 'not before delivery date-time (4324) with day 00', text: `00${SSCC}43242502001200`, formatted: ['4324', '2025-02-28T12:00'], codes: [] },
  { name: 'release date (4326) rejects day 00', text: `00${SSCC}4326250200`, codes: ['invalid_date'] },
  { name: 'default clock is today: a date 10 years ahead resolves in this century', text: `${G}17${String((new Date().getUTCFullYear() + 10) % 100).padStart(2, '0')}0101`,
    now: undefined, formatted: ['17', `${new Date().getUTCFullYear() + 10}-01-01`] },
);

// --- decimal-point AIs -------------------------------------------------------------------------
const dec = (ai: string, value: string, want: string, extra = '') =>
  add({ name: `decimal AI (${ai}) ${value} -> ${want}`, text: `${extra || G}${ai}${value}`, formatted: [ai, want], codes: [] });
dec('3100', '000125', '125');
dec('3101', '000125', '12.5');
dec('3103', '001250', '1.250');
dec('3105', '123456', '1.23456');
dec('3102', '000005', '0.05');
dec('3120', '000300', '300');
dec('3163', '012345', '12.345');
dec('3202', '010000', '100.00');
dec('3571', '000015', '1.5');
dec('3612', '000250', '2.50');
dec('3302', '001500', '15.00', `00${SSCC}`);
dec('3472', '000099', '0.99', `00${SSCC}`);
dec('3375', '100000', '1.00000');
add(
  { name: 'amount payable (3902), variable length', text: `255${GLN}${GS}390212345`, formatted: ['3902', '123.45'], codes: [] },
  { name: 'amount payable (3909) with nine decimals', text: `255${GLN}${GS}39095`, formatted: ['3909', '0.000000005'], codes: [] },
  { name: 'amount with currency (3912)', text: `8020REF1${GS}415${GLN}391297812345`, formatted: ['3912', '978 123.45'], codes: [] },
  { name: 'price (3922) with a variable count (30)', text: `${G}3012${GS}39221999`, formatted: ['3922', '19.99'], codes: [] },
  { name: 'price with currency (3932)', text: `${G}3012${GS}39328401999`, formatted: ['3932', '840 19.99'], codes: [] },
  { name: 'percentage off (3941)', text: `255${GLN}${GS}39410500`, formatted: ['3941', '50.0'], codes: [] },
  { name: 'price per unit of measure (3955)', text: `${G}3012${GS}3955000999`, formatted: ['3955', '0.00999'], codes: [] },
  { name: 'maximum temperature (4331) positive', text: `00${SSCC}4331001250`, formatted: ['4331', '12.50'], codes: [] },
  { name: 'minimum temperature (4333) below zero', text: `00${SSCC}4333001250-`, formatted: ['4333', '-12.50'], codes: [] },
  { name: 'temperature sign must be "-"', text: `00${SSCC}4333001250+`, codes: ['invalid_value'] },
  { name: 'a measure with a letter is a bad character', text: `${G}31030012A0`, codes: ['invalid_character'], positions: [24] },
);

// --- separators, prefixes, symbology identifiers ----------------------------------------------
add(
  { name: 'no separator needed after predefined-length AIs', text: `${G}17261231` + '21X', codes: [], fields: { '01': GTIN, '17': '261231', '21': 'X' } },
  { name: 'separator ends a variable-length value', text: `${G}10LOT1${GS}17261231`, codes: [], elements: [['01', GTIN], ['10', 'LOT1'], ['17', '261231', '2026-12-31']] },
  { name: 'a separator after a predefined-length value is tolerated', text: `${G}${GS}17261231`, codes: [] },
  { name: 'a trailing separator is tolerated', text: `${G}10LOT1${GS}`, codes: [] },
  { name: 'leading FNC1 transmitted as GS: flags GS1 in auto mode', text: `${GS}${G}10LOT1`, mode: 'auto', codes: [], isGs1: true, positions: [] },
  { name: 'symbology identifier ]J1 (DotCode GS1) in the text', text: `]J1${G}10LOT1`, mode: 'auto', codes: [], fields: { '01': GTIN, '10': 'LOT1' } },
  { name: 'symbology identifier ]d2 (GS1 DataMatrix) in the text', text: `]d2${G}`, mode: 'auto', codes: [], isGs1: true },
  { name: 'symbology identifier ]Q3 (GS1 QR Code) in the text', text: `]Q3${G}`, mode: 'auto', codes: [], isGs1: true },
  { name: 'symbology identifier ]C1 (GS1-128) in the text', text: `]C1${G}`, mode: 'auto', codes: [], isGs1: true },
  { name: 'symbology identifier ]e0 (GS1 DataBar) in the text', text: `]e0${G}`, mode: 'auto', codes: [], isGs1: true },
  { name: 'symbology identifier then FNC1', text: `]C1${GS}${G}`, mode: 'auto', codes: [], isGs1: true },
  { name: 'positions count the stripped prefix', text: `]C1${G}17251301`, codes: ['invalid_date'], positions: [21] },
  { name: 'symbologyId option ]J1 flags GS1 even with errors', text: `${G}1`, mode: 'auto', sid: ']J1', codes: ['truncated'], isGs1: true },
  { name: 'symbologyId option of a plain symbol (]Q1) does not flag GS1', text: `${G}1`, mode: 'auto', sid: ']Q1', isNull: true },
  { name: 'symbolIsGs1 flags GS1 in auto mode even with a pairing fault', text: '10ABC', mode: 'auto', flag: true, codes: ['missing_required_ai'] },
  { name: 'non-GS1 symbology identifier is not stripped', text: `]Q1${G}`, codes: ['unknown_ai'], errorAis: [null] },
);

// --- bracketed human form (always mode) -------------------------------------------------------
add(
  { name: 'bracketed form in always mode', text: `(01)${GTIN}(17)261231(10)ABC`, codes: [],
    elements: [['01', GTIN], ['17', '261231', '2026-12-31'], ['10', 'ABC']], hri: `(01)${GTIN}(17)261231(10)ABC` },
  { name: 'bracketed form is not parsed in auto mode', text: `(01)${GTIN}(17)261231`, mode: 'auto', isNull: true },
  { name: 'bracketed form: escaped "(" in data', text: `(01)${GTIN}(10)A\\(B`, codes: [], fields: { '01': GTIN, '10': 'A(B' } },
  { name: 'bracketed form: error positions count the escape characters', text: `(01)${GTIN}(10)A\\(B C`, codes: ['invalid_character'], positions: [26] },
  { name: 'bracketed form: unknown AI is skipped, later elements kept', text: `(01)${GTIN}(89)X(10)ABC`, codes: ['unknown_ai'], errorAis: ['89'],
    elements: [['01', GTIN], ['10', 'ABC']] },
  { name: 'bracketed form: wrong length of a fixed AI', text: `(01)${GTIN}1`, codes: ['invalid_length'] },
  { name: 'bracketed form: empty value', text: `(01)${GTIN}(10)`, codes: ['invalid_length'] },
  { name: 'bracketed form: AI not closed', text: `(01)${GTIN}(10ABC`, codes: ['bracket_syntax'], elements: [['01', GTIN]] },
  { name: 'bracketed form: AI with letters', text: '(0A)123', codes: ['bracket_syntax'], isGs1: false },
  { name: 'bracketed form: check digit mismatch', text: `(01)${BAD_GTIN}`, codes: ['check_digit_mismatch'], fields: { '01': BAD_GTIN + MM } },
  { name: 'bracketed form: variable value over its maximum', text: `(01)${GTIN}(10)${'A'.repeat(21)}`, codes: ['invalid_length'] },
);

// --- modes (SPEC 4.1) --------------------------------------------------------------------------
add(
  { name: 'off: null even for a perfect GS1 payload', text: `${G}10ABC`, mode: 'off', isNull: true },
  { name: 'off: null even with the GS1 flag', text: `${G}10ABC`, mode: 'off', flag: true, isNull: true },
  { name: 'auto: plain text is null', text: 'Hello, world', mode: 'auto', isNull: true },
  { name: 'auto: a URL is null', text: 'https://example.com/x', mode: 'auto', isNull: true },
  { name: 'auto: a number that is not an element string is null', text: '1234567', mode: 'auto', isNull: true },
  { name: 'auto: unflagged but complete and valid element string is parsed', text: `${G}10ABC`, mode: 'auto', codes: [], isGs1: true },
  { name: 'auto: unflagged, parses but breaks a pairing rule: null', text: '10ABC', mode: 'auto', isNull: true },
  { name: 'auto: unflagged, truncated: null', text: `${G}1726`, mode: 'auto', isNull: true },
  { name: 'auto: unflagged, impossible date: null', text: `${G}17261301`, mode: 'auto', isNull: true },
  { name: 'auto: empty text is null', text: '', mode: 'auto', isNull: true },
  { name: 'auto: an ISBN in a QR code is not GS1 although "97..." parses as AI 97', text: '9780201379624', mode: 'auto', isNull: true },
  { name: 'auto: the same ISBN with the GS1 flag is company-internal data', text: '9780201379624', mode: 'auto', flag: true, codes: [],
    elements: [['97', '80201379624']] },
  { name: 'auto: an order number alone (400) has no check digit to prove it is GS1', text: '4001234', mode: 'auto', isNull: true },
  { name: 'auto: an SSCC alone is GS1', text: `00${SSCC}`, mode: 'auto', codes: [], isGs1: true },
  { name: 'auto: a GMN alone is GS1 (check character pair)', text: '80131987654Ad4X4bL5ttr2310c2K', mode: 'auto', codes: [] },
  { name: 'auto: flagged but empty: an error entry', text: '', mode: 'auto', flag: true, codes: ['empty'], isGs1: true },
  { name: 'always: plain text gives is_gs1 false and an error', text: 'Hello', codes: ['unknown_ai'], isGs1: false, elements: [], fields: {} },
  { name: 'always: empty text', text: '', codes: ['empty'], isGs1: false, hri: null, dl: null },
  { name: 'always: perfect payload', text: `${G}10ABC`, codes: [], isGs1: true },
  { name: 'always: pairing fault keeps is_gs1 true', text: '10ABC', codes: ['missing_required_ai'], isGs1: true },
);

// --- bad input never throws; elements before the fault are kept (issue item 7) -----------------
add(
  { name: 'unknown AI after good elements', text: `${G}89XYZ`, codes: ['unknown_ai'], errorAis: ['89'], elements: [['01', GTIN]], positions: [16] },
  { name: 'unknown 4-digit AI (prefix 72 has 4 digits)', text: `${G}7299X`, codes: ['unknown_ai'], errorAis: ['7299'] },
  { name: 'letters where an AI should be', text: `${G}1OABC`, codes: ['unknown_ai'], errorAis: [null] },
  { name: 'truncated fixed value', text: `${G}1726`, codes: ['truncated'], errorAis: ['17'], elements: [['01', GTIN]] },
  { name: 'truncated inside the AI', text: `${G}31`, codes: ['truncated'], errorAis: [null] },
  { name: 'truncated GTIN', text: '010950600013', codes: ['truncated'], elements: [] },
  { name: 'separator inside a fixed-length value', text: `${G}1726${GS}10ABC`, codes: ['invalid_length'], elements: [['01', GTIN], ['10', 'ABC']] },
  { name: 'empty variable value', text: `${G}10${GS}21X`, codes: ['invalid_length'], elements: [['01', GTIN], ['21', 'X']] },
  { name: 'missing separator: batch runs past 20 characters', text: `${G}10ABCDEFGHIJ0123456789` + '21X', codes: ['missing_separator'], errorAis: ['10'],
    elements: [['01', GTIN]] },
  { name: 'variable value of exactly its maximum', text: `${G}10${'A'.repeat(20)}`, codes: [], fields: { '01': GTIN, '10': 'A'.repeat(20) } },
  { name: 'bad character in a batch (space)', text: `${G}10AB C${GS}21X`, codes: ['invalid_character'], positions: [20], elements: [['01', GTIN], ['10', 'AB C'], ['21', 'X']] },
  { name: 'bad character: control character', text: `${G}10AB\u0001C`, codes: ['invalid_character'] },
  { name: 'bad character: non-ASCII', text: `${G}10ABÉ`, codes: ['invalid_character'] },
  { name: 'GTIN with a letter', text: '010950600013435X', codes: ['invalid_character'] },
  { name: 'fixed-length but not predefined AI (7001) needs a separator', text: `${G}70011234567890123` + '10A', codes: ['missing_separator'],
    elements: [['01', GTIN], ['7001', '1234567890123'], ['10', 'A']] },
  { name: 'fixed-length but not predefined AI (7001) at the end', text: `${G}70011234567890123`, codes: [] },
  { name: 'CSET 39 AI (8010) rejects lower case', text: `8010abc${GS}80111`, codes: ['invalid_character'] },
  { name: 'CPID serial (8011) with a leading zero', text: `8010ABC${GS}801101`, codes: ['invalid_value'] },
  { name: 'base64url AI (8030) accepts its alphabet', text: `00${SSCC}8030AbC-_x==`, codes: [] },
  { name: 'base64url AI (8030) rejects "+"', text: `00${SSCC}8030AbC+`, codes: ['invalid_character'] },
  { name: 'percent-encoding AI (4300) with a bad escape', text: `00${SSCC}4300ACME%2`, codes: ['invalid_value'] },
  { name: 'percent-encoding AI (4300) with a good escape', text: `00${SSCC}4300ACME%20LTD`, codes: [] },
  { name: 'yes/no flag (4321)', text: `00${SSCC}43212`, codes: ['invalid_value'] },
  { name: 'IBAN (8007) valid', text: `415${GLN}8020R1${GS}8007GB82WEST12345698765432`, codes: [] },
  { name: 'IBAN (8007) wrong check', text: `415${GLN}8020R1${GS}8007GB82WEST12345698765433`, codes: ['invalid_value'] },
  { name: 'roll dimensions (8001) with a zero width', text: `${G}800100000012304111`, codes: ['invalid_value'] },
  { name: 'roll dimensions (8001) valid', text: `${G}800101000012304111`, codes: [] },
  // 100098987525: an all-digit body whose check character pair (25) is digits too, so only the
  // "must contain a non-digit" rule can fail.
  { name: 'MUDI (8014) must contain a non-digit', text: `${G}21S${GS}8014100098987525`, codes: ['invalid_value'] },
  { name: 'MUDI (8014) with letters and a good check pair', text: `${G}21S${GS}80141987654Ad4X4bL5ttr2310c2K`, codes: [] },
  { name: 'UIC with extension (7040)', text: `80040614141A${GS}70401ABC`, codes: [] },
  { name: 'birth sequence (7258)', text: `8018${withCheckDigit('95060001343520012')}${GS}72591BABY${GS}72582/3`, codes: [] },
  { name: 'birth sequence 4/3 is impossible', text: `8018${withCheckDigit('95060001343520012')}${GS}72591BABY${GS}72584/3`, codes: ['invalid_value'] },
  { name: 'geolocation (4309) out of range', text: `00${SSCC}430919000000000000000000`, codes: ['invalid_value'] },
  { name: 'duplicate AI with the same value is fine', text: `${G}10A${GS}${G}`, codes: [] },
  { name: 'duplicate AI with different values', text: `${G}10A${GS}10B`, codes: ['duplicate_ai'], errorAis: ['10'], fields: { '01': GTIN, '10': 'A' } },
  { name: 'very long garbage does not throw', text: '9'.repeat(5000), codes: ['missing_separator'] },
  { name: 'lone GS', text: GS, mode: 'always', codes: ['empty'], isGs1: true },
);

// --- pairing rules (req / ex) -----------------------------------------------------------------
add(
  { name: 'batch without a GTIN', text: '10ABC', codes: ['missing_required_ai'], errorAis: ['10'] },
  { name: 'serial with a GTIN satisfies req', text: `${G}21X`, codes: [] },
  { name: 'secondary serial (250) needs GTIN with serial', text: `${G}250X`, codes: ['missing_required_ai'] },
  { name: 'secondary serial (250) with GTIN and serial', text: `${G}21S${GS}250X`, codes: [] },
  { name: 'GTIN (01) and contained GTIN (02) exclude each other (reported once)', text: `${G}02${GTIN}`, codes: ['missing_required_ai', 'mutually_exclusive_ai'] },
  { name: 'two net weights in kg (3102 and 3103) exclude each other', text: `${G}3102001250` + '3103001250', codes: ['mutually_exclusive_ai'] },
  { name: 'net weight in kg and in lb may pair', text: `${G}3102001250` + '3202001250', codes: [] },
  { name: 'serial (21) excludes third-party serial (235)', text: `${G}21A${GS}235B`, codes: ['mutually_exclusive_ai'] },
  { name: 'IMEI2 (8041) needs GTIN, serial and IMEI', text: `${G}21A${GS}8041123456789012345`, codes: ['missing_required_ai'] },
  { name: 'IMEI2 (8041) with everything it needs', text: `${G}21A${GS}8040123456789012345${GS}8041123456789012345`, codes: [] },
  { name: 'contained GTIN (02) requires a count (37)', text: `02${withCheckDigit('1950600013435')}`, codes: ['missing_required_ai'] },
  { name: 'pairing is not checked after an abort (the partner may be in the unread part)', text: '10ABC' + GS + '8999', codes: ['unknown_ai'] },
);

// --- HRI and GS1 Digital Link ------------------------------------------------------------------
add(
  { name: 'hri keeps order of appearance', text: `${G}17261231` + `10A${GS}21B`, hri: `(01)${GTIN}(17)261231(10)A(21)B` },
  { name: 'digital link: GTIN with batch and serial as qualifiers, expiry as attribute', text: `${G}17261231` + `10A${GS}21B`,
    dl: `https://id.gs1.org/01/${GTIN}/10/A/21/B?17=261231` },
  { name: 'digital link: qualifiers in their defined order whatever the payload order', text: `${G}21S${GS}10L${GS}22V`,
    dl: `https://id.gs1.org/01/${GTIN}/22/V/10/L/21/S` },
  { name: 'digital link: GTIN with 235 takes the second qualifier path', text: `${G}235TPX`, dl: `https://id.gs1.org/01/${GTIN}/235/TPX` },
  { name: 'digital link: SSCC', text: `00${SSCC}`, dl: `https://id.gs1.org/00/${SSCC}` },
  { name: 'digital link: percent-encoding of reserved characters', text: `${G}10A/B%C&D`, dl: `https://id.gs1.org/01/${GTIN}/10/A%2FB%25C%26D` },
  { name: 'digital link: custom resolver', text: G, resolver: 'https://resolver.example.com/', dl: `https://resolver.example.com/01/${GTIN}` },
  { name: 'digital link: none without a primary key', text: '90INTERNAL', dl: null, hri: '(90)INTERNAL' },
  { name: 'digital link: none when there are errors', text: `${G}17261301`, dl: null },
  { name: 'digital link: GLN with extension (414 + 254)', text: `414${GLN}254EXT1`, dl: `https://id.gs1.org/414/${GLN}/254/EXT1` },
  { name: 'digital link: GIAI', text: '80040614141A', dl: 'https://id.gs1.org/8004/0614141A' },
  { name: 'digital link: non-attribute AIs (e.g. 7040 without 8004 path) stay out of the query', text: `${G}90X`, dl: `https://id.gs1.org/01/${GTIN}?90=X` },
);

function run(c: Case): Gs1Result | null {
  return parseGs1(c.text, {
    mode: c.mode ?? 'always', now: 'now' in c ? c.now : NOW, symbolIsGs1: c.flag, symbologyId: c.sid, resolver: c.resolver,
  });
}

describe('gs1 table-driven cases', () => {
  it(`has at least 150 cases (${cases.length})`, () => assert.ok(cases.length >= 150));
  for (const c of cases) {
    it(c.name, () => {
      if (c.labels) {
        for (const [ai, label] of c.labels) assert.strictEqual(aiLabel(ai), label);
        if (!c.text) return;
      }
      const r = run(c);
      if (c.isNull) { assert.strictEqual(r, null); return; }
      assert.ok(r, 'expected a gs1 object, got null');
      const why = JSON.stringify(r.errors);
      if (c.codes) assert.deepStrictEqual(r.errors.map((e) => e.code), c.codes, why);
      if (c.errorAis) assert.deepStrictEqual(r.errors.map((e) => e.ai), c.errorAis, why);
      if (c.positions) assert.deepStrictEqual(r.errors.map((e) => e.position), c.positions, why);
      if (c.isGs1 !== undefined) assert.strictEqual(r.is_gs1, c.isGs1);
      if (c.fields) assert.deepStrictEqual(r.fields, c.fields);
      if (c.field) assert.strictEqual(r.fields[c.field[0]], c.field[1]);
      if (c.field) assert.strictEqual(r.elements.find((e) => e.ai === c.field![0])?.value, c.field[1]);
      if (c.elements) {
        assert.deepStrictEqual(r.elements.map((e) => (e.formatted === undefined ? [e.ai, e.value] : [e.ai, e.value, e.formatted])),
          c.elements.map((e) => (e[2] === undefined ? [e[0], e[1]] : e)));
      }
      if (c.hri !== undefined) assert.strictEqual(r.hri, c.hri ?? undefined);
      if (c.dl !== undefined) assert.strictEqual(r.digital_link, c.dl ?? undefined, why);
      if (c.formatted) {
        const el = r.elements.find((e) => e.ai === c.formatted![0]);
        assert.ok(el, `no element ${c.formatted[0]}: ${why}`);
        assert.strictEqual(el.formatted, c.formatted[1], why);
      }
      if (c.labels) for (const [ai, label] of c.labels) assert.strictEqual(r.elements.find((e) => e.ai === ai)?.label, label);
      for (const e of r.errors) {
        assert.strictEqual(typeof e.message, 'string');
        assert.ok(e.message.length > 5);
      }
    });
  }
});

describe('gs1 helpers', () => {
  it('fieldsOf: AI -> value, empty object for null, a copy', () => {
    const r = parseGs1(`${G}10ABC`, { mode: 'always', now: NOW });
    const f = fieldsOf(r);
    assert.deepStrictEqual(f, { '01': GTIN, '10': 'ABC' });
    f['01'] = 'changed';
    assert.strictEqual(r!.fields['01'], GTIN);
    assert.deepStrictEqual(fieldsOf(null), {});
  });
  it('aiLabel: undefined for an unknown AI', () => {
    assert.strictEqual(aiLabel('89'), undefined);
    assert.strictEqual(aiLabel(''), undefined);
  });
  it('never throws on hostile input', () => {
    const inputs: unknown[] = [undefined, null, 42, {}, '\u0000', ']', ']J', ']J1', '(', '()', '(0', '(01', '((01)', '\\(', GS.repeat(10), '\uD800'];
    for (const mode of ['auto', 'always', 'off'] as const) {
      for (const t of inputs) assert.doesNotThrow(() => parseGs1(t as string, { mode, now: NOW }));
    }
    assert.doesNotThrow(() => parseGs1('01', undefined as never));
    assert.doesNotThrow(() => parseGs1(G, { mode: 'always', now: new Date('invalid') }));
  });
});

describe('gs1 result shape vs the published schema', () => {
  it('every error code seen in the cases is in GS1_ERROR_CODES, and every listed code is exercised', () => {
    const seen = new Set<string>();
    for (const c of cases) {
      const r = c.labels && !c.text ? null : run(c);
      for (const e of r?.errors ?? []) {
        seen.add(e.code);
        assert.ok((GS1_ERROR_CODES as readonly string[]).includes(e.code), e.code);
        assert.deepStrictEqual(Object.keys(e).filter((k) => !['ai', 'code', 'message', 'position'].includes(k)), []);
      }
    }
    assert.deepStrictEqual([...GS1_ERROR_CODES].filter((code) => !seen.has(code)), []);
  });
  it('members appear in the documented order', () => {
    const r = parseGs1(`${G}10A`, { mode: 'always', now: NOW })!;
    assert.deepStrictEqual(Object.keys(r), ['is_gs1', 'fields', 'elements', 'errors', 'hri', 'digital_link']);
    assert.deepStrictEqual(Object.keys(GS1_JSON_SCHEMA.properties), ['is_gs1', 'fields', 'elements', 'errors', 'hri', 'digital_link']);
  });
});

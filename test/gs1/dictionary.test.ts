// Cross-check: every AI of GS1's Barcode Syntax Dictionary against our committed table, and back.
// The dictionary is parsed here by a small reader of its own, independent of
// tools/gen-gs1-table.js, so a generator bug or a stale table fails this test.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { AI_TABLE, aiLabel, GS1_ERROR_CODES } from '../../lib/gs1';

import { skipWithoutShared } from '../support/shared-data';
import { repoRoot } from './helpers';

interface DictAi {
  ai: string;
  flags: string;
  spec: string[];
  attrs: string[];
}

function readDictionary(file: string): DictAi[] {
  const out: DictAi[] = [];
  for (const line of fs.readFileSync(file, 'utf8').split(/\r?\n/)) {
    if (line.startsWith('#') || !line.trim()) continue;
    const words = line.split('#')[0].trim().split(/\s+/);
    const [from, to = from] = words[0].split('-');
    let rest = words.slice(1);
    const flags = rest.length && /^[*?]+$/.test(rest[0]) ? rest[0] : '';
    if (flags) rest = rest.slice(1);
    const spec = rest.filter((w) => /^\[?[NXYZ]/.test(w));
    const attrs = rest.filter((w) => !/^\[?[NXYZ]/.test(w));
    for (let n = Number(from); n <= Number(to); n++) out.push({ ai: String(n).padStart(from.length, '0'), flags, spec, attrs });
  }
  return out;
}

/** Our table row rendered back in the dictionary's own notation, for a readable comparison. */
function renderSpec(ai: string): string[] {
  const def = AI_TABLE.get(ai)!;
  return def.parts.map(([cset, min, max, optional, linters]) => {
    const len = min === max ? `${max}` : `..${max}`;
    const core = optional ? `[${cset}${len}]` : `${cset}${len}`;
    return [core, ...linters].join(',');
  });
}

function renderAttrs(ai: string): string[] {
  const def = AI_TABLE.get(ai)!;
  const out: string[] = [];
  for (const rule of def.req) out.push('req=' + rule.map((alt) => alt.join('+')).join(','));
  if (def.ex.length) out.push('ex=' + def.ex.join(','));
  if (def.dlpkey) out.push(def.dlpkey.length === 1 && def.dlpkey[0].length === 0 ? 'dlpkey' : 'dlpkey=' + def.dlpkey.map((s) => s.join(',')).join('|'));
  return out;
}

describe('gs1 table vs GS1 Barcode Syntax Dictionary', () => {
  let dict: DictAi[] = [];
  before(function () {
    dict = readDictionary(skipWithoutShared(this, 'gs1/gs1-syntax-dictionary.txt'));
  });

  it('reads a plausible dictionary (hundreds of AIs)', () => {
    assert.ok(dict.length > 400, `only ${dict.length} AIs read`);
  });

  it('has every dictionary AI, with the same format, flags, linters and pairing rules', () => {
    const problems: string[] = [];
    for (const d of dict) {
      const def = AI_TABLE.get(d.ai);
      if (!def) { problems.push(`${d.ai}: missing from our table`); continue; }
      if (def.predefined !== d.flags.includes('*')) problems.push(`${d.ai}: predefined-length flag differs`);
      if (def.dlAttr !== d.flags.includes('?')) problems.push(`${d.ai}: Digital Link attribute flag differs`);
      const spec = renderSpec(d.ai).join(' ');
      if (spec !== d.spec.join(' ')) problems.push(`${d.ai}: format "${spec}" vs dictionary "${d.spec.join(' ')}"`);
      // Attribute order inside the dictionary line is free; compare as sorted lists.
      const attrs = renderAttrs(d.ai).sort().join(' ');
      const want = [...d.attrs].sort().join(' ');
      if (attrs !== want) problems.push(`${d.ai}: attributes "${attrs}" vs dictionary "${want}"`);
      if (!aiLabel(d.ai)) problems.push(`${d.ai}: no label`);
      if (d.flags.includes('*') && def.fixedLength === null) problems.push(`${d.ai}: predefined but not fixed length`);
    }
    assert.deepStrictEqual(problems, []);
  });

  it('has no AI that the dictionary lacks', () => {
    const known = new Set(dict.map((d) => d.ai));
    assert.deepStrictEqual([...AI_TABLE.keys()].filter((ai) => !known.has(ai)), []);
  });

  it('is a prefix-free code (an AI is never the start of another), so element strings split uniquely', () => {
    const ais = [...AI_TABLE.keys()];
    const clashes = ais.filter((a) => ais.some((b) => b !== a && b.startsWith(a)));
    assert.deepStrictEqual(clashes, []);
  });

  it('labels: the four SPEC 2.2 labels exactly, and a readable label on every AI', () => {
    assert.strictEqual(aiLabel('01'), 'GTIN');
    assert.strictEqual(aiLabel('17'), 'Expiry date');
    assert.strictEqual(aiLabel('10'), 'Batch/Lot');
    assert.strictEqual(aiLabel('21'), 'Serial number');
    for (const [ai, def] of AI_TABLE) {
      // Not GS1's upper-case data titles: sentence case or an acronym, no trailing spaces.
      assert.ok(/^[A-Za-z0-9][^\n]*\S$/.test(def.label), `label of ${ai}: "${def.label}"`);
      assert.ok(!/^[A-Z ./]+$/.test(def.label) || def.label.length <= 5, `label of ${ai} looks like a raw title: "${def.label}"`);
    }
  });
});

describe('docs/gs1.md', () => {
  it('lists every AI row with its label, and every error code', () => {
    const doc = fs.readFileSync(path.join(repoRoot(), 'docs', 'gs1.md'), 'utf8');
    const missing: string[] = [];
    for (const [ai, def] of AI_TABLE) {
      const row = new RegExp(`^\\| (${ai}|\\d+-\\d+) \\| ${def.label.replace(/[()[\]./+*?^$|\\]/g, '\\$&')} \\|`, 'm');
      if (!row.test(doc)) missing.push(`${ai} ${def.label}`);
    }
    for (const code of GS1_ERROR_CODES) if (!doc.includes(`| \`${code}\` |`)) missing.push(`error code ${code}`);
    assert.deepStrictEqual(missing, []);
  });
});

describe('tools/gen-gs1-table.js', () => {
  it('regenerates exactly the committed lib/gs1/ai-table.ts from the dictionary (the table is not stale)', function () {
    const dictionary = skipWithoutShared(this, 'gs1/gs1-syntax-dictionary.txt');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const gen = require(path.join(repoRoot(), 'tools', 'gen-gs1-table.js')) as { render(text: string): { source: string } };
    const fresh = gen.render(fs.readFileSync(dictionary, 'utf8')).source;
    const committed = fs.readFileSync(path.join(repoRoot(), 'lib', 'gs1', 'ai-table.ts'), 'utf8');
    assert.ok(fresh === committed, 'lib/gs1/ai-table.ts differs from the generator output: run node tools/gen-gs1-table.js');
  });
});

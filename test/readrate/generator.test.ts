// Self-test of the synthetic DotCode generator (test/fixtures/dotcode-render): the read-rate
// figures are only worth something if the instrument is exact and repeatable.
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

import {
  bwipMatrix, Canvas, CATEGORIES, codewordLayout, damageCost, defaultPose, encode, gs1CheckDigit, gs1ElementString, humanReadable,
  leavesSlack, newLight, renderClean, renderDots, renderSample, Rng, SymbolMapping, washedInImage, washedPositions,
  zintAvailable, zintMatrix, type DotMatrix, type DotStyle, type Gs1Element, type Sample,
} from '../fixtures/dotcode-render';
import { skipWithoutShared } from '../support/shared-data';


interface Vector {
  encoder: string;
  desc: string;
  options: string[] | Record<string, unknown>;
  input: string;
  expected_text: string;
  rows: number;
  cols: number;
  matrix: string[];
}

/** The shared vectors; the calling test is skipped, with a notice, where ../shared is absent. */
function loadVectors(ctx: Mocha.Context): Vector[] {
  return readFileSync(skipWithoutShared(ctx, 'dotcode/vectors.jsonl'), 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Vector);
}

function matrixRows(m: DotMatrix): string[] {
  const rows: string[] = [];
  for (let r = 0; r < m.rows; r++) rows.push(Array.from(m.bits.subarray(r * m.cols, (r + 1) * m.cols)).join(''));
  return rows;
}

function sha(s: Sample): string {
  return createHash('sha256').update(s.grey).update(s.encoded ?? Buffer.alloc(0)).digest('hex');
}

/** Reads the lattice back from a rendered image at the known dot centres (bilinear, mid threshold). */
function sampleAtCentres(s: Sample): Uint8Array {
  const t = s.truth!;
  const at = (x: number, y: number): number => {
    const x0 = Math.floor(x);
    const y0 = Math.floor(y);
    const fx = x - x0;
    const fy = y - y0;
    const g = (xx: number, yy: number): number => s.grey[yy * s.width + xx];
    return (g(x0, y0) * (1 - fx) + g(x0 + 1, y0) * fx) * (1 - fy) + (g(x0, y0 + 1) * (1 - fx) + g(x0 + 1, y0 + 1) * fx) * fy;
  };
  const out = new Uint8Array(t.rows * t.cols);
  for (let r = 0; r < t.rows; r++) {
    for (let c = 0; c < t.cols; c++) {
      const [x, y] = t.centre(r, c);
      out[r * t.cols + c] = at(x, y) < 128 ? 1 : 0;
    }
  }
  return out;
}

describe('DotCode generator (synthetic read-rate images)', function () {
  this.timeout(60000);

  it('the PRNG is deterministic and seed-sensitive', () => {
    const a = new Rng('clean/1');
    const b = new Rng('clean/1');
    const c = new Rng('clean/2');
    const sa = Array.from({ length: 8 }, () => a.nextU32());
    assert.deepEqual(sa, Array.from({ length: 8 }, () => b.nextU32()));
    assert.notDeepEqual(sa, Array.from({ length: 8 }, () => c.nextU32()));
    // clone() draws what the original draws next, without advancing it
    a.gauss();
    const copy = a.clone();
    const ahead = [copy.gauss(), copy.next(), copy.int(0, 1000)];
    assert.deepEqual([a.gauss(), a.next(), a.int(0, 1000)], ahead);
  });

  it('bwip-js matrices match every bwip-js vector in vectors.jsonl', function () {
    const vs = loadVectors(this).filter((v) => v.encoder.startsWith('bwip-js'));
    assert.ok(vs.length >= 3, 'expected bwip-js vectors in vectors.jsonl');
    for (const v of vs) {
      const o = v.options as Record<string, unknown>;
      const m = bwipMatrix({ text: v.expected_text }, {});
      // Options beyond our API (parse, rows/columns, mask) are replayed directly through bwip-js.
      const raw = o.parse || o.rows || o.columns || o.mask || o.bcid === 'gs1dotcode';
      const got = raw
        ? (require('bwip-js').raw(o)[0] as { pixs: number[]; pixx: number; pixy: number })
        : { pixs: Array.from(m.bits), pixx: m.cols, pixy: m.rows };
      assert.equal(got.pixx, v.cols, v.desc);
      assert.equal(got.pixy, v.rows, v.desc);
      const rows = Array.from({ length: got.pixy }, (_, r) => got.pixs.slice(r * got.pixx, (r + 1) * got.pixx).join(''));
      assert.deepEqual(rows, v.matrix, v.desc);
    }
  });

  it('bwip-js GS1 matrices match the GS1 vector, and the expected text has GS after variable AIs', function () {
    const v = loadVectors(this).find((x) => x.encoder.startsWith('bwip-js') && (x.options as Record<string, unknown>).bcid === 'gs1dotcode')!;
    const els: Gs1Element[] = [];
    for (const m of v.input.matchAll(/\((\d+)\)([^(]*)/g)) els.push({ ai: m[1], value: m[2] });
    const m = bwipMatrix({ text: gs1ElementString(els), gs1: els });
    assert.deepEqual(matrixRows(m), v.matrix);
    assert.equal(m.expected.toString('latin1'), v.expected_text);
  });

  it('GS1 element strings: separators and check digits as the zint vectors expect', function () {
    const zs = loadVectors(this).filter((v) => v.encoder.startsWith('zint') && (v.options as string[]).includes('--gs1'));
    assert.ok(zs.length >= 5);
    for (const v of zs) {
      const els: Gs1Element[] = [];
      for (const m of v.input.matchAll(/\[(\d+)\]([^[]*)/g)) els.push({ ai: m[1], value: m[2] });
      assert.equal(gs1ElementString(els), v.expected_text, v.desc);
    }
    assert.equal(gs1CheckDigit('0950110153000'), '3');
    assert.equal(gs1CheckDigit('0001234567890'), '5');
  });

  it('zint --dump matrices match every plain zint vector (when zint is installed)', function () {
    if (!zintAvailable()) this.skip();
    const simple = loadVectors(this).filter((v) => {
      if (!v.encoder.startsWith('zint')) return false;
      const o = v.options as string[];
      return o.every((x, i) => ['--dump', '-b', 'DOTCODE', '-d', '--gs1'].includes(x) || /^--(mask|cols)=\d+$/.test(x) || o[i - 1] === '-b' || o[i - 1] === '-d');
    });
    assert.ok(simple.length >= 20, `only ${simple.length} plain zint vectors`);
    for (const v of simple) {
      const o = v.options as string[];
      const mask = o.find((x) => x.startsWith('--mask='));
      const cols = o.find((x) => x.startsWith('--cols='));
      const gs1 = o.includes('--gs1');
      const els: Gs1Element[] = [];
      if (gs1) for (const m of v.input.matchAll(/\[(\d+)\]([^[]*)/g)) els.push({ ai: m[1], value: m[2] });
      const m = zintMatrix(gs1 ? { text: gs1ElementString(els), gs1: els } : { text: v.input },
        { mask: mask ? Number(mask.slice(7)) : undefined, cols: cols ? Number(cols.slice(7)) : undefined });
      assert.equal(`${m.rows}x${m.cols}`, `${v.rows}x${v.cols}`, v.desc);
      assert.deepEqual(matrixRows(m), v.matrix, v.desc);
    }
  });

  it('codeword layout (capacity.ts) agrees with every vector: codeword count, 5-dot patterns', function () {
    for (const v of loadVectors(this) as Array<Vector & { codewords: number[] }>) {
      const bits = Uint8Array.from(v.matrix.join(''), (ch) => (ch === '1' ? 1 : 0));
      const L = codewordLayout(v.rows, v.cols);
      assert.equal(L.nw, v.codewords.length, v.desc);
      // Every codeword pattern has 5 dots; "prime" masks may spoil one (FORMAT.md 6).
      const off = L.positions.slice(1).filter((p) => p.reduce((n, i) => n + bits[i], 0) !== 5).length;
      assert.ok(off <= 1, `${v.desc}: ${off} codewords without 5 dots`);
      const m = { rows: v.rows, cols: v.cols, bits } as DotMatrix;
      assert.equal(damageCost(m, bits).erasures + damageCost(m, bits).errors, 0);
    }
  });

  it('a clean render sampled at the known dot centres reproduces the matrix exactly', () => {
    for (const [text, opts] of [
      ['Hello World', { pitch: 8 }],
      ['DotCode 2024', { pitch: 3, spread: 0.9 }],
      ['rotated and tilted', { pitch: 9, pose: { angle: 37, tilt: 30, tiltAxis: 60, focal: 900 } }],
      ['mirrored on a can', { pitch: 8, spread: 1.1, pose: { mirrored: true, angle: 200, cylinderRadius: 160 } }],
    ] as const) {
      const s = renderClean(text, opts);
      assert.deepEqual(sampleAtCentres(s), s.matrix!.bits, `${text} ${JSON.stringify(opts)}`);
    }
  });

  it('inverted and damaged renders show exactly the printed (damaged) matrix at the dot centres', async () => {
    const inv = await renderSample('inverted', 3);
    const read = sampleAtCentres(inv).map((b) => 1 - b);
    // Off-lattice positions read as "no dot" in either polarity; compare lattice positions only.
    const t = inv.truth!;
    for (let i = 0; i < read.length; i++) if ((Math.floor(i / t.cols) + (i % t.cols)) % 2 === 0) assert.equal(read[i], t.printed[i], `inverted position ${i}`);
    const dmg = await renderSample('damaged', 4);
    const diff = dmg.truth!.printed.reduce((n, b, i) => n + (b !== dmg.matrix!.bits[i] ? 1 : 0), 0);
    const dots = dmg.matrix!.bits.reduce((n, b) => n + b, 0);
    assert.ok(diff >= 0.05 * dots && diff <= 0.22 * dots, `damaged: ${diff} of ${dots} dots changed`);
  });

  it('every category renders deterministically: same seed, same bytes; another seed, other bytes', async () => {
    for (const c of CATEGORIES) {
      if (c === 'cluttered' || c === 'negative' || c === 'long') continue; // big frames: checked once below
      const a = await renderSample(c, 7);
      const b = await renderSample(c, 7);
      assert.equal(sha(a), sha(b), `${c}/7 is not reproducible`);
      if (c === 'clean' || c === 'noise' || c === 'damaged') {
        assert.notEqual(sha(a), sha(await renderSample(c, 8)), `${c}: seeds 7 and 8 rendered the same image`);
      }
      assert.ok(a.expected && a.expected.length > 0, `${c}: no expected payload`);
      assert.equal(a.grey.length, a.width * a.height);
    }
    const n1 = await renderSample('negative', 1);
    const n2 = await renderSample('negative', 1);
    assert.equal(sha(n1), sha(n2));
    assert.equal(n1.expected, null);
    assert.equal(n1.encoding, 'jpeg');
  });

  // ---- issue 11 scenes

  /** The mean grey at the printed dots' centres and at the empty lattice positions'. */
  function meanLevels(s: Awaited<ReturnType<typeof renderSample>>): { dots: number; empties: number } {
    const m = s.matrix!;
    let dots = 0;
    let empties = 0;
    let nd = 0;
    let ne = 0;
    for (let r = 0; r < m.rows; r++) for (let c = r % 2; c < m.cols; c += 2) {
      const [x, y] = s.truth!.centre(r, c);
      const g = s.grey[Math.round(y - 0.5) * s.width + Math.round(x - 0.5)];
      if (s.truth!.printed[r * m.cols + c]) { dots += g; nd++; } else { empties += g; ne++; }
    }
    return { dots: dots / nd, empties: empties / ne };
  }

  it('pack scenes: 640x480 or 1280x720 frames, 5-12 rows much wider than tall, 2-4.5 px modules, light dots', async () => {
    for (let seed = 1; seed <= 6; seed++) {
      const s = await renderSample('pack', seed);
      const m = s.matrix!;
      assert.ok(['640x480', '1280x720'].includes(`${s.width}x${s.height}`), `${s.name}: ${s.width}x${s.height}`);
      assert.ok(m.rows >= 5 && m.rows <= 12 && m.cols >= 3 * m.rows, `${s.name}: ${m.rows}x${m.cols}`);
      assert.ok(s.truth!.pitch >= 2 && s.truth!.pitch <= 4.5, `${s.name}: pitch ${s.truth!.pitch}`);
      assert.match(s.expectedText!, /^[A-Z0-9]{10,20}$/);
      // Light dots: the printed dots are brighter than the empty lattice positions around them.
      const { dots, empties } = meanLevels(s);
      assert.ok(dots > empties + 15, `${s.name}: dots ${dots} vs empty ${empties}`);
    }
    assert.equal(humanReadable('CW118DB8ZTFE'), 'CW1 18D B8Z TFE');
  });

  it('pack-dark scenes: the same pack scenes with dark dots on a light code box', async () => {
    for (let seed = 1; seed <= 6; seed++) {
      const s = await renderSample('pack-dark', seed);
      const m = s.matrix!;
      assert.equal(s.category, 'pack-dark');
      assert.equal(s.params.marking, 'dark');
      assert.ok(m.rows >= 5 && m.rows <= 12 && m.cols >= 3 * m.rows, `${s.name}: ${m.rows}x${m.cols}`);
      assert.ok(s.truth!.pitch >= 2 && s.truth!.pitch <= 4.5, `${s.name}: pitch ${s.truth!.pitch}`);
      const { dots, empties } = meanLevels(s);
      assert.ok(dots + 15 < empties, `${s.name}: dots ${dots} vs empty ${empties}`);
    }
    // (the light scenes draw the same numbers as before the dark marking existed)
    assert.equal((await renderSample('pack', 1)).params.marking, 'light');
  });

  it('glare that clips a light-dot print at white turns its positions into dots in the truth; mild glare does not', () => {
    const m = encode({ text: 'CW118DB8ZTFE' }, 'bwip-js', { rows: 8 });
    const style: DotStyle = { spread: 0.7, ink: 0.85, paper: 0.15, posJitter: 0, sizeJitter: 0, inkJitter: 0, roughness: 0 };
    const map = new SymbolMapping(m.rows, m.cols, { ...defaultPose(4), cx: 120, cy: 30 });
    const truth = renderDots(new Canvas(240, 60, style.paper), m, map, style, new Rng(1));
    const L = newLight(240, 60);
    for (let y = 0; y < 60; y++) for (let x = 0; x < 40; x++) L.add.px[y * 240 + x] = 0.9; // saturating sheen on the left
    for (let y = 0; y < 60; y++) for (let x = 200; x < 240; x++) L.add.px[y * 240 + x] = 0.2; // mild sheen on the right
    const w = washedPositions(truth, L, style);
    assert.ok(w.washed > 0);
    for (let r = 0; r < m.rows; r++) for (let c = r % 2; c < m.cols; c += 2) {
      const [x] = truth.centre(r, c);
      const i = r * m.cols + c;
      if (x < 39) assert.equal(w.seen[i], 1, `(${r},${c}) under the saturating sheen`);
      else if (x > 41) assert.equal(w.seen[i], m.bits[i], `(${r},${c}) outside it`);
    }
  });

  it('washedInImage judges the blurred, clipped image: a gain that lifts a light box past white erases small dark dots the nominal tones keep', () => {
    // pack-dark/16 before the fix: 2.2 px modules, ink 0.26 on a box of 0.83, an aimer gain of
    // 1.9; the nominal check saw ink at 0.5 (no washing), the frame showed 255 everywhere.
    const m = encode({ text: 'CW118DB8ZTFE' }, 'bwip-js', { rows: 8 });
    const style: DotStyle = { spread: 0.55, ink: 0.26, paper: 0.83, posJitter: 0, sizeJitter: 0, inkJitter: 0, roughness: 0 };
    const map = new SymbolMapping(m.rows, m.cols, { ...defaultPose(2.2), cx: 80, cy: 20 });
    const bare = new Canvas(160, 40, style.paper);
    const printed = bare.clone();
    const full = bare.clone();
    const every = new Uint8Array(m.bits.length);
    for (let r = 0; r < m.rows; r++) for (let c = r % 2; c < m.cols; c += 2) every[r * m.cols + c] = 1;
    const truth = renderDots(printed, m, map, style, new Rng(1), 6);
    renderDots(full, { ...m, bits: every }, map, style, new Rng(1), 6);
    const optics = { psf: 0.8 };
    const lit = (gain: number): ReturnType<typeof newLight> => {
      const L = newLight(160, 40);
      L.mul.px.fill(gain);
      return L;
    };
    const strong = lit(1.9);
    assert.equal(washedPositions(truth, strong, style).washed, 0); // the nominal tones: 0.49 vs 1
    const w = washedInImage(truth, { bare, printed, full }, strong, optics);
    let dots = 0;
    for (let i = 0; i < m.bits.length; i++) if (m.bits[i]) { dots++; assert.equal(w.seen[i], 0, `dot ${i} under the strong gain`); }
    assert.ok(w.washed >= dots);
    assert.ok(!leavesSlack(m, w.seen));
    // The same print under a gain that keeps the box below white, and dimmed: nothing washed.
    for (const g of [1.15, 0.5]) assert.equal(washedInImage(truth, { bare, printed, full }, lit(g), optics).washed, 0, `gain ${g}`);
  });

  it('pack-dark/16: the aimer no longer blows the code box out (every pixel of its symbol was 255)', async () => {
    const s = await renderSample('pack-dark', 16);
    const m = s.matrix!;
    let dots = 0;
    let white = 0;
    for (let r = 0; r < m.rows; r++) for (let c = r % 2; c < m.cols; c += 2) {
      if (!m.bits[r * m.cols + c]) continue;
      const [x, y] = s.truth!.centre(r, c);
      dots++;
      if (s.grey[Math.round(y - 0.5) * s.width + Math.round(x - 0.5)] >= 250) white++;
    }
    assert.ok(white < 0.1 * dots, `${white} of ${dots} dot centres at white`);
    assert.ok((s.params.aimerGain as number) < (s.params.aimerDrawn as number), JSON.stringify(s.params));
    assert.ok(leavesSlack(m, s.truth!.printed));
  });

  it('creases shift the rows beyond the crease line only; stretched dots are longer along u', () => {
    const pose = { ...defaultPose(10), cx: 200, cy: 100, creases: [{ u0: 20, slope: 0, shift: 0.4, width: 1 }] };
    const bent = new SymbolMapping(10, 41, pose);
    const flat = new SymbolMapping(10, 41, defaultPose(10));
    const flatAt = (u: number, v: number): number => flat.forward(u, v)[1] + 100;
    assert.ok(Math.abs(bent.forward(5, 3)[1] - flatAt(5, 3)) < 1e-9);
    assert.ok(Math.abs(bent.forward(35, 3)[1] - flatAt(35, 3) - 4) < 1e-9);

    const m = encode({ text: 'A' }, 'bwip-js');
    const extent = (stretch: number): [number, number] => {
      const c = new Canvas(200, 200, 1);
      const one = { ...m, bits: new Uint8Array(m.bits.length) };
      one.bits[0] = 1;
      const map = new SymbolMapping(m.rows, m.cols, { ...defaultPose(20), cx: 100 + ((m.cols - 1) / 2) * 20, cy: 100 + ((m.rows - 1) / 2) * 20 });
      renderDots(c, one, map, { spread: 0.6, ink: 0, paper: 1, posJitter: 0, sizeJitter: 0, inkJitter: 0, roughness: 0, stretch }, new Rng(1));
      let w = 0;
      let h = 0;
      for (let i = 0; i < 200; i++) { if (c.px[100 * 200 + i] < 0.5) w++; if (c.px[i * 200 + 100] < 0.5) h++; }
      return [w, h];
    };
    const [w1, h1] = extent(1);
    const [w2, h2] = extent(1.5);
    assert.equal(h2, h1);
    assert.ok(Math.abs(w2 - 1.5 * w1) <= 1, `width ${w1} -> ${w2}`);
  });

  it('inkjet: the dead nozzle row is a whole matrix row left out, within half the check words', async () => {
    let dead = 0;
    for (let seed = 1; seed <= 8; seed++) {
      const s = await renderSample('inkjet', seed);
      const row = (s.params.inkjet as { deadRow: number | null }).deadRow;
      const m = s.matrix!;
      const printed = s.truth!.printed;
      if (row === null) { assert.deepEqual(printed, m.bits); continue; }
      dead++;
      for (let i = 0; i < printed.length; i++) assert.equal(printed[i], Math.floor(i / m.cols) === row ? 0 : m.bits[i]);
      assert.ok(leavesSlack(m, printed));
    }
    assert.ok(dead >= 2, `only ${dead} of 8 inkjet samples have a dead row`);
  });

  it('cylinder: half the wrapped side spans 45-70 degrees of arc', async () => {
    for (let seed = 1; seed <= 6; seed++) {
      const s = await renderSample('cylinder', seed);
      const pose = s.params.pose as { cylinderRadius: number; wrapColumns: boolean; pitch: number };
      const half = ((pose.wrapColumns ? s.matrix!.cols : s.matrix!.rows) / 2) * pose.pitch;
      const deg = ((half / pose.cylinderRadius) * 180) / Math.PI;
      assert.ok(deg >= 44.9 && deg <= 70.1, `${s.name}: ${deg} degrees`);
    }
  });
});

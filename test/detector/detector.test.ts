// The DotCode detector through the addon (readImageSync): no DotCode on any zxing-cpp sample image
// (other symbologies and the false-positive folders), exact reads of synthetic symbols from the
// shared generator in every pose category, several symbols in one frame, and hostile inputs that
// must neither crash nor hang. Budget: well under 30 s.
import { strict as assert } from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import sharp from 'sharp';

import { corpusDir } from '../engine/corpus';
import { renderSample, renderSequence, type Category, type Sample } from '../fixtures/dotcode-render';
import { loadAddon } from '../../lib/engine/addon';
import { dotcodeOptions } from '../../lib/engine/speed';

// bwip-js has no type declarations in this repo; only toBuffer is used.
// eslint-disable-next-line @typescript-eslint/no-var-requires
const bwipjs = require('bwip-js') as { toBuffer(o: Record<string, unknown>): Promise<Buffer> };


const addon = loadAddon();

/** The texts a still read of the sample returns, with time to spare (a read, not a race). */
function textsRead(s: Sample): string[] {
  return addon.readImageSync(s.grey, s.width, s.height, { timeBudgetMs: 10000 }).map((r) => Buffer.from(r.bytes).toString('latin1'));
}

// (flattened on white: bwip-js PNGs have a transparent ground, which greyscale() alone makes black)
async function greyOf(file: string | Buffer): Promise<{ data: Uint8Array; width: number; height: number }> {
  const { data, info } = await sharp(file).flatten({ background: '#ffffff' }).greyscale().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height };
}

describe('DotCode detector (native readImageSync)', function () {
  this.timeout(60000);

  it('finds no DotCode in any zxing-cpp sample image', async function () {
    // About 430 images, each up to a still image's CPU budget (speed.ts; most end far sooner): 45 s
    // on this machine idle, over mocha's 60 s when another build shares its two cores (a timeout,
    // not a read). Read as decode() reads a still image: more budget is more chances to misread.
    this.timeout(240_000);
    if (!fs.existsSync(corpusDir)) this.skip();
    const hits: string[] = [];
    let images = 0;
    for (const dir of fs.readdirSync(corpusDir).sort()) {
      const full = path.join(corpusDir, dir);
      if (!fs.statSync(full).isDirectory()) continue;
      for (const f of fs.readdirSync(full).sort()) {
        if (!/\.(png|jpe?g|webp)$/i.test(f)) continue;
        const img = await greyOf(path.join(full, f));
        images++;
        const res = addon.readImageSync(img.data, img.width, img.height, dotcodeOptions('balanced'));
        if (res.length) hits.push(`${dir}/${f}: ${res.map((r) => r.via + ' ' + JSON.stringify(r.bytes.toString('latin1'))).join(', ')}`);
      }
    }
    assert.ok(images > 300, `expected the whole corpus, saw ${images} images`);
    assert.deepEqual(hits, [], 'false DotCode reads');
  });

  // A few samples of each category: exact bytes or nothing, and most of them read. The full
  // figures come from the read-rate benchmark (bench/); this guards against regressions.
  const perCategory: [Category, number][] = [
    ['clean', 6], ['rotated', 6], ['perspective', 6], ['small', 6], ['blur', 6], ['noise', 6], ['lighting', 6],
    ['inverted', 6], ['mirrored', 6], ['curved', 6], ['gs1', 4], ['long', 3], ['cluttered', 3],
  ];
  for (const [category, n] of perCategory) {
    it(`reads synthetic ${category} symbols exactly`, async function () {
      let read = 0;
      for (let seed = 1000; seed < 1000 + n; seed++) {
        const s = await renderSample(category, seed);
        const res = addon.readImageSync(s.grey, s.width, s.height);
        if (!res.length) continue;
        assert.equal(res[0].bytes.toString('hex'), s.expected!.toString('hex'), `${s.name}: wrong text (misread)`);
        assert.match(res[0].via, /^dotcode:(fast|inverted|adaptive|scaled|sharpened)$/);
        assert.equal(res[0].corners.length, 4);
        read++;
      }
      assert.ok(read >= n - 1, `${category}: read ${read} of ${n}`);
    });
  }

  // Corners are the symbol's own TL, TR, BR, BL (outer dot centres), whatever the rotation or
  // mirroring of the print: each must lie within half a module of the generator's truth.
  it('reports corners in the symbol\'s canonical order for rotated and mirrored prints', async function () {
    let checked = 0;
    for (const category of ['rotated', 'mirrored', 'perspective'] as Category[]) {
      for (let seed = 3000; seed < 3006; seed++) {
        const s = await renderSample(category, seed);
        const res = addon.readImageSync(s.grey, s.width, s.height);
        if (!res.length || !s.truth) continue;
        const tol = 0.5 * s.truth.pitch + 1;
        s.truth.corners.forEach((t, k) => {
          const got = res[0].corners[k];
          const d = Math.hypot(got.x - t[0], got.y - t[1]);
          assert.ok(d <= tol, `${s.name}: corner ${['TL', 'TR', 'BR', 'BL'][k]} at (${got.x.toFixed(1)}, ${got.y.toFixed(1)}), ` +
            `truth (${t[0].toFixed(1)}, ${t[1].toFixed(1)}), ${d.toFixed(1)} px off (tolerance ${tol.toFixed(1)})`);
        });
        checked++;
      }
    }
    assert.ok(checked >= 15, `only ${checked} of 18 samples read`);
  });

  it('reports light-on-dark symbols through the inverted pass', async function () {
    const s = await renderSample('inverted', 1001);
    const res = addon.readImageSync(s.grey, s.width, s.height);
    assert.equal(res.length, 1);
    assert.equal(res[0].via, 'dotcode:inverted');
  });

  it('refuses a window cut short of a dark-ink pack symbol at its correction limit, and reads the symbol', async function () {
    // pack-dark/230 (6 x 67): a 6 x 51 window, and the same 2 lines longer, decoded another text
    // with 5 erasures of 7 check words; the lines past them hold the symbol's own dots
    // (read_dotcodes.cpp, kMaxSpareShortOfDots). The only misread among 1,200 pack renders.
    const s = await renderSample('pack-dark', 230);
    const texts = textsRead(s);
    assert.deepEqual(texts, [s.expectedText]);
  });

  it('refuses a small window beside a glare band that needs corrections and has dots in its quiet zone', async function () {
    // Two misreads, each a window of a symbol that goes on past a glare band, decoded with the
    // corrections of a small symbol (read_dotcodes.cpp, dotsInQuietZone): pack-dark/1021, a 28 x 9
    // window as "4570<GS>880" (4 erasures of 6 check words; the symbol's dots 3 lines past its
    // side), and frame 3 of the sweep sequence 10, a 13 x 12 window right of the band as "292230"
    // (2 erasures of 4; dots on the line next to it). No text but the symbol's may come back.
    const pack = await renderSample('pack-dark', 1021);
    const sweep = renderSequence('sweep', 10);
    const frame = sweep.frames[2];
    const cases = [
      { name: pack.name, texts: textsRead(pack), expected: pack.expectedText },
      {
        name: 'sweep/10 frame 3', expected: sweep.symbols[0],
        texts: addon.readImageSync(frame.grey, frame.width, frame.height, { timeBudgetMs: 10000 }).map((r) => Buffer.from(r.bytes).toString('latin1')),
      },
    ];
    for (const c of cases) assert.deepEqual(c.texts.filter((t) => t !== c.expected), [], `${c.name}: misread`);
  });

  it('joins the two parts of a pack symbol that a washed-out glare band splits, and reads it', async function () {
    // pack-dark/8 (6 x 67: lattices of columns 0-17 and 31-66 either side of a white band) and
    // pack-dark/109 (6 x 59: columns 0-17 and 47-58): neither part reads alone (join_lattices.cpp).
    for (const seed of [8, 109]) {
      const s = await renderSample('pack-dark', seed);
      const texts = textsRead(s);
      assert.deepEqual(texts, [s.expectedText], s.name);
      const trace = addon.inspectImageSync(s.grey, s.width, s.height, { tryHarder: true, timeBudgetMs: 10000 });
      const outcomes = trace.passes.flatMap((p) => p.lattices.map((l) => l.outcome));
      assert.ok(outcomes.includes('joined with another part of its symbol'), `${s.name}: ${[...new Set(outcomes)].join(', ')}`);
    }
  });

  it('reads the small dark dots of a code box whose dark regions together pass the dark budget', async function () {
    // pack-dark/168 (10 x 51, 1280x720): the fast pass's dark regions around the code box, its
    // text, the EAN and the carton's print merged into one region of 977 x 594 px, more than the
    // dark peaks budget, which was therefore never read (read_dotcodes.cpp, focusRegions' maxArea).
    const s = await renderSample('pack-dark', 168);
    const texts = textsRead(s);
    assert.deepEqual(texts, [s.expectedText]);
  });

  it('reads dark inkjet dots of about 2 px in a small frame from its copy upsampled by cubic convolution', async function () {
    // pack-dark/12 (5 x 80, 2.08 px modules) and /58 (6 x 67, 2.09 px), 640 x 480: upsampled
    // bilinearly the dots a pixel apart run together and nothing reads; the cubic copy keeps the
    // gaps (read_dotcodes.cpp, readUpsampled).
    for (const seed of [12, 58]) {
      const s = await renderSample('pack-dark', seed);
      assert.deepEqual(textsRead(s), [s.expectedText], s.name);
    }
  });

  it('reads pack symbols under a glare slope or blur from a sharpened copy of the image', async function () {
    // pack/21 (6 x 67, a glare streak across it) and pack/94 (8 x 51): no copy of the image as
    // given reads them; the image plus 1.5 times its difference from a 2 px Gaussian blur does
    // (read_dotcodes.cpp, readSharpened).
    for (const seed of [21, 94]) {
      const s = await renderSample('pack', seed);
      assert.deepEqual(textsRead(s), [s.expectedText], s.name);
    }
  });

  it('reads dark inkjet dots under blur through the deconvolving peaks stages', async function () {
    // pack-dark/202 (9 x 62, 4.1 px modules) and /253 (6 x 67, 3.1 px), 1280 x 720, soft: the
    // defocus stage's deconvolved regions read only light dots until its dark half ran too
    // (read_dotcodes.cpp, peaks).
    for (const seed of [202, 253]) {
      const s = await renderSample('pack-dark', seed);
      assert.deepEqual(textsRead(s), [s.expectedText], s.name);
    }
  });

  it('follows a lattice cut to its DotCode lines to the ends glare washed out', async function () {
    // pack-dark/38 (10 x 41, 4.5 px modules) and /281 (6 x 67, 3.0 px), 1280 x 720: the fast or
    // sharpened pass's lattice grows from the symbol into the text below it; cut to its DotCode
    // lines it lacks the columns under the glare, which only a short wide lattice's reach adds
    // (read_dotcodes.cpp, Candidate::cutToLines).
    for (const seed of [38, 281]) {
      const s = await renderSample('pack-dark', seed);
      assert.deepEqual(textsRead(s), [s.expectedText], s.name);
    }
  });

  it('reports a symbol once when two of its lattices read it', async function () {
    // pack-dark/206 and pack/80: a cluster and the same cluster grown again both read the symbol,
    // which was returned twice at the same place (read_dotcodes.cpp, sameSymbolAt).
    for (const [category, seed] of [['pack-dark', 206], ['pack', 80]] as const) {
      const s = await renderSample(category, seed);
      assert.deepEqual(textsRead(s), [s.expectedText], s.name);
    }
  });

  it('returns both copies of one code printed twice', async function () {
    const a = await renderSample('clean', 2001);
    const width = 2 * a.width + 20, height = a.height;
    const grey = new Uint8Array(width * height).fill(a.grey[0]);
    for (let y = 0; y < a.height; y++) {
      grey.set(a.grey.subarray(y * a.width, (y + 1) * a.width), y * width);
      grey.set(a.grey.subarray(y * a.width, (y + 1) * a.width), y * width + a.width + 20);
    }
    const res = addon.readImageSync(grey, width, height, { timeBudgetMs: 10000 });
    assert.deepEqual(res.map((r) => Buffer.from(r.bytes).toString('latin1')), [a.expectedText, a.expectedText]);
    const xs = res.map((r) => (r.corners[0].x + r.corners[2].x) / 2).sort((p, q) => p - q);
    assert.ok(xs[0] < a.width && xs[1] > a.width + 20, `one in each half: ${xs.join(', ')}`);
  });

  it('returns every symbol of a frame holding two', async function () {
    const a = await renderSample('clean', 2001);
    const b = await renderSample('clean', 2002);
    const width = a.width + b.width + 20, height = Math.max(a.height, b.height);
    const grey = new Uint8Array(width * height).fill(a.grey[0]);
    for (let y = 0; y < a.height; y++) grey.set(a.grey.subarray(y * a.width, (y + 1) * a.width), y * width);
    for (let y = 0; y < b.height; y++) grey.set(b.grey.subarray(y * b.width, (y + 1) * b.width), y * width + a.width + 20);
    const res = addon.readImageSync(grey, width, height);
    const texts = res.map((r) => r.bytes.toString('hex')).sort();
    assert.deepEqual(texts, [a.expected!.toString('hex'), b.expected!.toString('hex')].sort());
    const one = addon.readImageSync(grey, width, height, { maxSymbols: 1 });
    assert.equal(one.length, 1);
  });

  // Encoders' smallest prints: at scale 1 zint draws every dot as ONE black pixel, two pixels
  // apart on the checkerboard, so all dots sit on rows (and columns) of one parity; bwip-js draws
  // 3x3 plus signs that touch their neighbours. Both must read exactly, wherever the symbol sits
  // (a 1 px border flips the row parity the dots are on).
  const payloads = ((): string[] => {
    let seed = 4242;
    const rnd = (n: number): number => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 8) % n;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 .,-/';
    const out = ['Hello World 123 abc'];
    while (out.length < 10) {
      const len = 1 + rnd(40);
      let t = '';
      for (let i = 0; i < len; i++) t += alphabet[rnd(alphabet.length)];
      out.push(t);
    }
    return out;
  })();

  it('reads zint scale-1 prints (one-pixel dots at a 2 px pitch) exactly', async function () {
    const v = spawnSync('zint', ['--version'], { encoding: 'utf8' });
    if (v.error || v.status !== 0) {
      console.log('      (zint not installed: scale-1 zint prints not tested)');
      this.skip();
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dc-zint1-'));
    try {
      for (const [k, text] of payloads.entries()) {
        const file = path.join(dir, `s${k}.png`);
        const r = spawnSync('zint', ['-b', 'DOTCODE', '--scale=1', '-o', file, '-d', text], { encoding: 'utf8' });
        assert.equal(r.status, 0, `zint failed for ${JSON.stringify(text)}: ${r.stderr}`);
        const img = await greyOf(file);
        for (const pad of [0, 1]) {
          const width = img.width + 2 * pad, height = img.height + 2 * pad;
          const grey = new Uint8Array(width * height).fill(255);
          for (let y = 0; y < img.height; y++) grey.set(img.data.subarray(y * img.width, (y + 1) * img.width), (y + pad) * width + pad);
          const res = addon.readImageSync(grey, width, height);
          assert.equal(res.length, 1, `${JSON.stringify(text)} (${img.width}x${img.height}, border ${pad}): not read`);
          assert.equal(res[0].bytes.toString('latin1'), text, `${JSON.stringify(text)}: misread`);
        }
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads bwip-js scale-1 prints exactly', async function () {
    for (const text of payloads) {
      const img = await greyOf(await bwipjs.toBuffer({ bcid: 'dotcode', text, scale: 1 }));
      const res = addon.readImageSync(img.data, img.width, img.height);
      assert.equal(res.length, 1, `${JSON.stringify(text)} (${img.width}x${img.height}): not read`);
      assert.equal(res[0].bytes.toString('latin1'), text, `${JSON.stringify(text)}: misread`);
    }
  });

  it('survives hostile images within the time budget', function () {
    const W = 1280, H = 720;
    const make = (f: (x: number, y: number) => number): Uint8Array => {
      const g = new Uint8Array(W * H);
      for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) g[y * W + x] = f(x, y);
      return g;
    };
    let seed = 12345;
    const rnd = (): number => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 16) & 0xff;
    const images: [string, Uint8Array][] = [
      ['black', make(() => 0)],
      ['white', make(() => 255)],
      ['noise', make(() => rnd())],
      ['all dots (checkerboard of 2 px dots)', make((x, y) => (((x >> 1) + (y >> 1)) & 1 ? 0 : 255))],
      ['dense dot lattice', make((x, y) => ((x % 6 < 3 && y % 6 < 3) || ((x + 3) % 6 < 3 && (y + 3) % 6 < 3) ? 20 : 230))],
      ['stripes', make((x) => ((x >> 2) & 1 ? 10 : 240))],
      ['pixel checkerboard', make((x, y) => ((x + y) & 1 ? 0 : 255))],
    ];
    for (const [name, g] of images) {
      const t0 = process.hrtime.bigint();
      const res = addon.readImageSync(g, W, H, { timeBudgetMs: 250 });
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      assert.deepEqual(res, [], `${name}: no symbol expected`);
      // generous bound: the budget is 250 ms; a hang or unbounded work would blow far past it
      assert.ok(ms < 2000, `${name}: took ${ms.toFixed(0)} ms`);
    }
    assert.deepEqual(addon.readImageSync(new Uint8Array(1), 1, 1), []);
    assert.deepEqual(addon.readImageSync(new Uint8Array(64), 8, 8, { maxSymbols: 0 }), []);
  });
});

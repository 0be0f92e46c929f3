// The FrameReader (lib/engine/frame-reader.ts, native/detector/frame_fusion.h; docs/engine.md
// "Video: FrameReader"): DotCode read from frames together. Sequences of the generator
// (test/fixtures/dotcode-render/sequence.ts) that single frames rarely read must be read by their
// last frame; replaced and alternating symbols must never be mixed or reported when not in view;
// sequences without a DotCode must report nothing. Timing lives in bench/sequences.ts.
import * as assert from 'assert';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { close, FrameReader } from '../../lib/engine';
import { loadAddon } from '../../lib/engine/addon';
import { renderClean, renderSample, renderSequence } from '../fixtures/dotcode-render';
import { runSequence } from '../../bench/sequences-core';
import { repoRoot } from '../support/seeded';

/** Seeds of this test (the bench's are 1..100): the floor below is what they read when recorded. */
const FIRST_SEED = 1001;
const SWEEPS = 10;
/** Recorded 2026-11-23 on these seeds (bench/RESULTS.md "Video sequences"): 10 of 10. */
const SWEEP_FLOOR = 9;
/** The sweeps whose frames are also read one by one, to show that single frames mostly fail (half
 * of the test's time went to those reads; bench/sequences.ts reads every frame of its 100). */
const SWEEPS_READ_SINGLY = 4;

function frameOf(s: { grey: Uint8Array; width: number; height: number }) {
  return { data: s.grey, width: s.width, height: s.height, channels: 1 as const };
}

describe('engine: FrameReader (video fusion)', function () {
  this.timeout(300_000);
  after(() => close());

  it('reads the glare-sweep sequences that single frames mostly do not, by their last frame, without a misread', async () => {
    let read = 0;
    let framesReadSingly = 0;
    let single = 0;
    let fused = 0;
    for (let seed = FIRST_SEED; seed < FIRST_SEED + SWEEPS; seed++) {
      const singleReads = seed < FIRST_SEED + SWEEPS_READ_SINGLY;
      const o = await runSequence(renderSequence('sweep', seed), { singleReads });
      assert.deepStrictEqual(o.misreads, [], o.name);
      if (o.fusedRead) read++;
      if (singleReads) framesReadSingly += o.frames;
      single += o.singleReads;
      fused += o.fusedReports;
    }
    assert.ok(single <= framesReadSingly / 2, `single frames read ${single} of ${framesReadSingly}: the sequences are meant to be hard`);
    assert.ok(fused > 0, 'no read came from fused frames');
    assert.ok(read >= SWEEP_FLOOR, `read ${read} of ${SWEEPS} sequences (floor ${SWEEP_FLOOR})`);
  });

  it('never mixes two symbols: replaced and alternating symbols, only the one in view is reported', async () => {
    for (const kind of ['replaced', 'alternating'] as const) {
      for (let seed = FIRST_SEED; seed < FIRST_SEED + 6; seed++) {
        const o = await runSequence(renderSequence(kind, seed), { singleReads: false });
        assert.deepStrictEqual(o.misreads, [], o.name);
      }
    }
  });

  it('reports nothing on sequences without a DotCode', async () => {
    for (let seed = FIRST_SEED; seed < FIRST_SEED + 4; seed++) {
      const o = await runSequence(renderSequence('empty', seed), { singleReads: false });
      assert.strictEqual(o.falsePositives, 0, o.name);
    }
  });

  it('new: true the first time a symbol is reported since it came into view, again after it left', async () => {
    const sym = renderClean('FRAME 12 NEW', { pitch: 6, seed: 3 });
    const blank = { data: new Uint8Array(sym.width * sym.height).fill(235), width: sym.width, height: sym.height, channels: 1 as const };
    const fr = new FrameReader({ format: 'DotCode', leaveAfter: 3 });
    const seen: Array<[boolean, boolean, number]> = [];
    for (const frame of [sym, sym, sym, null, sym, null, null, null, null, sym, sym]) {
      const r = await fr.push(frame ? frameOf(frame) : blank);
      seen.push([r.ok, r.new, r.frames_used]);
      if (r.ok) assert.strictEqual(r.text, 'FRAME 12 NEW');
      else assert.strictEqual(r.error, 'no_dotcode_found');
    }
    assert.deepStrictEqual(seen.map(([ok, isNew]) => (ok ? (isNew ? 'N' : 'r') : '-')).join(''), 'Nrr-r----Nr');
    assert.ok(seen.filter(([ok]) => ok).every(([, , used]) => used === 1), 'a frame read alone says frames_used 1');
    fr.reset();
    assert.strictEqual((await fr.push(frameOf(sym))).new, true, 'reset forgets what was in view');
    fr.close();
  });

  it('reads the other symbologies frame by frame, with frames_used 1 and new', async () => {
    const fr = new FrameReader();
    const qr = path.join(repoRoot, 'examples', 'qrcode.png');
    const a = await fr.push(qr);
    const b = await fr.push(qr);
    assert.deepStrictEqual([a.ok, a.format, a.frames_used, a.new], [true, 'QRCode', 1, true]);
    assert.deepStrictEqual([b.ok, b.new], [true, false]);
    fr.close();
  });

  it('answers errors as decode does, never throws; bad options answer their error', async () => {
    const fr = new FrameReader();
    assert.strictEqual((await fr.push(Buffer.from('not an image'))).error, 'decode_error:unsupported_format');
    assert.strictEqual((await fr.push({ data: new Uint8Array(3), width: 10, height: 10, channels: 1 })).error, 'decode_error:invalid_frame');
    assert.strictEqual((await fr.push(Buffer.alloc(0))).error, 'decode_error:empty_input');
    const bad = new FrameReader({ format: 'Code39' as never });
    assert.strictEqual((await bad.push(path.join(repoRoot, 'examples', 'qrcode.png'))).error, 'decode_error:unknown_format_option');
    fr.close();
    assert.match((await fr.push(Buffer.from('x'))).error ?? '', /^decode_error:internal/);
  });

  it('the WebAssembly reader fuses the same: the same reads, frame by frame, on the same sequences', async function () {
    const wasm = path.join(repoRoot, 'dist', 'lib', 'wasm', 'dotcode_reader.wasm');
    if (!fs.existsSync(wasm)) {
      console.log(`      (skipped: ${wasm} is not built; it needs emscripten)`);
      this.skip();
    }
    const script = `
      const { renderSequence } = require(${JSON.stringify(path.join(repoRoot, 'dist', 'test', 'fixtures', 'dotcode-render'))});
      const { FrameReader } = require(${JSON.stringify(path.join(repoRoot, 'dist', 'lib', 'engine'))});
      (async () => {
        const out = [];
        for (const [kind, seed] of [['sweep', ${FIRST_SEED}], ['replaced', ${FIRST_SEED + 1}]]) {
          const fr = new FrameReader({ format: 'DotCode' });
          for (const f of renderSequence(kind, seed).frames) {
            const r = await fr.push({ data: f.grey, width: f.width, height: f.height, channels: 1 });
            out.push([r.ok, r.text, r.frames_used, r.new].join('|'));
          }
        }
        console.log(JSON.stringify(out));
      })();`;
    const run = (engine: string) => JSON.parse(execFileSync(process.execPath, ['-e', script], { env: { ...process.env, DOTCODE_ENGINE: engine }, encoding: 'utf8' })) as string[];
    const native = run('native');
    assert.ok(native.some((x) => x.startsWith('true|')), 'the sequences read');
    assert.deepStrictEqual(run('wasm'), native);
  });

  it('reads a live frame as given: a frame only a still\'s copies read is left to the next frames', async () => {
    // pack-dark/12 and /58 (2 px modules, 640 x 480) read only from the upsampled copy a still gets
    // (detector.test.ts); a live frame stops after the image as given (read_dotcodes.cpp,
    // readWithCopies: the copies' lattices are never fused, and cost a small frame 3-4 times the
    // read as given), even with the budget to spare.
    const addon = loadAddon();
    for (const seed of [12, 58]) {
      const s = await renderSample('pack-dark', seed);
      const still = addon.readImageSync(s.grey, s.width, s.height, { timeBudgetMs: 10000 });
      assert.deepStrictEqual(still.map((r) => r.bytes.toString('latin1')), [s.expectedText], `${s.name} as a still`);
      const push = await addon.pushFrame!(addon.createFrameFusion!(12), s.grey, s.width, s.height, { timeBudgetMs: 10000 });
      assert.deepStrictEqual(push.reads.map((r) => r.bytes.toString('latin1')), [], `${s.name} as a live frame`);
    }
  });

  it('the addon exposes the fusion; a bad handle is a TypeError, not a crash', () => {
    const addon = loadAddon();
    assert.strictEqual(typeof addon.createFrameFusion, 'function');
    assert.throws(() => addon.pushFrame!({}, new Uint8Array(4), 2, 2), TypeError);
    const f = addon.createFrameFusion!(12);
    assert.throws(() => addon.pushFrame!(f, new Uint8Array(3), 2, 2), RangeError);
  });
});

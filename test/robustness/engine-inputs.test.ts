// Robustness of the engine on hostile and degenerate input (QA, task item 1).
//
// The engine must never throw, crash or hang on any input: every bad input gives ok:false with
// a SPEC 7.2 error (`decode_error:<detail>` or `no_dotcode_found`). A crash of the addon would
// take mocha down with it, so the inputs run in a CHILD process (this same file, started with
// DC_QA_ENGINE_CHILD=1): the parent asserts the child exited 0 and judges every answer it
// reported. All randomness is seeded (mulberry32), so a failure replays exactly.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { mulberry32 } from '../support/seeded';

const SEED = Number(process.env.DC_QA_SEED ?? 20261122);
/** per-image CPU time allowed (all engine threads), 1920x1080 included */
const MAX_CPU_MS_PER_IMAGE = 3000;
/** SPEC 7.2 failure shapes */
const SPEC_ERROR = /^(no_dotcode_found|decode_error:[a-z0-9_]+(:.*)?)$/s;

/**
 * What the child reports per call. `ms` is wall time (inflated when other builds share the
 * machine); `cpu` is the process CPU time of the call, worker threads included (calls run one at
 * a time), which is what the per-image bound is checked on.
 */
interface Report { name: string; api: string; ok?: boolean; error?: string | null; threw?: string; ms: number; cpu?: number; keys?: string }


// ---------------------------------------------------------------- child side

function crc32(buf: Buffer): number {
  let c = ~0 >>> 0;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

/** A PNG whose IHDR declares width x height, followed by one tiny (wrong) IDAT and IEND. */
function pngDeclaring(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4); len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4); crc.writeUInt32BE(crc32(td));
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width >>> 0, 0); ihdr.writeUInt32BE(height >>> 0, 4);
  ihdr[8] = 8; ihdr[9] = 0; // 8-bit grey
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr),
    chunk('IDAT', Buffer.from([0x78, 0x9c, 0x63, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01])), chunk('IEND', Buffer.alloc(0))]);
}

/** A baseline JPEG header declaring width x height (SOF0), then EOI: no scan data at all. */
function jpegDeclaring(width: number, height: number): Buffer {
  return Buffer.from([0xff, 0xd8, 0xff, 0xc0, 0x00, 0x0b, 0x08, (height >> 8) & 255, height & 255, (width >> 8) & 255, width & 255,
    0x01, 0x01, 0x11, 0x00, 0xff, 0xd9]);
}

/** A WebP VP8X header declaring width x height (24-bit fields, up to 16M x 16M). */
function webpDeclaring(width: number, height: number): Buffer {
  const b = Buffer.alloc(30 + 8);
  b.write('RIFF', 0, 'ascii'); b.writeUInt32LE(b.length - 8, 4); b.write('WEBP', 8, 'ascii');
  b.write('VP8X', 12, 'ascii'); b.writeUInt32LE(10, 16);
  b.writeUIntLE(width - 1, 24, 3); b.writeUIntLE(height - 1, 27, 3);
  return b;
}

type Pattern = 'black' | 'white' | 'stripes' | 'checker' | 'dots' | 'noise';
function patternGrey(p: Pattern, w: number, h: number, rnd: () => number): Uint8Array {
  const g = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let v = 255;
      switch (p) {
        case 'black': v = 0; break;
        case 'white': v = 255; break;
        case 'stripes': v = (x >> 3) & 1 ? 0 : 255; break;
        case 'checker': v = ((x >> 2) ^ (y >> 2)) & 1 ? 0 : 255; break;
        case 'dots': v = 255; break;
        case 'noise': v = Math.floor(rnd() * 256); break;
      }
      g[y * w + x] = v;
    }
  }
  if (p === 'dots') {
    // random black discs, dot-sized, the detector's favourite food
    const n = Math.floor((w * h) / 400);
    for (let i = 0; i < n; i++) {
      const cx = Math.floor(rnd() * w), cy = Math.floor(rnd() * h), r = 2 + Math.floor(rnd() * 3);
      for (let y = Math.max(0, cy - r); y < Math.min(h, cy + r + 1); y++) {
        for (let x = Math.max(0, cx - r); x < Math.min(w, cx + r + 1); x++) {
          if ((x - cx) ** 2 + (y - cy) ** 2 <= r * r) g[y * w + x] = 0;
        }
      }
    }
  }
  return g;
}

async function child(): Promise<void> {
  /* eslint-disable @typescript-eslint/no-var-requires */
  const engine = require('../../lib/engine') as typeof import('../../lib/engine');
  const sharp = require('sharp') as typeof import('sharp');
  const { loadAddon } = require('../../lib/engine/addon') as typeof import('../../lib/engine/addon');
  const addon = loadAddon() as unknown as Record<string, (...a: unknown[]) => unknown>;
  const rnd = mulberry32(SEED);
  const out = (r: Report) => process.stdout.write(JSON.stringify(r) + '\n');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dc-qa-engine-'));

  const inputs: [string, unknown][] = [];
  const add = (name: string, v: unknown) => inputs.push([name, v]);

  // a real symbol, encoded three ways, then truncated and bit-flipped
  const ex = path.resolve(__dirname, '..', '..', '..', 'examples', 'dotcode.png');
  const png = fs.readFileSync(ex);
  const jpg = await sharp(png).jpeg({ quality: 90 }).toBuffer();
  const webp = await sharp(png).webp({ quality: 90 }).toBuffer();
  for (const [kind, buf] of [['png', png], ['jpeg', jpg], ['webp', webp]] as const) {
    for (const n of [1, 7, 8, 12, 16, 24, 33, 64, 100, Math.floor(buf.length / 2), buf.length - 1]) add(`${kind} truncated to ${n}`, buf.subarray(0, n));
    for (let i = 0; i < 6; i++) {
      const m = Buffer.from(buf);
      const flips = 1 + Math.floor(rnd() * 8);
      for (let k = 0; k < flips; k++) m[Math.floor(rnd() * Math.min(m.length, 400))] ^= 1 << Math.floor(rnd() * 8);
      add(`${kind} header bit flips #${i}`, m);
    }
  }
  // pure random bytes, and random bytes behind each magic number
  for (let i = 0; i < 6; i++) {
    const r = Buffer.alloc(16 + Math.floor(rnd() * 4000));
    for (let k = 0; k < r.length; k++) r[k] = Math.floor(rnd() * 256);
    add(`random bytes #${i}`, r);
    add(`png magic + random #${i}`, Buffer.concat([png.subarray(0, 8), r]));
    add(`jpeg magic + random #${i}`, Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), r]));
    add(`riff/webp magic + random #${i}`, Buffer.concat([webp.subarray(0, 16), r]));
  }
  // huge declared dimensions (pixel bombs) and degenerate ones
  for (const [w, h] of [[100000, 100000], [0xffffffff, 0xffffffff], [0x7fffffff, 1], [1, 0x7fffffff], [0, 0], [7000, 7000], [6000, 6000]]) add(`png declaring ${w}x${h}`, pngDeclaring(w, h));
  for (const [w, h] of [[65535, 65535], [0, 0], [65535, 1], [8000, 8000]]) add(`jpeg declaring ${w}x${h}`, jpegDeclaring(w, h));
  for (const [w, h] of [[16384, 16384], [1 << 24, 1 << 24], [1, 1]]) add(`webp declaring ${w}x${h}`, webpDeclaring(w, h));
  // tiny and thin real images
  for (const [w, h] of [[1, 1], [1, 640], [640, 1], [2, 2], [3, 1000]]) {
    add(`png ${w}x${h}`, await sharp(Buffer.alloc(w * h, 255), { raw: { width: w, height: h, channels: 1 } }).png().toBuffer());
    add(`raw ${w}x${h}`, { data: new Uint8Array(w * h), width: w, height: h, channels: 1 });
  }
  // patterns at VGA and full HD: as raw frames and as PNG
  for (const [w, h] of [[640, 480], [1920, 1080]]) {
    for (const p of ['black', 'white', 'stripes', 'checker', 'dots', 'noise'] as Pattern[]) {
      const g = patternGrey(p, w, h, rnd);
      add(`raw ${p} ${w}x${h}`, { data: g, width: w, height: h, channels: 1 });
      if (w === 640 || p === 'dots') add(`png ${p} ${w}x${h}`, await sharp(Buffer.from(g), { raw: { width: w, height: h, channels: 1 } }).png().toBuffer());
    }
  }
  // odd raw frames and lying Mat-likes
  const d = new Uint8Array(64 * 64 * 4);
  for (const f of [
    { data: d, width: 64, height: 64, channels: 2 }, { data: d, width: 64, height: 64, channels: 0 },
    { data: d, width: 64, height: 64, channels: 5 }, { data: d, width: 64, height: 64, channels: NaN },
    { data: d, width: 65, height: 64, channels: 4 }, { data: d, width: 64, height: 65, channels: 4 },
    { data: d, width: -64, height: -64, channels: 1 }, { data: d, width: NaN, height: 64 },
    { data: d, width: 64.5, height: 64 }, { data: d, width: Infinity, height: 1 }, { data: d, width: 1e9, height: 1e9 },
    { data: d, width: '64', height: '64', channels: '1' }, { data: d.subarray(0, 10), width: 64, height: 64 },
    { data: [0, 1, 2], width: 1, height: 3 }, { data: new Float32Array(64), width: 8, height: 8 },
    { data: null, width: 1, height: 1 }, { data: d, width: 64, height: 64, channels: 3, order: 'bgr' },
  ]) add(`raw frame ${JSON.stringify({ ...f, data: (f.data as { length?: number } | null)?.length ?? null })}`, f);
  const mats: [string, unknown][] = [
    ['mat rows lie', { rows: 4000, cols: 4000, channels: 3, getData: () => new Uint8Array(12) }],
    ['mat negative', { rows: -5, cols: 10, channels: 1, getData: () => new Uint8Array(50) }],
    ['mat NaN', { rows: NaN, cols: NaN, channels: () => 1, getData: () => new Uint8Array(50) }],
    ['mat channels() throws', { rows: 10, cols: 10, channels: () => { throw new Error('nope'); }, getData: () => new Uint8Array(100) }],
    ['mat getData() throws', { rows: 10, cols: 10, channels: 1, getData: () => { throw new Error('nope'); } }],
    ['mat getData() string', { rows: 10, cols: 10, channels: 1, getData: () => 'x'.repeat(100) }],
    ['mat channels 2', { rows: 10, cols: 10, channels: 2, getData: () => new Uint8Array(200) }],
    ['mat getter throws', Object.defineProperty({ cols: 10, channels: 1, getData: () => new Uint8Array(100) }, 'rows', { get() { throw new Error('getter'); }, enumerable: true })],
    ['proxy that throws', new Proxy({}, { get() { throw new Error('proxy'); }, has() { throw new Error('proxy'); } })],
  ];
  for (const [n, m] of mats) add(n, m);
  // non-image values and paths
  fs.writeFileSync(path.join(tmp, 'empty.png'), Buffer.alloc(0));
  fs.writeFileSync(path.join(tmp, 'text.png'), 'hello, not an image');
  for (const v of [null, undefined, 0, 42, true, {}, [], '', ' ', 'x'.repeat(5000), '/', tmp, path.join(tmp, 'nope.png'),
    path.join(tmp, 'empty.png'), path.join(tmp, 'text.png'), '\0', new ArrayBuffer(0), new ArrayBuffer(16), new Uint8Array(0),
    Symbol('s'), () => 1, new Date(), new Map()]) {
    add(`value ${typeof v === 'symbol' ? 'symbol' : String(v).slice(0, 40)}`, v);
  }

  let turn = 0;
  for (const [name, input] of inputs) {
    // Every bad input goes through all three calls; the big pattern images (there for the time
    // bound, 0.3-1 s each) through one call each, in turn, to keep the run short.
    const big = /1920x1080|6000x6000/.test(name);
    const apis = big ? [(['decode', 'decodeSync', 'decodeAll'] as const)[turn++ % 3]] : (['decode', 'decodeSync', 'decodeAll'] as const);
    for (const api of apis) {
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      try {
        let r: { ok: boolean; error: string | null };
        if (api === 'decode') r = await engine.decode(input as never);
        else if (api === 'decodeSync') r = engine.decodeSync(input as never);
        else r = await engine.decodeAll(input as never);
        const c = process.cpuUsage(c0);
        out({ name, api, ok: r.ok, error: r.error, ms: performance.now() - t0, cpu: (c.user + c.system) / 1000, keys: Object.keys(r).join(',') });
      } catch (e) {
        out({ name, api, threw: String((e as Error)?.message ?? e), ms: performance.now() - t0 });
      }
    }
  }
  // bad options must not throw either
  for (const o of [{ format: 'EAN13' }, { gs1: 'sometimes' }, { format: null }, null, 5]) {
    for (const api of ['decode', 'decodeSync'] as const) {
      const t0 = performance.now();
      try {
        const r = api === 'decode' ? await engine.decode(png, o as never) : engine.decodeSync(png, o as never);
        out({ name: `options ${JSON.stringify(o)}`, api, ok: r.ok, error: r.error, ms: performance.now() - t0, keys: Object.keys(r).join(',') });
      } catch (e) {
        out({ name: `options ${JSON.stringify(o)}`, api, threw: String((e as Error)?.message ?? e), ms: performance.now() - t0 });
      }
    }
  }

  // The addon directly: a JS exception for bad arguments is its documented contract; a crash is not.
  const grey = new Uint8Array(640 * 480).fill(255);
  const addonCalls: [string, () => unknown][] = [
    ['readImageSync no args', () => addon.readImageSync()],
    ['readImageSync width too big', () => addon.readImageSync(grey, 641, 480)],
    ['readImageSync negative', () => addon.readImageSync(grey, -1, -1)],
    ['readImageSync NaN', () => addon.readImageSync(grey, NaN, NaN)],
    ['readImageSync 2^32 wrap', () => addon.readImageSync(grey, 2 ** 32 + 640, 480)],
    ['readImageSync float array', () => addon.readImageSync(new Float64Array(16), 4, 4)],
    ['readImageSync options odd', () => addon.readImageSync(grey, 640, 480, { maxSymbols: -1, timeBudgetMs: NaN, tryHarder: 'yes' })],
    ['readImageSync budget Infinity', () => addon.readImageSync(grey, 640, 480, { timeBudgetMs: Infinity })],
    ['readImageSync budget 1e300', () => addon.readImageSync(grey, 640, 480, { timeBudgetMs: 1e300 })],
    ['readImageSync maxSymbols 1e9', () => addon.readImageSync(patternGrey('dots', 640, 480, rnd), 640, 480, { maxSymbols: 1e9 })],
    ['readImageSync 1x1', () => addon.readImageSync(new Uint8Array(1), 1, 1)],
    ['readImageSync 1x4096', () => addon.readImageSync(new Uint8Array(4096), 1, 4096)],
    ['readImageSync subarray view', () => addon.readImageSync(grey.subarray(100, 200), 10, 10)],
    ['decodeGrid no args', () => addon.decodeGrid()],
    ['decodeGrid zero', () => addon.decodeGrid({ rows: 0, cols: 0, values: [] })],
    ['decodeGrid huge', () => addon.decodeGrid({ rows: 100000, cols: 100000, values: [] })],
    ['decodeGrid length lies', () => addon.decodeGrid({ rows: 10, cols: 10, values: { length: 100 } })],
    ['decodeGrid NaN values', () => addon.decodeGrid({ rows: 10, cols: 10, values: new Array(100).fill(NaN) })],
    ['decodeGrid values throw', () => addon.decodeGrid({ rows: 2, cols: 2, values: new Proxy([0, 0, 0, 0], { get(t, k) { if (k === '2') throw new Error('x'); return Reflect.get(t, k); } }) })],
    ['decodeGrid rows string', () => addon.decodeGrid({ rows: '12', cols: '12', values: new Uint8Array(144) })],
    ['decodeGrid erasureMargin NaN', () => addon.decodeGrid({ rows: 12, cols: 12, values: new Float32Array(144).fill(0.5) }, { erasureMargin: NaN })],
    ['decodeGrid erasureMargin -Inf', () => addon.decodeGrid({ rows: 12, cols: 12, values: new Float32Array(144).fill(0.5) }, { erasureMargin: -Infinity })],
  ];
  // random grids of every small size: the decoding core must answer null or a symbol, nothing else
  for (let i = 0; i < 300; i++) {
    const rows = 5 + Math.floor(rnd() * 60), cols = 5 + Math.floor(rnd() * 60);
    const v = new Float32Array(rows * cols);
    for (let k = 0; k < v.length; k++) v[k] = rnd() < 0.15 ? 0.5 : rnd() < 0.5 ? 0 : 1;
    addonCalls.push([`decodeGrid random ${rows}x${cols} #${i}`, () => addon.decodeGrid({ rows, cols, values: v }, { erasureMargin: rnd() })]);
  }
  for (const [name, call] of addonCalls) {
    const t0 = performance.now();
    try {
      const r = call();
      out({ name, api: 'addon', ok: r !== null, error: null, ms: performance.now() - t0 });
    } catch (e) {
      out({ name, api: 'addon', threw: String((e as Error)?.message ?? e), ms: performance.now() - t0 });
    }
  }
  await engine.close();
  fs.rmSync(tmp, { recursive: true, force: true });
}

if (process.env.DC_QA_ENGINE_CHILD === '1') {
  child().then(() => process.exit(0), (e) => { process.stderr.write(`child failed: ${(e as Error).stack}\n`); process.exit(3); });
}

// ---------------------------------------------------------------- parent side (mocha)

if (typeof describe === 'function' && process.env.DC_QA_ENGINE_CHILD !== '1') {
  describe('robustness: the engine on hostile input (child process)', function () {
    this.timeout(120_000);
    let reports: Report[] = [];
    let exit: { code: number | null; signal: string | null; stderr: string };

    before(async () => {
      const child = spawn(process.execPath, [__filename], {
        env: { ...process.env, DC_QA_ENGINE_CHILD: '1', DOTCODE_ENGINE_WORKERS: '2' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '', stderr = '';
      child.stdout.on('data', (c) => { stdout += c; });
      child.stderr.on('data', (c) => { stderr += c; });
      // a hang is a failure too: kill the child well inside mocha's timeout
      const killer = setTimeout(() => child.kill('SIGKILL'), 100_000);
      exit = await new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stderr })));
      clearTimeout(killer);
      reports = stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Report);
    });

    it('the child process ran every input to the end (no crash, no hang)', () => {
      assert.equal(exit.signal, null, `child killed by ${exit.signal} after ${reports.length} inputs; last: ${JSON.stringify(reports.at(-1))}\n${exit.stderr}`);
      assert.equal(exit.code, 0, `child exited ${exit.code} after ${reports.length} inputs; last: ${JSON.stringify(reports.at(-1))}\n${exit.stderr}`);
      assert.ok(reports.length > 400, `only ${reports.length} answers`);
    });

    it('decode/decodeSync/decodeAll never throw and every failure is a SPEC 7.2 error', () => {
      const bad = reports.filter((r) => r.api !== 'addon').filter((r) => r.threw !== undefined || (!r.ok && !SPEC_ERROR.test(String(r.error))));
      assert.deepEqual(bad, [], 'inputs that threw or gave a non-SPEC error');
    });

    it('bad input is never reported as a read, and decode/decodeSync keep the SPEC 2.1 members', () => {
      const junk = reports.filter((r) => r.api !== 'addon' && !/^(png|raw|jpeg|webp) /.test(r.name) && !r.name.startsWith('options') && r.ok);
      assert.deepEqual(junk, []);
      const shapes = new Set(reports.filter((r) => r.api === 'decode' || r.api === 'decodeSync').map((r) => r.keys));
      assert.deepEqual([...shapes].filter((s) => s !== undefined), ['ok,text,format,via,elapsed_ms,error,gs1']);
    });

    it('unknown options give decode_error, not a throw and not a silent default', () => {
      const opt = reports.filter((r) => r.name.startsWith('options {"format":"EAN13"}') || r.name.startsWith('options {"gs1"'));
      assert.equal(opt.length, 4);
      for (const r of opt) assert.match(String(r.error), /^decode_error:unknown_(format|gs1)_option$/);
    });

    it('pixel bombs are refused as decode_error:image_too_large without decoding', () => {
      const bombs = reports.filter((r) => /declaring (100000x100000|4294967295x4294967295|65535x65535|16384x16384|16777216x16777216|7000x7000|8000x8000)/.test(r.name));
      assert.ok(bombs.length >= 21);
      for (const r of bombs) assert.equal(r.error, 'decode_error:image_too_large', `${r.name} via ${r.api}: ${r.error}`);
      for (const r of bombs) assert.ok(r.ms < 500, `${r.name}: ${r.ms.toFixed(0)} ms`);
    });

    it(`CPU time per image stays bounded (< ${MAX_CPU_MS_PER_IMAGE} ms, 1920x1080 patterns included)`, () => {
      const timed = reports.filter((r) => r.cpu !== undefined);
      assert.ok(timed.some((r) => /1920x1080/.test(r.name)));
      const slow = timed.filter((r) => r.cpu! > MAX_CPU_MS_PER_IMAGE).map((r) => `${r.name} ${r.api} ${r.cpu!.toFixed(0)} ms CPU`);
      assert.deepEqual(slow, []);
    });

    it('the addon rejects bad arguments with a JS error (never a crash) and odd options still return', () => {
      const a = reports.filter((r) => r.api === 'addon');
      assert.ok(a.length > 300);
      const mustThrow = ['readImageSync no args', 'readImageSync width too big', 'readImageSync negative', 'readImageSync NaN',
        'readImageSync float array', 'decodeGrid no args', 'decodeGrid values throw'];
      for (const n of mustThrow) assert.ok(a.find((r) => r.name === n)?.threw, `${n} should throw a JS error`);
      for (const n of ['readImageSync options odd', 'readImageSync budget Infinity', 'readImageSync budget 1e300', 'readImageSync 1x1', 'readImageSync 1x4096', 'decodeGrid NaN values']) {
        const r = a.find((x) => x.name === n)!;
        assert.equal(r.threw, undefined, `${n}: ${r.threw}`);
      }
      const slow = a.filter((r) => r.ms > 1500).map((r) => `${r.name} ${r.ms.toFixed(0)} ms`);
      assert.deepEqual(slow, []);
    });
  });

  describe('robustness: addon argument range checks (in process: these inputs do not crash)', function () {
    // Finding F2 (fixed in native/addon/addon.cpp parseImageArgs): width/height went through
    // Int32Value (2^32+640 wrapped to 640 and was accepted), and a timeBudgetMs of Infinity or
    // >= ~9.2e12 overflowed the detector's int64 microsecond deadline.
    it('F2: out-of-range width is a RangeError; a huge or infinite time budget still reads the symbol', async () => {
      /* eslint-disable @typescript-eslint/no-var-requires */
      const sharp = require('sharp') as typeof import('sharp');
      const { loadAddon } = require('../../lib/engine/addon') as typeof import('../../lib/engine/addon');
      const addon = loadAddon();
      const ex = path.resolve(__dirname, '..', '..', '..', 'examples', 'dotcode.png');
      const { data, info } = await sharp(ex).greyscale().raw().toBuffer({ resolveWithObject: true });
      const grey = new Uint8Array(data);
      assert.equal(addon.readImageSync(grey, info.width, info.height).length, 1, 'the sample must read with defaults');
      assert.throws(() => addon.readImageSync(grey, info.width + 2 ** 32, info.height), RangeError);
      for (const timeBudgetMs of [Infinity, 1e13, 1e300]) {
        assert.equal(addon.readImageSync(grey, info.width, info.height, { timeBudgetMs }).length, 1, `timeBudgetMs ${timeBudgetMs}`);
      }
    });
  });
}

// The engine's choice of DotCode reader (lib/engine/backend.ts), through the public engine in
// child processes so each starts with its own environment:
//  - no native addon loadable (node-gyp-build pointed at an empty folder, as on an OS or CPU
//    without a prebuilt binary): the WebAssembly reader answers, the same results as native for
//    decode, decodeSync, decodeAll and inspect, good and bad input alike, and one log line says so;
//  - DOTCODE_ENGINE=wasm forces it while the addon is there; DOTCODE_ENGINE=native never falls back.
// Plus the wasm reader's recovery from a trap: the next call works on a fresh instance.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { dotcodeWasmPath, wasmReader } from '../../lib/engine/wasm-node';

const ROOT = path.resolve(__dirname, '../../..');
const LOG_LINE = /using the WebAssembly reader/;

/** Run in the child: every engine entry point on examples and on inputs that must fail. */
const SCRIPT = `
const path = require('path');
const fs = require('fs');
const engine = require(${JSON.stringify(path.join(ROOT, 'dist/lib/engine'))});
const { engineKind } = require(${JSON.stringify(path.join(ROOT, 'dist/lib/engine/backend'))});
const ex = (f) => path.join(${JSON.stringify(path.join(ROOT, 'examples'))}, f);
const strip = (r) => JSON.parse(JSON.stringify(r, (k, v) => (k === 'elapsed_ms' ? 0 : v)));
(async () => {
  const out = {};
  const png = fs.readFileSync(ex('gs1-dotcode.png'));
  const inputs = {
    dotcode: ex('dotcode.png'), gs1: png, qr: ex('qrcode.png'), pdf417: ex('pdf417.png'),
    truncated: png.subarray(0, 100), random: Buffer.from(Array.from({ length: 500 }, (_, i) => (i * 7919) % 251)),
    empty: Buffer.alloc(0), missing: ex('nope.png'),
    frame: { data: new Uint8Array(64 * 48).fill(200), width: 64, height: 48, channels: 1 },
    badFrame: { data: new Uint8Array(10), width: 64, height: 48, channels: 1 },
  };
  for (const [name, input] of Object.entries(inputs)) {
    out[name] = {
      decode: strip(await engine.decode(input)),
      dotcodeOnly: strip(await engine.decode(input, { format: 'DotCode' })),
      sync: strip(engine.decodeSync(input, { format: 'DotCode' })),
      all: strip(await engine.decodeAll(input)),
    };
  }
  out.inspect = [];
  for (const f of ['dotcode.png', 'qrcode.png']) out.inspect.push(strip(await engine.inspect(ex(f))));
  out.kind = engineKind();
  await engine.close();
  process.stdout.write(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
`;

function runChild(env: Record<string, string>): { out: Record<string, unknown>; stderr: string } {
  const r = spawnSync(process.execPath, ['-e', SCRIPT], {
    encoding: 'utf8', timeout: 120000,
    env: { ...process.env, DOTCODE_ENGINE: '', DOTCODE_SDK_PREBUILD: '', ...env },
  });
  assert.equal(r.status, 0, `child failed: ${r.stderr}`);
  return { out: JSON.parse(r.stdout), stderr: r.stderr };
}

describe('engine: native addon or WebAssembly reader (DOTCODE_ENGINE)', function () {
  this.timeout(240000);
  let native: { out: Record<string, unknown>; stderr: string };
  let empty: string;

  before(function () {
    if (!fs.existsSync(dotcodeWasmPath())) {
      console.log(`      (skipped: ${dotcodeWasmPath()} is not built; it needs emscripten)`);
      this.skip();
    }
    empty = fs.mkdtempSync(path.join(os.tmpdir(), 'dc-no-addon-'));
    native = runChild({});
  });
  after(() => { if (empty) fs.rmSync(empty, { recursive: true, force: true }); });

  it('with the addon present, the native reader answers and nothing is logged about WebAssembly', () => {
    assert.equal(native.out.kind, 'native');
    assert.doesNotMatch(native.stderr, LOG_LINE);
    assert.equal((native.out.dotcode as { decode: { text: string } }).decode.text, 'Hello from DotCode Reader');
  });

  it('without a loadable addon the engine falls back to WebAssembly, says so once, and answers exactly as native', () => {
    // node-gyp-build looks in DOTCODE_SDK_PREBUILD instead of the package: an empty folder is a
    // platform with no binary.
    const wasm = runChild({ DOTCODE_SDK_PREBUILD: empty });
    assert.equal(wasm.out.kind, 'wasm');
    assert.equal(wasm.stderr.split('\n').filter((l) => LOG_LINE.test(l)).length, 1, `stderr: ${wasm.stderr}`);
    assert.match(wasm.stderr, new RegExp(`no native DotCode addon for ${process.platform}-${process.arch}`));
    const { kind: _k1, ...a } = wasm.out;
    const { kind: _k2, ...b } = native.out;
    assert.deepStrictEqual(a, b);
  });

  it('DOTCODE_ENGINE=wasm uses the WebAssembly reader even where the addon loads', () => {
    const forced = runChild({ DOTCODE_ENGINE: 'wasm' });
    assert.equal(forced.out.kind, 'wasm');
    const { kind: _k1, ...a } = forced.out;
    const { kind: _k2, ...b } = native.out;
    assert.deepStrictEqual(a, b);
  });

  it('DOTCODE_ENGINE=native never falls back: a DotCode-only decode reports the native error', () => {
    const r = spawnSync(process.execPath, ['-e', `
      const engine = require(${JSON.stringify(path.join(ROOT, 'dist/lib/engine'))});
      engine.decode(${JSON.stringify(path.join(ROOT, 'examples/dotcode.png'))}, { format: 'DotCode' })
        .then((r) => { console.log(JSON.stringify(r)); return engine.close(); });`],
    { encoding: 'utf8', env: { ...process.env, DOTCODE_ENGINE: 'native', DOTCODE_SDK_PREBUILD: empty } });
    const res = JSON.parse(r.stdout.trim().split('\n').pop()!);
    assert.equal(res.ok, false);
    assert.match(res.error, /^decode_error:native:/);
    assert.doesNotMatch(r.stderr, LOG_LINE);
  });

  it('a trap in the WebAssembly reader is a decode_error:native error, and the next call runs on a fresh instance', () => {
    const reader = wasmReader() as unknown as { call(fn: () => unknown): unknown; readImageSync(...a: unknown[]): unknown[] };
    assert.throws(() => reader.call(() => { throw new Error('unreachable'); }), /^Error: decode_error:native:unreachable$/);
    const grey = new Uint8Array(32 * 32).fill(255);
    assert.deepStrictEqual(reader.readImageSync(grey, 32, 32), []);
  });
});

// The SDK tarball: built by tools/pack-sdk.js (npm pack of a staging copy), installed offline
// into an empty folder, and used there without compiling anything.
import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { gs1DataMatrixPng, makeKey, supplier, tmpDir } from './helpers';
import { packClosure } from './offline-deps';

const ROOT = path.resolve(__dirname, '../../..');
// eslint-disable-next-line @typescript-eslint/no-var-requires
const { packSdk } = require(path.join(ROOT, 'tools/pack-sdk.js')) as { packSdk(o: Record<string, unknown>): string };
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

describe('SDK tarball', function () {
  this.timeout(120000);
  let dir: string;
  let tgz: string;
  before(() => { dir = tmpDir('dc-pack-'); });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('npm pack gives dotcode-sdk-<version>.tgz with the library, types and addon, and no server', () => {
    // 'auto' rebuilds the prebuilt addon (prebuildify, ~30 s) only when the native sources are
    // newer than it, so the tarball never ships a stale DotCode reader.
    tgz = packSdk({ outDir: path.join(dir, 'out'), prebuild: 'auto', stampPublicKeyPem: supplier.publicKeyPem, quiet: true });
    assert.equal(path.basename(tgz), `dotcode-sdk-${pkg.version}.tgz`);
    const list = execFileSync('tar', ['-tzf', tgz], { encoding: 'utf8' }).split('\n').filter(Boolean);
    for (const f of ['package/dist/lib/index.js', 'package/dist/lib/index.d.ts', 'package/dist/lib/scanner.d.ts', 'package/supplier.json', 'package/package.json']) {
      assert.ok(list.includes(f), `missing ${f}`);
    }
    assert.ok(list.some((f) => /^package\/prebuilds\/linux-x64\/[^/]+\.node$/.test(f)));
    assert.ok(list.some((f) => /^package\/prebuilds\/linux-arm64\/[^/]+\.node$/.test(f)), 'the linux-arm64 addon ships');
    assert.ok(list.includes('package/dist/lib/wasm/dotcode_reader.wasm'), 'the WebAssembly reader ships');
    const arm64 = list.find((f) => /^package\/prebuilds\/linux-arm64\/[^/]+\.node$/.test(f))!;
    const elf = execFileSync('tar', ['-xzOf', tgz, arm64]).subarray(0, 20);
    assert.equal(elf.readUInt16LE(18), 183, 'the linux-arm64 addon is an AArch64 ELF (e_machine 183)');
    assert.deepEqual(list.filter((f) => /server|\/test\/|\/bench\//.test(f)), []);
    const shipped = JSON.parse(execFileSync('tar', ['-xzOf', tgz, 'package/package.json'], { encoding: 'utf8' }));
    const serverDeps = Object.keys(JSON.parse(fs.readFileSync(path.join(ROOT, 'server/package.json'), 'utf8')).dependencies);
    assert.deepEqual(Object.keys(shipped.dependencies).filter((d) => serverDeps.includes(d)), []);
    assert.equal(shipped.workspaces, undefined);
    assert.equal(shipped.devDependencies, undefined);
  });

  it('a plain `npm pack` in the checkout lists the same kind of content, and never the dev stamp', () => {
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', '--loglevel=error'], { cwd: ROOT, encoding: 'utf8' });
    const [info] = JSON.parse(out) as { filename: string; files: { path: string }[] }[];
    assert.equal(info.filename, `dotcode-sdk-${pkg.version}.tgz`);
    const files = info.files.map((f) => f.path);
    assert.ok(files.includes('dist/lib/index.d.ts'));
    assert.ok(files.some((f) => /^prebuilds\/linux-x64\/[^/]+\.node$/.test(f)));
    assert.ok(files.some((f) => /^prebuilds\/linux-arm64\/[^/]+\.node$/.test(f)));
    assert.ok(files.includes('dist/lib/wasm/dotcode_reader.wasm'));
    assert.equal(files.includes('supplier.json'), false, 'the checkout\'s test stamp must not ship');
    assert.deepEqual(files.filter((f) => /^(server|dist\/server|dist\/test|dist\/bench|test)\//.test(f)), []);
  });

  it('installs offline into an empty folder with no compiler on PATH and decodes there without compiling', async () => {
    assert.ok(tgz, 'the pack test ran first');
    const app = path.join(dir, 'app');
    fs.mkdirSync(app);
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
    // Offline for real, on any machine: the dependencies come as tarballs made from this
    // checkout's node_modules, and npm gets an empty cache of its own (a warm ~/.npm must not be
    // what makes this pass; see offline-deps.ts).
    const deps = packClosure(ROOT, path.join(dir, 'deps'));
    const cache = path.join(dir, 'npm-cache');
    // No compiler, make or python on PATH: only node, npm and a shell (what npm runs scripts with).
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    for (const [name, target] of [['node', process.execPath], ['npm', execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim()], ['sh', '/bin/sh']]) {
      fs.symlinkSync(fs.realpathSync(target), path.join(bin, name));
    }
    const bare = { ...process.env, PATH: bin, npm_config_cache: cache };
    assert.throws(() => execFileSync('sh', ['-c', 'command -v g++ || command -v cc || command -v make'], { env: bare, stdio: 'pipe' }));
    execFileSync(path.join(bin, 'npm'), ['install', tgz, ...deps, '--offline', '--no-audit', '--no-fund', '--loglevel=error'],
      { cwd: app, stdio: 'pipe', env: bare });
    const installed = path.join(app, 'node_modules/dotcode-sdk');
    assert.equal(fs.existsSync(path.join(installed, 'build')), false, 'nothing was compiled');
    fs.writeFileSync(path.join(app, 'gs1.png'), await gs1DataMatrixPng());
    const script = `
      const { Scanner, version } = require('dotcode-sdk');
      (async () => {
        const s = new Scanner(process.env.DOTCODE_LICENSE_KEY, { telemetry: false });
        const qr = await s.decode(${JSON.stringify(path.join(ROOT, 'examples/qrcode.png'))});
        const gs1 = s.decodeSync('gs1.png');
        const dot = await s.decode(${JSON.stringify(path.join(ROOT, 'examples/gs1-dotcode.png'))});
        await s.close();
        const addon = require('node-gyp-build').resolve(require('node:path').dirname(require.resolve('dotcode-sdk/package.json')));
        console.log(JSON.stringify({ version, qr: qr.text, expiry: gs1.field('17'), dot: [dot.format, dot.field('10')], addon }));
      })();`;
    const out = execFileSync(process.execPath, ['-e', script], { cwd: app, encoding: 'utf8', env: { ...process.env, DOTCODE_LICENSE_KEY: makeKey() } });
    const r = JSON.parse(out.trim().split('\n').pop()!);
    assert.equal(`dotcode-sdk-${r.version}.tgz`, path.basename(tgz));
    assert.equal(r.qr, 'https://example.com/dotcode-reader');
    assert.equal(r.expiry, '261231');
    assert.deepEqual(r.dot, ['DotCode', 'ABC123'], 'the prebuilt addon reads DotCode');
    assert.match(r.addon, new RegExp(`node_modules/dotcode-sdk/prebuilds/linux-${process.arch}/.*\\.node$`));

    // Where no addon loads (another OS or CPU: node-gyp-build pointed at an empty folder), the
    // installed package reads with its own WebAssembly build, and says so once.
    const empty = path.join(dir, 'no-addon');
    fs.mkdirSync(empty);
    const wasm = spawnSync(process.execPath, ['-e', `
      const { decode, close } = require('dotcode-sdk/engine');
      decode(${JSON.stringify(path.join(ROOT, 'examples/gs1-dotcode.png'))}).then((d) => { console.log(JSON.stringify([d.format, d.via, d.text])); return close(); });`],
    { cwd: app, encoding: 'utf8', env: { ...process.env, DOTCODE_SDK_PREBUILD: empty, DOTCODE_ENGINE: '' } });
    assert.equal(wasm.status, 0, wasm.stderr);
    const [format, via, text] = JSON.parse(wasm.stdout.trim().split('\n').pop()!);
    assert.equal(format, 'DotCode');
    assert.match(via, /^dotcode:/);
    assert.match(text, /ABC123/);
    assert.equal(wasm.stderr.match(/using the WebAssembly reader/g)?.length, 1, wasm.stderr);
  });
});

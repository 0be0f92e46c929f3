// The SDK tarball: built by tools/pack-sdk.js (npm pack of a staging copy), installed offline
// into an empty folder, and used there without compiling anything.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
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
    assert.equal(files.includes('supplier.json'), false, 'the checkout\'s test stamp must not ship');
    assert.deepEqual(files.filter((f) => /^(server|dist\/server|dist\/test|dist\/bench|test)\//.test(f)), []);
  });

  it('installs offline into an empty folder and decodes there without compiling', async () => {
    assert.ok(tgz, 'the pack test ran first');
    const app = path.join(dir, 'app');
    fs.mkdirSync(app);
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
    // Offline for real, on any machine: the dependencies come as tarballs made from this
    // checkout's node_modules, and npm gets an empty cache of its own (a warm ~/.npm must not be
    // what makes this pass; see offline-deps.ts).
    const deps = packClosure(ROOT, path.join(dir, 'deps'));
    const cache = path.join(dir, 'npm-cache');
    execFileSync('npm', ['install', tgz, ...deps, '--offline', '--no-audit', '--no-fund', '--loglevel=error'],
      { cwd: app, stdio: 'pipe', env: { ...process.env, npm_config_cache: cache } });
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
    assert.match(r.addon, /node_modules\/dotcode-sdk\/prebuilds\/linux-x64\/.*\.node$/);
  });
});

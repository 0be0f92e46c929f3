// Builds the SDK tarball that /v1/sdk/download serves: `npm pack` of the SDK package folder, then
// a copy with this server's supplier.json (public key + URL) written into it, so the downloaded
// SDK trusts exactly the keys this server issues. Built once per (version, key, URL) and cached
// in the data folder; concurrent first requests share one build.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { writeStamp } from '../../lib/license';

const run = promisify(execFile);
const building = new Map<string, Promise<string>>();

export interface SdkTarball { file: string; filename: string; version: string }

export async function stampedSdkTarball(pkgDir: string, cacheDir: string, publicKeyPem: string, url: string): Promise<SdkTarball> {
  const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as { name: string; version: string };
  const filename = `${pkg.name}-${pkg.version}.tgz`;
  // a rebuilt SDK of the same version (new dist/) must not be served from a stale cache entry
  let built = 0;
  try { built = fs.statSync(path.join(pkgDir, 'dist', 'lib', 'index.js')).mtimeMs; } catch { /* not built: npm pack decides */ }
  const tag = createHash('sha256').update(`${pkg.version}\n${built}\n${publicKeyPem}\n${url}`).digest('hex').slice(0, 16);
  const file = path.join(cacheDir, `${pkg.name}-${pkg.version}-${tag}.tgz`);
  if (fs.existsSync(file)) return { file, filename, version: pkg.version };
  let p = building.get(file);
  if (!p) {
    p = build(pkgDir, file, publicKeyPem, url).finally(() => building.delete(file));
    building.set(file, p);
  }
  await p;
  return { file, filename, version: pkg.version };
}

async function build(pkgDir: string, out: string, publicKeyPem: string, url: string): Promise<string> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dc-sdk-pack-'));
  try {
    // --ignore-scripts: the server packs what is built; it never runs a compile on a request
    const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', tmp],
      { cwd: pkgDir, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, npm_config_loglevel: 'error' } });
    const packed = (JSON.parse(stdout) as { filename: string }[])[0].filename;
    const unpacked = path.join(tmp, 'x');
    fs.mkdirSync(unpacked);
    await run('tar', ['xzf', path.join(tmp, path.basename(packed)), '-C', unpacked]);
    writeStamp(path.join(unpacked, 'package'), publicKeyPem, url, { replace: true });
    fs.mkdirSync(path.dirname(out), { recursive: true });
    const partial = `${out}.${process.pid}.partial`;
    await run('tar', ['czf', partial, '-C', unpacked, 'package']);
    fs.renameSync(partial, out);
    return out;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

// Builds the SDK tarball that /v1/sdk/download serves with tools/pack-sdk.js, stamped with this
// server's supplier.json (public key + URL), so the downloaded SDK trusts exactly the keys this
// server issues. Built once per (version, key, URL) and cached
// in the data folder; concurrent first requests share one build. The cache keeps at most
// `keep` tarballs (the newest): a new SDK build or a new key never lets it grow without bound.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const building = new Map<string, Promise<string>>();

export interface SdkTarball { file: string; filename: string; version: string }

export async function stampedSdkTarball(pkgDir: string, cacheDir: string, publicKeyPem: string, url: string, keep = 4): Promise<SdkTarball> {
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
    p = build(pkgDir, file, publicKeyPem, url).then((f) => { prune(cacheDir, keep, f); return f; }).finally(() => building.delete(file));
    building.set(file, p);
  }
  await p;
  return { file, filename, version: pkg.version };
}

/** Deletes all but the `keep` newest tarballs of the cache (never `current`, just built). */
function prune(cacheDir: string, keep: number, current: string): void {
  let entries: { file: string; mtime: number }[];
  try {
    entries = fs.readdirSync(cacheDir).filter((f) => f.endsWith('.tgz')).map((f) => {
      const file = path.join(cacheDir, f);
      return { file, mtime: fs.statSync(file).mtimeMs };
    });
  } catch { return; }
  entries.sort((a, b) => b.mtime - a.mtime);
  for (const e of entries.slice(Math.max(1, keep))) {
    if (e.file !== current) fs.rmSync(e.file, { force: true });
  }
}

async function build(pkgDir: string, out: string, publicKeyPem: string, url: string): Promise<string> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dc-sdk-pack-'));
  try {
    // The one packing path (tools/pack-sdk.js, also what `npm pack`-free releases use): a staged
    // consumer-only package.json, the prebuilt addon (rebuilt only when missing or older than the
    // native sources), stamped with this server's key. It is synchronous, so it runs in a child
    // process: the server's event loop keeps answering while a first download is packed.
    const script = 'const o = JSON.parse(process.env.DC_PACK_OPTS); process.stdout.write(require(o.tool).packSdk(o.opts));';
    const opts = { outDir: tmp, prebuild: 'auto', stampPublicKeyPem: publicKeyPem, url, quiet: true };
    const { stdout } = await run(process.execPath, ['-e', script], {
      cwd: pkgDir, maxBuffer: 16 * 1024 * 1024,
      env: { ...process.env, DC_PACK_OPTS: JSON.stringify({ tool: path.join(pkgDir, 'tools', 'pack-sdk.js'), opts }) },
    });
    fs.mkdirSync(path.dirname(out), { recursive: true });
    const partial = `${out}.${process.pid}.partial`;
    fs.copyFileSync(stdout.trim(), partial);
    fs.renameSync(partial, out);
    return out;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

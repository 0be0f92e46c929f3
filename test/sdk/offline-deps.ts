// The SDK tarball's runtime dependencies as local tarballs, made from the checkout's own
// node_modules, so the offline install test needs no registry and no npm cache (issue 16, item
// 7). `npm install x.tgz --offline` would otherwise ask the npm cache for the registry metadata of
// each dependency; `npm ci` caches tarballs but no metadata, so a fresh machine failed with
// ENOTCACHED while a machine with a warm cache passed.
//
// The closure is walked as Node resolves modules (nearest node_modules upward). Optional
// dependencies are taken when installed (sharp's binary for this platform); the others (sharp's
// binaries for other platforms) are absent and npm skips them as optional.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

interface Manifest { name: string; version: string; dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> }

function findInstalled(name: string, fromDir: string): string | null {
  for (let d = fromDir; ; d = path.dirname(d)) {
    const dir = path.join(d, 'node_modules', name);
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(d) === d) return null;
  }
}

/** Folders of every package the SDK needs at run time, as installed in `root`'s node_modules. */
export function runtimeClosure(root: string): string[] {
  const seen = new Set<string>();
  const visit = (dir: string) => {
    if (seen.has(dir)) return;
    seen.add(dir);
    const m = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as Manifest;
    for (const [name, optional] of [...Object.keys(m.dependencies ?? {}).map((n) => [n, false] as const),
      ...Object.keys(m.optionalDependencies ?? {}).map((n) => [n, true] as const)]) {
      const found = findInstalled(name, dir);
      if (found) visit(found);
      else if (!optional) throw new Error(`${m.name} needs ${name}, which is not installed in ${root}: run npm ci`);
    }
  };
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as Manifest;
  for (const name of Object.keys(pkg.dependencies ?? {})) {
    const found = findInstalled(name, root);
    if (!found) throw new Error(`${name} is not installed in ${root}: run npm ci`);
    visit(found);
  }
  return [...seen];
}

/** Packs each package of the closure as `<outDir>/<name>.tgz` (npm's tarball layout: `package/`). */
export function packClosure(root: string, outDir: string): string[] {
  fs.mkdirSync(outDir, { recursive: true });
  return runtimeClosure(root).map((dir) => {
    const m = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as Manifest;
    const out = path.join(outDir, `${m.name.replace('/', '+')}-${m.version}.tgz`);
    // nested node_modules are packages of their own (already in the closure when needed)
    execFileSync('tar', ['-czf', out, '-C', dir, '--exclude=./node_modules', '--transform', 's,^\\.,package,', '.']);
    return out;
  });
}

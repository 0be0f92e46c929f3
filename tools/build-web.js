#!/usr/bin/env node
// Builds the browser pages (web/) into dist/web/: one self-contained HTML file per page, with the
// esbuild-bundled script and the CSS inlined, which the server sends for GET /scanner and
// GET /portal. Self-contained pages need no static-file route and cannot load a stale asset.
// Run by the root "build" script; `node tools/build-web.js --check` also type-checks web/.
'use strict';
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');

const root = path.join(__dirname, '..');
const webDir = path.join(root, 'web');
const outDir = path.join(root, 'dist', 'web');

let esbuild;
try {
  esbuild = require('esbuild');
} catch (err) {
  console.error('build-web: esbuild is not installed (it is a dev dependency of server/): run npm install');
  process.exit(1);
}

const PAGES = [
  { name: 'scanner', product: 'Live Scanner' },
  { name: 'portal', product: 'Customer portal' },
];

function read(rel) {
  return fs.readFileSync(path.join(webDir, rel), 'utf8');
}

function buildPage({ name, product }) {
  const result = esbuild.buildSync({
    entryPoints: [path.join(webDir, name, 'main.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    target: ['es2020', 'safari14'],
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  // Inline scripts end at the first "</script": escape it wherever esbuild left one in a string.
  const js = result.outputFiles[0].text.replace(/<\/script/gi, '<\\/script');
  const css = read('shared/base.css') + '\n' + read(`${name}/${name}.css`);
  const brand = read('shared/brand.html').trim().replace('{{PRODUCT}}', product);
  const html = read(`${name}/index.html`)
    .replace('{{BRAND}}', () => brand)
    .replace('/*{{CSS}}*/', () => css.replace(/<\/style/gi, '<\\/style'))
    .replace('/*{{JS}}*/', () => js);
  fs.mkdirSync(outDir, { recursive: true });
  const file = path.join(outDir, `${name}.html`);
  // Write then rename, so a server reading the page never sees half a file.
  fs.writeFileSync(file + '.tmp', html);
  fs.renameSync(file + '.tmp', file);
  return { file, bytes: Buffer.byteLength(html) };
}

if (process.argv.includes('--check')) {
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', path.join(webDir, 'tsconfig.json')], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

for (const page of PAGES) {
  try {
    const { file, bytes } = buildPage(page);
    if (!process.argv.includes('--quiet')) console.log(`build-web: ${path.relative(root, file)} (${(bytes / 1024).toFixed(1)} KiB)`);
  } catch (err) {
    console.error(`build-web: ${page.name}: ${err.message}`);
    process.exit(1);
  }
}

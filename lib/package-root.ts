// Where the dotcode-sdk package this code runs from lives: the repo root in a checkout,
// node_modules/dotcode-sdk once installed. The addon, the supplier stamp and package.json are
// found from here; every part asks this one function rather than counting `..` on its own.
import * as fs from 'node:fs';
import * as path from 'node:path';

let root: string | undefined;

/** The folder holding the dotcode-sdk package.json (found by walking up from this compiled file). */
export function packageRoot(): string {
  if (root) return root;
  let dir = __dirname;
  for (;;) {
    const pj = path.join(dir, 'package.json');
    try {
      if ((JSON.parse(fs.readFileSync(pj, 'utf8')) as { name?: string }).name === 'dotcode-sdk') {
        root = dir;
        return root;
      }
    } catch { /* not here; keep walking up */ }
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`cannot find the dotcode-sdk package.json above ${__dirname}`);
    dir = up;
  }
}

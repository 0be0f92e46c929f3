// The complete example of docs/sdk.md must keep compiling against the real API: it is extracted
// and type-checked with the TypeScript compiler against the compiled declarations (dist/lib/*.d.ts,
// what a user of the package sees); it needs a camera, so it is not run.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import { tmpDir } from './helpers';

const ROOT = path.resolve(__dirname, '../../..');

describe('docs/sdk.md', function () {
  this.timeout(60000);
  it('the complete example type-checks against the published declarations', () => {
    const md = fs.readFileSync(path.join(ROOT, 'docs/sdk.md'), 'utf8');
    const block = /## A complete example[\s\S]*?```ts\n([\s\S]*?)```/.exec(md);
    assert.ok(block, 'docs/sdk.md has a ```ts block under "A complete example"');
    const dir = tmpDir('dc-docs-');
    try {
      const file = path.join(dir, 'example.ts');
      fs.writeFileSync(file, block[1].replace(/from 'dotcode-sdk'/g, `from ${JSON.stringify(path.join(ROOT, 'dist/lib/index'))}`));
      const program = ts.createProgram([file], {
        strict: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, noEmit: true,
        esModuleInterop: true, skipLibCheck: true, types: ['node'], typeRoots: [path.join(ROOT, 'node_modules/@types')],
      });
      const diags = ts.getPreEmitDiagnostics(program).filter((d) => d.file?.fileName === file);
      assert.deepEqual(diags.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')), []);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

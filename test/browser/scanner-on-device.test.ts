// The Live Scanner reading on the device (web/scanner/local-reader.ts: our DotCode reader and
// zxing as WebAssembly): in Chromium with a fake camera, binary sends on the socket are dropped
// (the decode path over the network is blocked) and the page must still read DotCode and a QR
// Code, send no frame at all, hold its seat lease and report its reads to the server. How soon
// the first read comes on each path is a timing figure, measured by bench/scanner-first-read.ts
// (a timed assertion here failed whenever the browser was starved of CPU).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  findChromium, startTestServer, TestServer, renderSymbol, writeY4m, Browsers, FRAMES_BLOCKED_INSTRUMENT, firstRead,
} from './harness';
import * as engine from '../../lib/engine';
import { dotcodeWasmPath } from '../../lib/engine/wasm-node';

const chromiumPath = findChromium();
const QR_TEXT = 'DC-ON-DEVICE-0815';
const DOTCODE_TEXT = 'DotCode 2024';

/* eslint-disable @typescript-eslint/no-explicit-any */
declare const window: any;

describe('browser: Live Scanner reads on the device (WebAssembly)', function () {
  this.timeout(90000);
  let srv: TestServer;
  let tmp: string;
  const browsers = new Browsers(chromiumPath);
  const videos: Record<string, string> = {};

  before(async function () {
    if (!chromiumPath) {
      console.log('    NOTICE: no chromium found (/usr/bin/chromium): browser tests skipped.');
      this.skip();
    }
    if (!fs.existsSync(dotcodeWasmPath())) {
      console.log(`      (skipped: ${dotcodeWasmPath()} is not built; it needs emscripten)`);
      this.skip();
    }
    srv = await startTestServer();
    tmp = fs.mkdtempSync(path.join(srv.dir, 'video-'));
    videos.qr = path.join(tmp, 'qr.y4m');
    videos.dot = path.join(tmp, 'dot.y4m');
    await writeY4m(videos.qr, await renderSymbol('qrcode', QR_TEXT, 5));
    await writeY4m(videos.dot, await renderSymbol('dotcode', DOTCODE_TEXT, 6));
  });

  after(async () => {
    await browsers.closeAll();
    await srv?.close();
    await engine.close();
  });

  for (const [kind, format, text] of [['dot', 'DotCode', DOTCODE_TEXT], ['qr', 'QRCode', QR_TEXT]] as const) {
    it(`reads ${format} with frames to the server blocked, sends no frame, holds the lease and reports the read`, async () => {
      const b = await browsers.launch(videos[kind]);
      const { id, key } = await srv.license({ seats: 2, features: ['scanner'] });
      const local = await firstRead(srv, b, FRAMES_BLOCKED_INSTRUMENT, key, text);
      assert.equal(await local.page.textContent('#resultFormat'), format);
      assert.equal(await local.page.evaluate(() => window.__beeps), 1);
      // More frames read on the device meanwhile; not one went to the socket.
      await local.page.waitForTimeout(1000);
      assert.deepEqual(await local.page.evaluate(() => window.__frames.length), 0, 'no frame sent over the network');
      const machines = async () => (await srv.store.listMachines(id)).filter((m) => m.kind === 'scanner');
      assert.equal((await machines()).length, 1, 'the device holds a seat lease');
      await local.close(); // the server writes the reads it was told of when the socket closes
      let scans = 0;
      for (let i = 0; i < 50 && scans < 1; i++) {
        scans = Number((await machines())[0]?.scans ?? 0);
        if (scans < 1) await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(scans, 1, 'one code read, reported as one scan');
    });
  }

});

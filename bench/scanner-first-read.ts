// Live Scanner: time from Start to the first DotCode read in Chromium, reading on the device
// (our WebAssembly reader) against frames sent over the socket (WebAssembly removed from the
// page). A timing figure, so it lives here and not in the browser tests: on a starved browser
// either path can take twice as long.
//
//   node dist/bench/scanner-first-read.js [--rounds N]     (default 9; needs /usr/bin/chromium
//                                                           and the built WebAssembly reader)
//
// Each round opens a new page per path, alternating, in one browser playing a fake-camera video
// of a bwip-js DotCode; prints every time, the medians and the ratio device/socket.
import * as fs from 'node:fs';
import * as path from 'node:path';

import * as engine from '../lib/engine';
import { dotcodeWasmPath } from '../lib/engine/wasm-node';
import {
  Browsers, FRAMES_BLOCKED_INSTRUMENT, findChromium, firstRead, INSTRUMENT, renderSymbol, startTestServer, writeY4m,
} from '../test/browser/harness';
import { walkOptions } from './options';

const TEXT = 'DotCode 2024';
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  let rounds = 9;
  walkOptions(process.argv.slice(2), (flag, value) => {
    if (flag !== '--rounds') return false;
    rounds = Number(value());
    return true;
  });
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds needs a positive whole number');
  const chromiumPath = findChromium();
  if (!chromiumPath) throw new Error('no chromium found (apt-get install -y chromium, or set CHROMIUM_PATH)');
  if (!fs.existsSync(dotcodeWasmPath())) throw new Error(`${dotcodeWasmPath()} is not built (npm run build:wasm; needs emscripten)`);

  const srv = await startTestServer();
  const browsers = new Browsers(chromiumPath);
  try {
    const video = path.join(fs.mkdtempSync(path.join(srv.dir, 'video-')), 'dot.y4m');
    await writeY4m(video, await renderSymbol('dotcode', TEXT, 6));
    const b = await browsers.launch(video);
    const times = { socket: [] as number[], device: [] as number[] };
    for (let round = 0; round < rounds; round++) {
      for (const [way, instrument] of [['socket', INSTRUMENT], ['device', FRAMES_BLOCKED_INSTRUMENT]] as const) {
        const { key } = await srv.license({ seats: 2, features: ['scanner'] });
        const r = await firstRead(srv, b, instrument, key, TEXT);
        times[way].push(r.ms);
        await r.close();
      }
      if (process.stderr.isTTY) process.stderr.write(`\rround ${round + 1}/${rounds}`);
    }
    if (process.stderr.isTTY) process.stderr.write('\n');
    const socket = median(times.socket);
    const device = median(times.device);
    console.log(`first DotCode read after Start, median of ${rounds}: on the device ${device} ms, over the socket ${socket} ms, ratio ${(device / socket).toFixed(2)}`);
    console.log(`  device: ${times.device.join(' ')}`);
    console.log(`  socket: ${times.socket.join(' ')}`);
  } finally {
    await browsers.closeAll();
    await srv.close();
    await engine.close();
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});

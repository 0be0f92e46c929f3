// Browser test harness: a real server (Koa app with the real SQLite store, the real engine and
// the real licence signing) on a free port, fake-camera videos written as .y4m files from
// rendered symbols, and Debian's chromium driven by playwright-core.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import sharp from 'sharp';
import { chromium, Browser, Page } from 'playwright-core';
import { startServer, RunningServer } from '../../server/src/server';
import { createCustomer, initKeys, issueLicense } from '../../server/src/admin';
import type { Store } from '../../server/src/store/types';
import type { LicenseFeature } from '../../lib/license';
import * as engine from '../../lib/engine';

// bwip-js has no type declarations in this repo; only toBuffer is used.
// eslint-disable-next-line @typescript-eslint/no-var-requires
const bwipjs = require('bwip-js') as { toBuffer(o: Record<string, unknown>): Promise<Buffer> };

export const CHROMIUM_CANDIDATES = [process.env.CHROMIUM_PATH ?? '', '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(Boolean);

export function findChromium(): string | null {
  return CHROMIUM_CANDIDATES.find((p) => fs.existsSync(p)) ?? null;
}

// ---------------------------------------------------------------------------------------------
// Fake camera videos

/** Renders a symbol with bwip-js (an encoder independent of our decoder) as a PNG. */
export function renderSymbol(bcid: string, text: string, scale = 4): Promise<Buffer> {
  return bwipjs.toBuffer({ bcid, text, scale, paddingwidth: 4, paddingheight: 4, backgroundcolor: 'FFFFFF' });
}

/**
 * Writes a .y4m video (the format chromium's --use-file-for-fake-video-capture reads): the PNG
 * centred on a white 640x480 label, as 4:2:0 planes. Chromium loops the file, so the symbol
 * stays "in view" for as long as the test wants.
 */
export async function writeY4m(file: string, png: Buffer, width = 640, height = 480, frames = 2): Promise<void> {
  const meta = await sharp(png).metadata();
  const maxSide = Math.min(width, height) * 0.55; // about what a hand-held scan fills
  const scale = Math.min(1, maxSide / Math.max(meta.width ?? 1, meta.height ?? 1));
  const sw = Math.round((meta.width ?? 1) * scale), sh = Math.round((meta.height ?? 1) * scale);
  const symbol = await sharp(png).resize(sw, sh, { kernel: 'nearest' }).flatten({ background: '#ffffff' }).greyscale().raw().toBuffer();
  const y = Buffer.alloc(width * height, 235); // white paper (studio-range luma)
  const ox = Math.floor((width - sw) / 2), oy = Math.floor((height - sh) / 2);
  for (let r = 0; r < sh; r++) {
    for (let c = 0; c < sw; c++) {
      // full range grey -> studio-range luma 16..235
      y[(oy + r) * width + ox + c] = 16 + Math.round((symbol[r * sw + c] * 219) / 255);
    }
  }
  const chroma = Buffer.alloc((width / 2) * (height / 2) * 2, 128);
  const parts: Buffer[] = [Buffer.from(`YUV4MPEG2 W${width} H${height} F10:1 Ip A1:1 C420jpeg\n`, 'ascii')];
  for (let i = 0; i < frames; i++) parts.push(Buffer.from('FRAME\n', 'ascii'), y, chroma);
  fs.writeFileSync(file, Buffer.concat(parts));
}

/** What the engine reads from the same PNG (to tell a detector gap from a page bug). */
export async function engineReads(png: Buffer, format?: engine.Format): Promise<engine.DecodeResult> {
  return engine.decode(png, format ? { format } : {});
}

// ---------------------------------------------------------------------------------------------
// Server: the product's own startServer (every route module, SQLite store in a temp data folder)
// and the admin functions behind `dotcode admin` for the supplier key, customers and licences.

export interface TestServer {
  url: string;
  dir: string;
  store: Store;
  running: RunningServer;
  license(o: { seats: number; features: LicenseFeature[]; org?: string; plan?: string; expDays?: number }): Promise<{ id: string; key: string }>;
  apiCustomer(o: { name: string; plan: string; quota: number; signup: string }): Promise<{ id: string; apiKey: string }>;
  close(): Promise<void>;
}

function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export async function startTestServer(): Promise<TestServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dotcode-browser-'));
  initKeys(dir);
  const running = await startServer({ port: 0, host: '127.0.0.1', dataDir: dir, logFile: path.join(dir, 'server.log') });
  const store = running.deps.store;
  return {
    // "localhost" (not 127.0.0.1) is a secure context, so the page may open the camera over http.
    url: `http://localhost:${running.port}`,
    dir,
    store,
    running,
    async license(o) {
      // A term of 365 days ending `expDays` from today (negative: already ended).
      const days = 365;
      const issued = isoDay(Date.now() + ((o.expDays ?? days) - days) * 86400_000);
      const r = await issueLicense(store, dir, {
        org: o.org ?? 'Acme Logistics', plan: o.plan ?? 'scanner-pro', seats: o.seats, features: o.features, issued, days,
      });
      return { id: r.license_id, key: r.license_key };
    },
    async apiCustomer(o) {
      const r = await createCustomer(store, o);
      return { id: r.customer_id, apiKey: r.api_key };
    },
    async close() {
      await running.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Browser

export const INSECURE_HOST = 'scanner.insecure.test';

export async function launchWithVideo(executablePath: string, y4m: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run',
      '--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream',
      `--use-file-for-fake-video-capture=${y4m}`,
      '--autoplay-policy=no-user-gesture-required',
      // A name that is not localhost: a page served from it over http is not a secure context.
      `--host-resolver-rules=MAP ${INSECURE_HOST} 127.0.0.1`,
    ],
  });
}

/** The browsers a suite launched, each with its fake-camera video; closeAll() in its after hook. */
export class Browsers {
  private readonly open: Browser[] = [];

  constructor(private readonly executablePath: string | null) {}

  async launch(y4m: string): Promise<Browser> {
    const b = await launchWithVideo(this.executablePath as string, y4m);
    this.open.push(b);
    return b;
  }

  async closeAll(): Promise<void> {
    for (const b of this.open) await b.close().catch(() => undefined);
  }
}

/* eslint-disable @typescript-eslint/no-explicit-any */
declare const document: any;

/**
 * Opens the scanner page in a new context of `b` with `instrument`, enters the licence key and
 * waits until `text` is shown as the read; `ms` is the time from Start (the key's submit) to that
 * read. The caller closes the context with close().
 */
export async function firstRead(
  srv: TestServer, b: Browser, instrument: string, key: string, text: string,
): Promise<{ page: Page; ms: number; close(): Promise<void> }> {
  const ctx = await b.newContext();
  const page = await ctx.newPage();
  await page.addInitScript(instrument);
  await page.goto(`${srv.url}/scanner`);
  await page.locator('#keyCard').waitFor({ state: 'visible' });
  await page.fill('#keyInput', key);
  const t0 = Date.now();
  await page.click('#keySubmit');
  await page.waitForFunction((t) => document.getElementById('rawText')?.textContent === t, text, { timeout: 30000, polling: 10 });
  return { page, ms: Date.now() - t0, close: () => ctx.close() };
}

/**
 * Instruments the page before its script runs: counts WebAudio oscillator starts (the beep) and
 * navigator.vibrate calls, so a test can observe both without speakers or a phone; and records
 * the frames the page sends (time, first bytes, size).
 */
export const INSTRUMENT = `
  window.__beeps = 0;
  // These tests exercise the socket path (frames to the server): the page uses it where
  // WebAssembly is missing. ON_DEVICE_INSTRUMENT below keeps WebAssembly (on-device reading).
  if (!window.__keepWasm) delete window.WebAssembly;
  window.__vibrations = [];
  const start = OscillatorNode.prototype.start;
  OscillatorNode.prototype.start = function (...a) { window.__beeps++; return start.apply(this, a); };
  window.__frames = [];
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (d) {
    if (typeof d !== 'string') window.__frames.push({ at: performance.now(), bytes: new Uint8Array(d.slice(0, 3)) , size: d.byteLength });
    if (typeof d !== 'string' && window.__blockFrames) return; // the decode path over the network is blocked
    return send.call(this, d);
  };
  Object.defineProperty(Navigator.prototype, 'vibrate', {
    configurable: true,
    value: function (pattern) { window.__vibrations.push(pattern); return true; },
  });
`;

/** INSTRUMENT for on-device reading: WebAssembly kept, every binary send still recorded. */
export const ON_DEVICE_INSTRUMENT = `window.__keepWasm = true;\n${INSTRUMENT}`;

/** ON_DEVICE_INSTRUMENT with frames to the server dropped: a read can only come from the device. */
export const FRAMES_BLOCKED_INSTRUMENT = `window.__blockFrames = true;\n${ON_DEVICE_INSTRUMENT}`;

/**
 * Camera instrumentation: records getUserMedia constraints, pretends the device has a second
 * camera, a torch and continuous focus, and records applyConstraints calls, so the page's camera
 * logic (rear camera first, then the granted device pinned; picker; torch; focus) is observable
 * with chromium's single fake camera.
 */
export const CAMERA_INSTRUMENT = `
  window.__gum = [];
  window.__applied = [];
  const md = navigator.mediaDevices;
  const gum = md.getUserMedia.bind(md);
  md.getUserMedia = (c) => { window.__gum.push(JSON.parse(JSON.stringify(c))); return gum(c); };
  const enumerate = md.enumerateDevices.bind(md);
  md.enumerateDevices = async () => {
    const list = await enumerate();
    const extra = { deviceId: 'second-camera', groupId: 'g2', kind: 'videoinput', label: 'Back Ultra Wide Camera', toJSON() { return this; } };
    return [...list, extra];
  };
  const caps = MediaStreamTrack.prototype.getCapabilities;
  MediaStreamTrack.prototype.getCapabilities = function () {
    return { ...caps.call(this), torch: true, focusMode: ['manual', 'continuous'] };
  };
  MediaStreamTrack.prototype.applyConstraints = function (c) { window.__applied.push(JSON.parse(JSON.stringify(c))); return Promise.resolve(); };
`;

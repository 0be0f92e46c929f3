// DotCode Live Scanner page (served at GET /scanner).
//
// Flow: the licence key is asked once per tab (sessionStorage), a device id is kept in
// localStorage (so the same browser keeps its machine slot after closing and reopening), the rear
// camera is opened, and frames are read on the device (local-reader.ts: our DotCode reader and
// zxing as WebAssembly), one at a time; the /v1/scanner/live socket still takes the seat lease
// and receives the count of reads ({type:"usage"}), never a frame. Where WebAssembly is missing
// or the modules do not load, JPEG frames go over the socket instead, one in flight at a time.
// The socket protocol is in docs/ARCHITECTURE.md ("Live Scanner socket") and docs/scanner.md.

import { byId, show, sessionGet, sessionSet, localGet, localSet, cleanKey, randomId, fmtDate } from '../shared/dom';
import * as local from './local-reader';

const KEY_STORE = 'dotcode.scanner.licence_key'; // sessionStorage: this tab only
const DEVICE_STORE = 'dotcode.scanner.device_id'; // localStorage: this browser, across tabs
const CAMERA_STORE = 'dotcode.scanner.camera_id'; // localStorage: pinned camera (not the ultra-wide)
const MUTE_STORE = 'dotcode.scanner.muted';

/** Frames are sent at most this often (4 per second): enough for a hand-held scan, light on data. */
const FRAME_INTERVAL_MS = 250;
/** Longest side of a sent frame. Larger camera frames are scaled down; smaller ones are sent as is. */
const MAX_FRAME_SIDE = 1280;
const JPEG_QUALITY = 0.85;
/** A frame unanswered this long is given up so the pipeline never stalls on one lost answer. */
const FRAME_TIMEOUT_MS = 8000;
/** The same code read again within this time counts as "still in view": no second beep. */
const SAME_CODE_HOLD_MS = 2000;
/** On-device reading: reads are reported (and the seat lease renewed) at least this often. */
const USAGE_INTERVAL_MS = 5000;

// ---------------------------------------------------------------------------------------------
// Elements
const el = {
  status: byId('status'),
  org: byId('org'),
  signout: byId<HTMLButtonElement>('signout'),
  keyCard: byId('keyCard'),
  keyForm: byId<HTMLFormElement>('keyForm'),
  keyInput: byId<HTMLTextAreaElement>('keyInput'),
  keyError: byId('keyError'),
  scanView: byId('scanView'),
  video: byId<HTMLVideoElement>('video'),
  videoWrap: document.querySelector('.video-wrap') as HTMLElement,
  camMessage: byId('camMessage'),
  cameraPicker: byId<HTMLSelectElement>('cameraPicker'),
  torch: byId<HTMLButtonElement>('torch'),
  mute: byId<HTMLButtonElement>('mute'),
  fps: byId('fps'),
  licenseError: byId('licenceError'),
  licenseErrorTitle: byId('licenceErrorTitle'),
  licenseErrorText: byId('licenceErrorText'),
  retry: byId<HTMLButtonElement>('retry'),
  otherKey: byId<HTMLButtonElement>('otherKey'),
  resultFormat: byId('resultFormat'),
  resultEmpty: byId('resultEmpty'),
  resultBody: byId('resultBody'),
  viewSwitch: byId('viewSwitch'),
  viewRaw: byId<HTMLButtonElement>('viewRaw'),
  viewFields: byId<HTMLButtonElement>('viewFields'),
  rawText: byId('rawText'),
  fieldsTable: byId<HTMLTableElement>('fieldsTable'),
  copy: byId<HTMLButtonElement>('copy'),
  copyNote: byId('copyNote'),
  history: byId('history'),
};

// ---------------------------------------------------------------------------------------------
// Types of the socket messages (server/src/scanner/live.ts sends them)
interface Gs1Element { ai: string; label: string; value: string; formatted?: string }
interface Gs1 { is_gs1: boolean; fields: Record<string, string>; elements: Gs1Element[]; errors: { message?: string; code?: string }[] }
interface ResultMsg {
  type: 'result'; ok: boolean; text: string | null; format: string | null; via: string;
  elapsed_ms: number; error: string | null; gs1: Gs1 | null;
  /** From the server's FrameReader: frames whose values were fused for this read, and whether the symbol just came into view. */
  frames_used?: number; new?: boolean;
}
interface ReadyMsg {
  type: 'ready';
  license: { org: string; plan: string; seats: number; exp: number; grace_ends?: number; in_grace?: boolean };
  lease_seconds?: number;
}
interface ErrorMsg { type: 'error'; error: string; message: string }
type ServerMsg = ResultMsg | ReadyMsg | ErrorMsg;

// ---------------------------------------------------------------------------------------------
// State
let licenseKey: string | null = null;
const deviceId = (() => {
  let id = localGet(DEVICE_STORE);
  if (!id || !/^[A-Za-z0-9_-]{8,64}$/.test(id)) {
    id = randomId();
    localSet(DEVICE_STORE, id);
  }
  return id;
})();

let ws: WebSocket | null = null;
let sessionReady = false; // the server accepted the licence and gave this device a slot
let refused = false; // the server refused the licence/seat: do not reconnect by itself
let reconnectDelay = 1000;
let reconnectTimer: number | undefined;

let stream: MediaStream | null = null;
let cameraFailed = false; // the last attempt to open the camera failed (message shown over the video)
let track: MediaStreamTrack | null = null;
let torchOn = false;

// On-device reading: 'loading' holds the first frame back (no frame goes to the server while the
// modules load), 'failed' means frames go over the socket.
let localState: 'loading' | 'ready' | 'failed' = 'loading';
void local.load().then(() => { localState = 'ready'; }, () => { localState = 'failed'; });
let pendingReads = 0;
let lastUsageAt = 0;

let inFlight = false;
let inFlightSince = 0;
let lastSentAt = 0;
let frameTimer: number | undefined;
const canvas = document.createElement('canvas');
const ctx2d = canvas.getContext('2d');

let lastCodeKey = '';
let lastCodeSeenAt = 0;
let current: ResultMsg | null = null;
let view: 'raw' | 'fields' = 'raw';
let muted = localGet(MUTE_STORE) === '1';
const answered: number[] = []; // answer times for the rate shown under the video

// ---------------------------------------------------------------------------------------------
// Status line
function setStatus(text: string, kind: '' | 'ok' | 'warn' | 'bad' = '', state = ''): void {
  el.status.textContent = text;
  el.status.className = `pill ${kind}`.trim();
  document.body.dataset.state = state || kind || 'idle';
}

// ---------------------------------------------------------------------------------------------
// Licence key: asked once per tab
function askForKey(message?: string): void {
  stopAll();
  show(el.scanView, false);
  show(el.keyCard, true);
  show(el.signout, false);
  show(el.org, false);
  el.keyError.textContent = message ?? '';
  show(el.keyError, Boolean(message));
  setStatus('Not started', '', 'key');
  el.keyInput.focus();
}

el.keyForm.addEventListener('submit', (ev) => {
  ev.preventDefault();
  const key = cleanKey(el.keyInput.value);
  if (!key) {
    el.keyError.textContent = 'Paste the licence key you received from your supplier.';
    show(el.keyError, true);
    return;
  }
  el.keyInput.value = '';
  sessionSet(KEY_STORE, key);
  unlockAudio(); // this click is the user gesture browsers want before sound may play
  start(key);
});

el.signout.addEventListener('click', () => {
  sessionSet(KEY_STORE, null);
  licenseKey = null;
  askForKey();
});
el.otherKey.addEventListener('click', () => {
  sessionSet(KEY_STORE, null);
  licenseKey = null;
  askForKey();
});
el.retry.addEventListener('click', () => {
  show(el.licenseError, false);
  refused = false;
  connect();
});

function start(key: string): void {
  licenseKey = key;
  refused = false;
  show(el.keyCard, false);
  show(el.scanView, true);
  show(el.signout, true);
  show(el.licenseError, false);
  connect();
  void openCamera();
}

function stopAll(): void {
  refused = true; // no automatic reconnect while the page is not scanning
  sessionReady = false;
  window.clearTimeout(reconnectTimer);
  window.clearTimeout(frameTimer);
  frameTimer = undefined;
  if (ws) {
    ws.onclose = null;
    ws.close(1000, 'closed by the page');
    ws = null;
  }
  stopCamera();
}

// ---------------------------------------------------------------------------------------------
// Socket
function socketUrl(): string {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}/v1/scanner/live`;
}

function connect(): void {
  if (!licenseKey) return;
  window.clearTimeout(reconnectTimer);
  if (ws) { ws.onclose = null; ws.close(); }
  sessionReady = false;
  inFlight = false;
  setStatus('Connecting…', 'warn', 'connecting');
  const sock = new WebSocket(socketUrl());
  ws = sock;
  sock.binaryType = 'arraybuffer';
  sock.onopen = () => {
    // The key travels in the first message, never in the URL (URLs end up in logs and history).
    sock.send(JSON.stringify({ type: 'hello', license_key: licenseKey, device_id: deviceId }));
  };
  sock.onmessage = (ev) => {
    if (typeof ev.data !== 'string') return;
    let msg: ServerMsg;
    try { msg = JSON.parse(ev.data) as ServerMsg; } catch { return; }
    onServerMessage(msg);
  };
  sock.onclose = (ev) => {
    if (ws !== sock) return;
    ws = null;
    sessionReady = false;
    inFlight = false;
    if (refused) return;
    // A dropped connection (network change, server restart): come back with the same device id,
    // which keeps this device's slot while its lease is still running.
    setStatus(ev.code === 1006 ? 'Offline, reconnecting…' : 'Reconnecting…', 'warn', 'reconnecting');
    reconnectTimer = window.setTimeout(connect, reconnectDelay);
    reconnectDelay = Math.min(reconnectDelay * 2, 15000);
  };
}

function onServerMessage(msg: ServerMsg): void {
  if (msg.type === 'ready') {
    sessionReady = true;
    reconnectDelay = 1000;
    show(el.licenseError, false);
    const lic = msg.license;
    el.org.textContent = `${lic.org} · ${lic.plan}`;
    show(el.org, true);
    readyLicense = lic;
    showReadyStatus();
    scheduleFrame(0);
  } else if (msg.type === 'error') {
    refused = true;
    sessionReady = false;
    if (msg.error === 'invalid_license') {
      // A mistyped key: forget it so the next try does not reuse it.
      sessionSet(KEY_STORE, null);
      licenseKey = null;
      askForKey(msg.message);
      return;
    }
    setStatus('Not scanning', 'bad', `refused:${msg.error}`);
    el.licenseErrorTitle.textContent = msg.error === 'seat_limit_reached' ? 'No free machine' : 'Cannot scan with this key';
    el.licenseErrorText.textContent = msg.message;
    show(el.retry, msg.error === 'seat_limit_reached' || msg.error === 'server_error');
    show(el.licenseError, true);
  } else if (msg.type === 'result') {
    inFlight = false;
    answered.push(performance.now());
    onResult(msg);
    scheduleFrame();
  }
}

// ---------------------------------------------------------------------------------------------
// Camera
const HTTPS_HELP =
  '<h3>The camera needs a secure connection</h3>' +
  '<p>Browsers open the camera only on pages served over <code>https://</code> (or from <code>localhost</code>). ' +
  'Open this page with an <code>https://</code> address. If you run the server yourself, start it with ' +
  '<code>--tls-cert</code> and <code>--tls-key</code>.</p>';

function cameraHelp(err: unknown): string {
  const name = (err as { name?: string })?.name ?? '';
  if (!window.isSecureContext) return HTTPS_HELP;
  if (name === 'NotAllowedError' || name === 'SecurityError') {
    return '<h3>Camera access is blocked</h3><p>Allow the camera for this site in the browser\'s site settings (the icon left of the address), then press Retry.</p><p><button class="btn" type="button" data-retry>Retry</button></p>';
  }
  if (name === 'NotFoundError' || name === 'OverconstrainedError') {
    return '<h3>No camera found</h3><p>Connect a camera, or open this page on a phone or tablet.</p><p><button class="btn" type="button" data-retry>Retry</button></p>';
  }
  if (name === 'NotReadableError') {
    return '<h3>The camera is busy</h3><p>Another app or tab is using it. Close it, then press Retry.</p><p><button class="btn" type="button" data-retry>Retry</button></p>';
  }
  return `<h3>The camera could not start</h3><p>${escapeHtml(String((err as Error)?.message ?? err))}</p><p><button class="btn" type="button" data-retry>Retry</button></p>`;
}

function showCamMessage(html: string | null): void {
  if (html === null) { show(el.camMessage, false); return; }
  el.camMessage.innerHTML = html;
  show(el.camMessage, true);
  el.camMessage.querySelector('[data-retry]')?.addEventListener('click', () => void openCamera());
}

function stopCamera(): void {
  stream?.getTracks().forEach((t) => t.stop());
  stream = null;
  track = null;
  el.video.srcObject = null;
}

async function openCamera(chosenId?: string): Promise<void> {
  stopCamera();
  showCamMessage(null);
  if (!navigator.mediaDevices || typeof navigator.mediaDevices.getUserMedia !== 'function') {
    // mediaDevices is undefined on plain http:// pages (other than localhost).
    showCamMessage(window.isSecureContext ? cameraHelp({ name: 'NotFoundError' }) : HTTPS_HELP);
    setStatusCamera();
    return;
  }
  const size = { width: { ideal: 1280 }, height: { ideal: 720 } };
  const attempts: MediaTrackConstraints[] = [];
  const pinned = chosenId ?? localGet(CAMERA_STORE);
  if (pinned) attempts.push({ ...size, deviceId: { exact: pinned } });
  // First visit: ask for the rear camera; its device id is then pinned, because asking for
  // "environment" again can land a phone on its ultra-wide lens, which is poor for small codes.
  attempts.push({ ...size, facingMode: { ideal: 'environment' } });
  let lastErr: unknown = null;
  for (const video of attempts) {
    try {
      stream = await navigator.mediaDevices.getUserMedia({ video, audio: false });
      break;
    } catch (err) {
      lastErr = err;
      const name = (err as { name?: string }).name;
      if (name === 'NotAllowedError' || name === 'SecurityError') break; // asking again will not help
    }
  }
  if (!stream) {
    showCamMessage(cameraHelp(lastErr));
    setStatusCamera();
    return;
  }
  cameraFailed = false;
  showReadyStatus();
  track = stream.getVideoTracks()[0] ?? null;
  el.video.srcObject = stream;
  try { await el.video.play(); } catch { /* autoplay of a muted inline video is allowed; ignore */ }
  const settings = track?.getSettings() ?? {};
  if (settings.deviceId) localSet(CAMERA_STORE, settings.deviceId);
  await fillCameraPicker(settings.deviceId);
  setupTorchAndFocus();
  scheduleFrame(0);
}

function setStatusCamera(): void {
  cameraFailed = true;
  showReadyStatus();
}

/** The status line once the licence is accepted: depends on the camera and the licence term. */
let readyLicense: ReadyMsg['license'] | null = null;
function showReadyStatus(): void {
  if (!sessionReady || !readyLicense) return; // the ready message will call this again
  if (cameraFailed) setStatus('Camera off', 'warn', 'camera-off');
  else if (readyLicense.in_grace) {
    setStatus(`Scanning · licence ended ${fmtDate(readyLicense.exp)}, renew by ${fmtDate(readyLicense.grace_ends ?? null)}`, 'warn', 'ready');
  } else setStatus('Scanning', 'ok', 'ready');
}

async function fillCameraPicker(currentId?: string): Promise<void> {
  let cams: MediaDeviceInfo[] = [];
  try {
    cams = (await navigator.mediaDevices.enumerateDevices()).filter((d) => d.kind === 'videoinput');
  } catch { /* no list: no picker */ }
  el.cameraPicker.innerHTML = '';
  cams.forEach((cam, i) => {
    const opt = document.createElement('option');
    opt.value = cam.deviceId;
    opt.textContent = cam.label || `Camera ${i + 1}`;
    opt.selected = cam.deviceId === currentId;
    el.cameraPicker.append(opt);
  });
  show(el.cameraPicker, cams.length > 1);
}
el.cameraPicker.addEventListener('change', () => {
  localSet(CAMERA_STORE, el.cameraPicker.value);
  void openCamera(el.cameraPicker.value);
});

// Torch and focus are not in every browser's type definitions; they are optional capabilities.
interface ExtraCaps { torch?: boolean; focusMode?: string[] }
function setupTorchAndFocus(): void {
  torchOn = false;
  el.torch.setAttribute('aria-pressed', 'false');
  const caps = (track && typeof track.getCapabilities === 'function' ? track.getCapabilities() : {}) as ExtraCaps;
  show(el.torch, Boolean(caps.torch));
  // Focus is applied after start: some phones ignore focus constraints passed to getUserMedia.
  if (track && caps.focusMode?.includes('continuous')) {
    track.applyConstraints({ advanced: [{ focusMode: 'continuous' } as MediaTrackConstraintSet] }).catch(() => undefined);
  }
}
el.torch.addEventListener('click', () => {
  if (!track) return;
  torchOn = !torchOn;
  track.applyConstraints({ advanced: [{ torch: torchOn } as MediaTrackConstraintSet] })
    .then(() => el.torch.setAttribute('aria-pressed', String(torchOn)))
    .catch(() => { torchOn = false; show(el.torch, false); });
});

// ---------------------------------------------------------------------------------------------
// Frames: a few per second, one in flight, scaled to at most MAX_FRAME_SIDE
function scheduleFrame(delay?: number): void {
  if (frameTimer !== undefined) return;
  const wait = delay ?? Math.max(0, lastSentAt + FRAME_INTERVAL_MS - performance.now());
  frameTimer = window.setTimeout(() => { frameTimer = undefined; sendFrame(); }, wait);
}

function sendFrame(): void {
  if (!sessionReady || !ws || ws.readyState !== WebSocket.OPEN || !track) return; // resumed by ready / camera start
  if (inFlight) {
    if (performance.now() - inFlightSince < FRAME_TIMEOUT_MS) return; // the answer will schedule the next
    inFlight = false;
  }
  const v = el.video;
  if (document.hidden || v.readyState < 2 || !v.videoWidth) { scheduleFrame(200); return; }
  if (localState === 'loading') { scheduleFrame(20); return; }
  const scale = Math.min(1, MAX_FRAME_SIDE / Math.max(v.videoWidth, v.videoHeight));
  canvas.width = Math.round(v.videoWidth * scale);
  canvas.height = Math.round(v.videoHeight * scale);
  ctx2d?.drawImage(v, 0, 0, canvas.width, canvas.height);
  inFlight = true;
  inFlightSince = performance.now();
  lastSentAt = inFlightSince;
  if (localState === 'ready' && ctx2d) { readOnDevice(ctx2d.getImageData(0, 0, canvas.width, canvas.height)); return; }
  canvas.toBlob((blob) => {
    if (!blob || !ws || ws.readyState !== WebSocket.OPEN) { inFlight = false; scheduleFrame(); return; }
    blob.arrayBuffer().then((buf) => {
      if (ws && ws.readyState === WebSocket.OPEN) ws.send(buf);
      else inFlight = false;
    }).catch(() => { inFlight = false; scheduleFrame(); });
  }, 'image/jpeg', JPEG_QUALITY);
  // Watchdog for a lost answer.
  window.setTimeout(() => { if (inFlight && performance.now() - inFlightSince >= FRAME_TIMEOUT_MS) scheduleFrame(0); }, FRAME_TIMEOUT_MS + 10);
}
document.addEventListener('visibilitychange', () => { if (!document.hidden) scheduleFrame(0); });

/** One frame read in the page; the result is shown as a socket answer would be. */
function readOnDevice(img: ImageData): void {
  local.decodeFrame(img).then((r) => {
    inFlight = false;
    answered.push(performance.now());
    onResult(r as ResultMsg);
    reportUsage();
    scheduleFrame();
  }, () => {
    // A module that failed (zxing did not load, or a read threw): frames go over the socket.
    localState = 'failed';
    inFlight = false;
    scheduleFrame(0);
  });
}

/**
 * Tells the server how many codes were read on the device since the last report (the socket's
 * own rule for a read: a code not seen in the last moments). Sent at least every
 * USAGE_INTERVAL_MS while scanning, so it also keeps the seat lease, as frames did.
 */
function reportUsage(): void {
  const now = performance.now();
  if (pendingReads === 0 && now - lastUsageAt < USAGE_INTERVAL_MS) return;
  if (!ws || ws.readyState !== WebSocket.OPEN) return;
  ws.send(JSON.stringify({ type: 'usage', reads: pendingReads }));
  pendingReads = 0;
  lastUsageAt = now;
}

// ---------------------------------------------------------------------------------------------
// Results
function onResult(r: ResultMsg): void {
  const now = performance.now();
  while (answered.length > 1 && now - answered[0] > 3000) answered.shift();
  const span = answered.length > 1 ? (answered[answered.length - 1] - answered[0]) / 1000 : 0;
  const rate = span > 0 ? (answered.length - 1) / span : 0;
  el.fps.textContent = rate > 0 ? `${rate.toFixed(1)} frames/s · decode ${Math.round(r.elapsed_ms)} ms` : `decode ${Math.round(r.elapsed_ms)} ms`;
  if (!r.ok || r.text === null) {
    el.videoWrap.classList.remove('hit');
    return;
  }
  el.videoWrap.classList.add('hit');
  const key = `${r.format}\u0000${r.text}`;
  // The server's FrameReader says when a symbol came into view (one beep per symbol, however
  // many frames read it); on-device reads fall back to "not the code of the last moments".
  const isNew = typeof r.new === 'boolean' ? r.new : key !== lastCodeKey || now - lastCodeSeenAt > SAME_CODE_HOLD_MS;
  lastCodeKey = key;
  lastCodeSeenAt = now;
  if (!isNew) return; // the same code held in view: no second beep, no re-render
  if (localState === 'ready') pendingReads++;
  announce();
  current = r;
  render();
  addHistory(r);
}

function hasFields(r: ResultMsg | null): boolean {
  return Boolean(r && r.gs1 && r.gs1.is_gs1 && r.gs1.elements.length > 0);
}

function render(): void {
  const r = current;
  if (!r) return;
  show(el.resultEmpty, false);
  show(el.resultBody, true);
  el.resultFormat.textContent = r.format ?? '';
  show(el.resultFormat, Boolean(r.format));
  const fields = hasFields(r);
  if (!fields) view = 'raw';
  show(el.viewSwitch, fields);
  el.viewRaw.setAttribute('aria-pressed', String(view === 'raw'));
  el.viewFields.setAttribute('aria-pressed', String(view === 'fields'));

  // Raw text: exactly the payload; a GS1 group separator (invisible) is shown as a marked "GS".
  el.rawText.textContent = '';
  const parts = (r.text ?? '').split('\u001d');
  parts.forEach((part, i) => {
    if (i > 0) {
      const gs = document.createElement('span');
      gs.className = 'gs';
      gs.title = 'Group separator (ASCII 29)';
      gs.textContent = '⟨GS⟩';
      el.rawText.append(gs);
    }
    el.rawText.append(document.createTextNode(part));
  });

  const body = el.fieldsTable.tBodies[0];
  body.innerHTML = '';
  if (fields && r.gs1) {
    for (const e of r.gs1.elements) {
      const tr = document.createElement('tr');
      const th = document.createElement('th');
      th.textContent = e.label || `AI ${e.ai}`;
      const small = document.createElement('small');
      small.textContent = `(${e.ai})`;
      th.append(small);
      const td = document.createElement('td');
      td.textContent = e.formatted ?? e.value;
      if (e.formatted) td.title = `raw value ${e.value}`;
      tr.append(th, td);
      body.append(tr);
    }
    for (const problem of r.gs1.errors ?? []) {
      const tr = document.createElement('tr');
      tr.className = 'err';
      tr.innerHTML = '<th>Problem</th><td></td>';
      (tr.lastChild as HTMLElement).textContent = problem.message ?? problem.code ?? 'GS1 parsing problem';
      body.append(tr);
    }
  }
  show(el.rawText, view === 'raw');
  show(el.fieldsTable, view === 'fields');
  el.copyNote.textContent = '';
}

function fieldsText(r: ResultMsg): string {
  return (r.gs1?.elements ?? []).map((e) => `${e.label || `AI ${e.ai}`} (${e.ai}): ${e.formatted ?? e.value}`).join('\n');
}

el.viewRaw.addEventListener('click', () => { view = 'raw'; render(); });
el.viewFields.addEventListener('click', () => { if (hasFields(current)) { view = 'fields'; render(); } });

el.copy.addEventListener('click', async () => {
  if (!current) return;
  // Copy copies the view shown: the exact payload, or the labelled fields.
  const text = view === 'fields' && hasFields(current) ? fieldsText(current) : current.text ?? '';
  let ok = false;
  try {
    await navigator.clipboard.writeText(text);
    ok = true;
  } catch {
    // Older browsers, or clipboard permission refused: the selection-based fallback.
    const ta = document.createElement('textarea');
    ta.value = text;
    ta.style.position = 'fixed';
    ta.style.opacity = '0';
    document.body.append(ta);
    ta.select();
    try { ok = document.execCommand('copy'); } catch { ok = false; }
    ta.remove();
  }
  el.copyNote.textContent = ok ? (view === 'fields' ? 'Fields copied' : 'Text copied') : 'Copy failed: select the text and copy it by hand';
});

function addHistory(r: ResultMsg): void {
  const li = document.createElement('li');
  const time = document.createElement('time');
  time.textContent = new Date().toTimeString().slice(0, 8);
  const t = document.createElement('span');
  t.className = 't';
  t.textContent = (r.text ?? '').replace(/\u001d/g, '⟨GS⟩');
  const f = document.createElement('span');
  f.className = 'f';
  f.textContent = r.format ?? '';
  li.append(time, t, f);
  el.history.prepend(li);
  while (el.history.children.length > 50) el.history.lastElementChild?.remove();
}

// ---------------------------------------------------------------------------------------------
// Beep (WebAudio) and vibration on each new read
let audio: AudioContext | null = null;
function unlockAudio(): void {
  if (!audio) {
    const Ctor = window.AudioContext ?? (window as unknown as { webkitAudioContext?: typeof AudioContext }).webkitAudioContext;
    if (!Ctor) return;
    try { audio = new Ctor(); } catch { return; }
  }
  if (audio.state === 'suspended') audio.resume().catch(() => undefined);
}
// After a reload the key comes from sessionStorage without a click: unlock on the first touch.
document.addEventListener('pointerdown', unlockAudio, { once: true });
document.addEventListener('keydown', unlockAudio, { once: true });

function beep(): void {
  unlockAudio();
  if (!audio) return;
  const t = audio.currentTime;
  const osc = audio.createOscillator();
  const gain = audio.createGain();
  osc.type = 'sine';
  osc.frequency.value = 1900;
  // A short envelope avoids the click of a hard start/stop.
  gain.gain.setValueAtTime(0.0001, t);
  gain.gain.exponentialRampToValueAtTime(0.3, t + 0.01);
  gain.gain.exponentialRampToValueAtTime(0.0001, t + 0.12);
  osc.connect(gain).connect(audio.destination);
  osc.start(t);
  osc.stop(t + 0.13);
}

function announce(): void {
  if (!muted) beep();
  if (typeof navigator.vibrate === 'function') {
    try { navigator.vibrate(80); } catch { /* not allowed without a gesture on some browsers */ }
  }
}

function renderMute(): void {
  el.mute.setAttribute('aria-pressed', String(muted));
  el.mute.textContent = muted ? 'Sound off' : 'Sound on';
}
el.mute.addEventListener('click', () => {
  muted = !muted;
  localSet(MUTE_STORE, muted ? '1' : '0');
  renderMute();
  if (!muted) unlockAudio();
});

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

// ---------------------------------------------------------------------------------------------
renderMute();
const saved = sessionGet(KEY_STORE);
if (saved) start(saved);
else askForKey();

// DotCode customer portal (served at GET /portal).
//
// Sign-in is pasting a key: an API key shows Cloud API usage, a licence key shows the licence and
// its machines. The key is sent in the body of POST /v1/portal/session (never in a URL) and kept
// in sessionStorage so a reload of this tab does not ask again; closing the tab forgets it.

import { byId, show, sessionGet, sessionSet, cleanKey, fmtDate, fmtDateTime } from '../shared/dom';
import { drawDailyChart, DayCount } from './chart';

const KEY_STORE = 'dotcode.portal.key';

interface UsageView {
  ok: true; kind: 'api_key';
  customer: { id: string; name: string };
  usage: { plan: string; quota: number; used: number; remaining: number; resets_on: string; period_start?: string };
  daily: DayCount[];
}
interface Machine {
  machine_id: string; kind: 'sdk' | 'scanner'; name: string | null; platform?: string | null;
  first_seen: string; last_seen: string; scans: number; quiet: boolean; active?: boolean;
}
interface LicenseView {
  ok: true; kind: 'license';
  license: {
    lid: string; org: string; plan: string; seats: number; features: string[];
    iat: number; exp: number; grace_ends: number; state: 'valid' | 'grace' | 'expired' | 'revoked'; revoked?: boolean;
  };
  seats_in_use: { sdk: number; scanner: number };
  quiet_after_hours: number;
  machines: Machine[];
}
type View = UsageView | LicenseView;

const el = {
  who: byId('who'),
  signout: byId<HTMLButtonElement>('signout'),
  signin: byId('signin'),
  form: byId<HTMLFormElement>('signinForm'),
  keyInput: byId<HTMLTextAreaElement>('keyInput'),
  signinError: byId('signinError'),
  submit: byId<HTMLButtonElement>('signinSubmit'),
  apiView: byId('apiView'),
  licView: byId('licView'),
};

function setText(id: string, text: string): void {
  byId(id).textContent = text;
}

function showSignin(message?: string): void {
  show(el.apiView, false);
  show(el.licView, false);
  show(el.signout, false);
  show(el.who, false);
  show(el.signin, true);
  el.signinError.textContent = message ?? '';
  show(el.signinError, Boolean(message));
  document.body.dataset.state = 'signin';
  el.keyInput.focus();
}

async function load(key: string): Promise<void> {
  el.submit.disabled = true;
  document.body.dataset.state = 'loading';
  let res: Response;
  try {
    res = await fetch('/v1/portal/session', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ key }),
      cache: 'no-store',
      credentials: 'omit',
    });
  } catch {
    el.submit.disabled = false;
    showSignin('The service cannot be reached. Check your connection and try again.');
    return;
  }
  el.submit.disabled = false;
  const body = (await res.json().catch(() => null)) as (View | { ok: false; error: string; message: string }) | null;
  if (!res.ok || !body || !body.ok) {
    sessionSet(KEY_STORE, null);
    const msg = body && !body.ok ? body.message : `The service answered ${res.status}.`;
    showSignin(msg);
    return;
  }
  sessionSet(KEY_STORE, key);
  show(el.signin, false);
  show(el.signout, true);
  if (body.kind === 'api_key') renderUsage(body);
  else renderLicense(body);
}

function renderUsage(v: UsageView): void {
  show(el.licView, false);
  show(el.apiView, true);
  el.who.textContent = v.customer.name;
  show(el.who, true);
  const u = v.usage;
  setText('apiSub', `${v.customer.name} · API key sign-in`);
  setText('uPlan', u.plan);
  setText('uUsed', u.used.toLocaleString('en'));
  setText('uOf', `of ${u.quota.toLocaleString('en')} scans`);
  setText('uRemaining', u.remaining.toLocaleString('en'));
  setText('uResets', u.resets_on);
  const pct = u.quota > 0 ? Math.min(100, (u.used / u.quota) * 100) : 100;
  const meter = byId('uMeter');
  meter.style.width = `${pct}%`;
  meter.classList.toggle('full', u.remaining <= 0);
  const banner = byId('quotaBanner');
  if (u.remaining <= 0) {
    banner.textContent = `The quota is used up: decode calls answer 402 until ${u.resets_on}. Upgrade the plan to continue sooner.`;
    show(banner, true);
  } else if (u.quota > 0 && u.remaining / u.quota < 0.1) {
    banner.textContent = `Less than 10% of the monthly quota is left (${u.remaining} scans until ${u.resets_on}).`;
    show(banner, true);
  } else {
    show(banner, false);
  }
  const days = v.daily;
  setText('chartRange', days.length ? `${days[0].date} to ${days[days.length - 1].date}` : '');
  const canvas = byId<HTMLCanvasElement>('chart');
  const draw = () => drawDailyChart(canvas, days);
  draw();
  window.onresize = draw;
  // The same numbers as a table for screen readers.
  const tb = byId<HTMLTableElement>('chartTable').tBodies[0];
  tb.innerHTML = '';
  for (const d of days) {
    const tr = document.createElement('tr');
    tr.innerHTML = '<td></td><td></td>';
    (tr.cells[0] as HTMLElement).textContent = d.date;
    (tr.cells[1] as HTMLElement).textContent = String(d.scans);
    tb.append(tr);
  }
  document.body.dataset.state = 'api_key';
}

function renderLicense(v: LicenseView): void {
  show(el.apiView, false);
  show(el.licView, true);
  window.onresize = null;
  const l = v.license;
  el.who.textContent = l.org;
  show(el.who, true);
  setText('lOrg', l.org);
  setText('lSub', `Licence ${l.lid} · issued ${fmtDate(l.iat)}`);
  setText('lPlan', l.plan);
  // SDK machines and Live Scanner devices each have `seats` of their own (counted apart by the
  // service): two of each on two seats is full, not "4 / 2" over the limit
  const { sdk, scanner } = v.seats_in_use;
  const fuller = Math.max(sdk, scanner);
  setText('lSeats', `${fuller} / ${l.seats}`);
  setText('lSeatsSub', `SDK ${sdk} / ${l.seats} · Live Scanner ${scanner} / ${l.seats} (counted apart)`);
  const meter = byId('lMeter');
  meter.style.width = `${l.seats > 0 ? Math.min(100, (fuller / l.seats) * 100) : 100}%`;
  // every seat of a kind taken is normal use (amber); red only if a kind were ever over
  meter.classList.toggle('limit', fuller === l.seats);
  meter.classList.toggle('full', fuller > l.seats);
  setText('lExp', fmtDate(l.exp));
  setText('lGrace', `grace until ${fmtDate(l.grace_ends)}`);
  const feats = byId('lFeatures');
  feats.innerHTML = '';
  for (const [f, name] of [['sdk', 'Offline SDK'], ['scanner', 'Live Scanner']] as const) {
    const chip = document.createElement('span');
    chip.className = l.features.includes(f) ? 'chip' : 'chip off';
    chip.textContent = name;
    feats.append(chip);
  }
  const banner = byId('licBanner');
  banner.className = 'banner';
  if (l.revoked || l.state === 'revoked') {
    banner.classList.add('bad');
    banner.textContent = 'This licence has been revoked. Contact your supplier.';
  } else if (l.state === 'expired') {
    banner.classList.add('bad');
    banner.textContent = `This licence expired on ${fmtDate(l.grace_ends)} (term ${fmtDate(l.exp)} plus 14 days' grace). Ask your supplier for a renewal key.`;
  } else if (l.state === 'grace') {
    banner.classList.add('warn');
    banner.textContent = `The term ended on ${fmtDate(l.exp)}. Scanning continues in the grace period until ${fmtDate(l.grace_ends)}; renew before then.`;
  } else {
    banner.classList.add('ok');
    banner.textContent = `Licence valid until ${fmtDate(l.exp)}.`;
  }
  show(banner, true);

  setText('quietNote', `Machines not heard from for ${v.quiet_after_hours} hours are flagged as quiet.`);
  const tb = byId<HTMLTableElement>('machines').tBodies[0];
  tb.innerHTML = '';
  for (const m of v.machines) {
    const tr = document.createElement('tr');
    if (m.quiet) tr.className = 'quiet';
    const name = document.createElement('td');
    const strong = document.createElement('strong');
    strong.textContent = m.name || (m.kind === 'scanner' ? 'Browser device' : 'SDK machine');
    const mid = document.createElement('span');
    mid.className = 'mid';
    mid.textContent = m.machine_id.length > 20 ? `${m.machine_id.slice(0, 20)}…` : m.machine_id;
    mid.title = m.machine_id;
    name.append(strong, mid);
    const cells = [
      m.kind === 'scanner' ? 'Live Scanner' : `SDK${m.platform ? ` · ${m.platform}` : ''}`,
      fmtDateTime(m.first_seen),
      fmtDateTime(m.last_seen),
      m.scans.toLocaleString('en'),
    ].map((t) => { const td = document.createElement('td'); td.textContent = t; return td; });
    cells[3].className = 'num';
    const status = document.createElement('td');
    const pill = document.createElement('span');
    pill.className = m.quiet ? 'pill warn' : m.active ? 'pill ok' : 'pill';
    pill.textContent = m.quiet ? 'Quiet' : m.active ? 'Active' : 'Seen';
    status.append(pill);
    tr.append(name, ...cells, status);
    tb.append(tr);
  }
  show(byId('noMachines'), v.machines.length === 0);
  document.body.dataset.state = 'license';
}

el.form.addEventListener('submit', (ev) => {
  ev.preventDefault();
  const key = cleanKey(el.keyInput.value);
  if (!key) return;
  el.keyInput.value = '';
  void load(key);
});
el.signout.addEventListener('click', () => {
  sessionSet(KEY_STORE, null);
  showSignin();
});
document.querySelectorAll('[data-refresh]').forEach((b) => b.addEventListener('click', () => {
  const key = sessionGet(KEY_STORE);
  if (key) void load(key); else showSignin();
}));

const saved = sessionGet(KEY_STORE);
if (saved) void load(saved);
else showSignin();

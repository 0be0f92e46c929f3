// Small DOM helpers shared by the Live Scanner and the portal pages.

/** The element with this id; throws with the id so a template/script mismatch is obvious. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`page is missing #${id}`);
  return el as T;
}

export function show(el: HTMLElement, visible = true): void {
  el.hidden = !visible;
}

/** sessionStorage can throw (private mode, disabled storage): the page then asks every time. */
export function sessionGet(name: string): string | null {
  try { return sessionStorage.getItem(name); } catch { return null; }
}
export function sessionSet(name: string, value: string | null): void {
  try {
    if (value === null) sessionStorage.removeItem(name);
    else sessionStorage.setItem(name, value);
  } catch { /* storage unavailable: nothing to keep */ }
}
export function localGet(name: string): string | null {
  try { return localStorage.getItem(name); } catch { return null; }
}
export function localSet(name: string, value: string | null): void {
  try {
    if (value === null) localStorage.removeItem(name);
    else localStorage.setItem(name, value);
  } catch { /* storage unavailable */ }
}

/** Keys are pasted from e-mails and PDFs: drop surrounding whitespace and inner line breaks. */
export function cleanKey(raw: string): string {
  return raw.replace(/\s+/g, '');
}

/** A random id; crypto.randomUUID only exists on secure pages, getRandomValues everywhere. */
export function randomId(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export function fmtDate(unixSecondsOrIso: number | string | null | undefined): string {
  if (unixSecondsOrIso === null || unixSecondsOrIso === undefined || unixSecondsOrIso === '') return '—';
  const d = typeof unixSecondsOrIso === 'number' ? new Date(unixSecondsOrIso * 1000) : new Date(unixSecondsOrIso);
  if (Number.isNaN(d.getTime())) return String(unixSecondsOrIso);
  return d.toISOString().slice(0, 10);
}

export function fmtDateTime(v: number | string | null | undefined): string {
  if (v === null || v === undefined || v === '') return '—';
  const d = typeof v === 'number' ? new Date(v * 1000) : new Date(v);
  if (Number.isNaN(d.getTime())) return String(v);
  return `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 16)} UTC`;
}

// SPEC 5 rule 1: "a space or newline copied into the key makes it wrong". HTTP parsers strip
// spaces and tabs around a header value (RFC 9110 OWS) before any server code sees it, so
// `X-API-Key: KEY ` would reach us as `KEY` and be accepted. To honour the SPEC we look at the
// raw bytes: a listener on each connection scans the start of every chunk for X-API-Key header
// lines and remembers the raw value per trimmed value; authentication then refuses a key whose
// raw form carried anything beyond the single optional space after the colon.
//
// Why this is sound: the HTTP parser emits 'request' while handling the chunk that ends the
// header block, inside the same 'data' emit as this listener, and authentication reads the map
// only after an await (the store lookup), by which time this listener has seen that chunk. If a
// header line was not seen (say it was split oddly), the check is skipped: it can only refuse
// keys, never accept one that the normal check refuses.
import type { Socket } from 'node:net';

const RAW = Symbol('dotcodeRawApiKeys');
/** default maxHeaderSize of Node: a header block never extends past this in a chunk */
const SCAN_BYTES = 16 * 1024;
const LINE = /\r\nx-api-key:([^\r\n]*)\r\n/gi;

interface Watch { carry: string; seen: Map<string, string> }

export function watchRawApiKeys(socket: Socket): void {
  const w: Watch = { carry: '', seen: new Map() };
  (socket as unknown as Record<symbol, Watch>)[RAW] = w;
  const onData = (chunk: Buffer) => {
    const text = w.carry + chunk.toString('latin1', 0, Math.min(chunk.length, SCAN_BYTES));
    LINE.lastIndex = 0;
    for (let m = LINE.exec(text); m; m = LINE.exec(text)) {
      const raw = m[1];
      w.seen.set(raw.trim(), raw);
      if (w.seen.size > 16) w.seen.delete(w.seen.keys().next().value as string);
    }
    // keep a tail so a header line split across two chunks is still found
    w.carry = chunk.length <= SCAN_BYTES ? text.slice(-300) : '';
  };
  socket.on('data', onData);
  (socket as unknown as Record<symbol, () => void>)[Symbol.for('dotcodeUnwatch')] = () => socket.off('data', onData);
}

/** Stops scanning (web-socket upgrades: the bytes that follow are frames, not headers). */
export function unwatchRawApiKeys(socket: unknown): void {
  (socket as Record<symbol, (() => void) | undefined>)[Symbol.for('dotcodeUnwatch')]?.();
}

/**
 * True when the key, as it was on the wire, had stray whitespace around it: more than the one
 * optional space or tab after the colon, or any trailing space or tab.
 */
export function keyHadStrayWhitespace(socket: unknown, presented: string): boolean {
  const w = (socket as Record<symbol, Watch | undefined> | null)?.[RAW];
  const raw = w?.seen.get(presented);
  if (raw === undefined) return false;
  const afterColon = raw.startsWith(' ') || raw.startsWith('\t') ? raw.slice(1) : raw;
  return afterColon !== presented;
}

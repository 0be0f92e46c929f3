// Grey planes reused from one decode to the next, per thread. A 1280x720 JPEG's plane is 0.9 MB
// of fresh memory per request: the allocator zero-fills it, the kernel maps new pages for it, and
// V8 counts it as external memory, which hastens full garbage collections (V8's concurrent marking
// was about a tenth of the Cloud API's CPU samples under load before; bench/RESULTS.md, "Cloud
// API: JPEGs decoded by libjpeg-turbo in the addon"). Only planes takePlane made (the addon's JPEG
// planes, jpeg-grey.ts) come back, and only when nobody else can hold them: core.ts runJob gives
// its plane back once every reader has answered (a plane moved to a worker is detached, not kept).

/** Planes up to this size are kept (4 MP: camera frames, not the occasional huge photo). */
const MAX_PLANE_BYTES = 4 * 1024 * 1024;
/** At most this many planes are kept in all (the server decodes about 8 at once). */
const MAX_PLANES = 8;

const free: Uint8Array<ArrayBuffer>[] = [];
/** Planes takePlane handed out: only those come back (other planes are the caller's or sharp's). */
const ours = new WeakSet<Uint8Array>();

/** A plane of `size` bytes, reused when one is free; its content is stale (the caller overwrites it). */
export function takePlane(size: number): Uint8Array<ArrayBuffer> {
  const i = free.findIndex((p) => p.byteLength === size);
  if (i >= 0) return free.splice(i, 1)[0];
  const p = new Uint8Array(size);
  if (size <= MAX_PLANE_BYTES) ours.add(p);
  return p;
}

/**
 * Gives a plane back for a later takePlane. Only a plane takePlane made is kept, not when it was
 * moved to another thread meanwhile, and the oldest one is dropped when full. The caller must
 * hold no other reference to it.
 */
export function givePlane(p: Uint8Array): void {
  if (!ours.has(p) || p.byteLength === 0) return; // not ours, or moved away (detached)
  const plane = p as Uint8Array<ArrayBuffer>;
  if (free.includes(plane)) return;
  if (free.length >= MAX_PLANES) free.shift();
  free.push(plane);
}

/** Drops every kept plane (engine close: the memory returns). */
export function dropPlanes(): void {
  free.length = 0;
}

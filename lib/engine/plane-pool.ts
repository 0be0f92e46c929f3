// Grey planes reused from one decode to the next, per thread. A 1280x720 JPEG's plane is 0.9 MB
// of fresh memory per request: the allocator zero-fills it, the kernel maps new pages for it, and
// V8 counts it as external memory, which brought on a full garbage collection about every 70
// requests of the Cloud API (bench/RESULTS.md, "Cloud API: JPEGs decoded by libjpeg-turbo in the
// addon"). Only planes the engine made and nobody else can hold come back here: core.ts runJob
// gives back its plane once every reader has answered (a plane moved to a worker is detached and
// is not kept).

/** Planes up to this size are kept (4 MP: camera frames, not the occasional huge photo). */
const MAX_PLANE_BYTES = 4 * 1024 * 1024;
/** At most this many planes are kept in all (the server decodes about 8 at once). */
const MAX_PLANES = 8;

const free: Uint8Array<ArrayBuffer>[] = [];

/** A plane of `size` bytes, reused when one is free; its content is stale (the caller overwrites it). */
export function takePlane(size: number): Uint8Array<ArrayBuffer> {
  const i = free.findIndex((p) => p.byteLength === size);
  if (i < 0) return new Uint8Array(size);
  const [p] = free.splice(i, 1);
  return p;
}

/**
 * Gives a plane back for a later takePlane. Only a plane that owns its whole buffer is kept, and
 * the oldest one is dropped when full. The caller must hold no other reference to it.
 */
export function givePlane(p: Uint8Array): void {
  if (p.byteLength === 0 || p.byteLength > MAX_PLANE_BYTES) return; // moved away (detached), or large
  if (p.byteOffset !== 0 || p.buffer.byteLength !== p.byteLength || !(p.buffer instanceof ArrayBuffer)) return;
  const plane = p as Uint8Array<ArrayBuffer>;
  if (free.includes(plane)) return;
  if (free.length >= MAX_PLANES) free.shift();
  free.push(plane);
}

/** Drops every kept plane (engine close: the memory returns). */
export function dropPlanes(): void {
  free.length = 0;
}

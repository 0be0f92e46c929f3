// Reads back the one buffer each call of the WebAssembly reader answers with (written by
// native/wasm/wire_writer.h, laid out in native/wasm/wasm_api.cpp: change both together) into
// the very objects the N-API addon returns, member for member, so nothing above the engine can
// tell the two readers apart. Platform-neutral (the Live Scanner page bundles it): byte payloads
// are made by the caller's `bytes` function (Node: Buffer, browser: Uint8Array).

export interface WirePoint { x: number; y: number }

export interface WireSymbol {
  bytes: Uint8Array;
  gs1: boolean;
  ecis: number[];
  eciSegments: { offset: number; eci: number }[];
  structuredAppend: { index: number; count: number; fileId: number | null } | null;
  readerInit: boolean;
  macro: string | null;
  symbologyId: string;
  rows: number;
  cols: number;
  mask: number;
  errorsCorrected: number;
  erasuresCorrected: number;
  ecBudget: number;
  orientation: number;
  mirrored: boolean;
}

export interface WireRead extends WireSymbol {
  via: string;
  corners: WirePoint[];
}

export interface WireRegion { x0: number; y0: number; x1: number; y1: number }

export interface WireTrace {
  passes: {
    via: string; dark: boolean; region: WireRegion; scale: number; deconvolving: boolean;
    dots: Float32Array; clusters: Int32Array[];
    lattices: { cluster: number; outcome: string; dots: Float32Array; row: Int32Array; col: Int32Array; rows: number; cols: number; pitch: number }[];
  }[];
  hypotheses: { pass: number; lattice: number; rows: number; cols: number; values: Float32Array; corners: WirePoint[]; outcome: string }[];
  windows: { region: WireRegion; deconvolving: boolean; read: number }[];
}

export type MakeBytes = (copy: Uint8Array) => Uint8Array;

/** Sequential little-endian reader over a copy of the module's answer. */
export class WireReader {
  private pos = 0;
  private readonly view: DataView;

  constructor(private readonly buf: Uint8Array, private readonly makeBytes: MakeBytes) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  u8(): number { return this.view.getUint8(this.pos++); }
  bool(): boolean { return this.u8() !== 0; }
  i32(): number { const v = this.view.getInt32(this.pos, true); this.pos += 4; return v; }
  u32(): number { const v = this.view.getUint32(this.pos, true); this.pos += 4; return v; }
  f32(): number { const v = this.view.getFloat32(this.pos, true); this.pos += 4; return v; }

  blob(): Uint8Array {
    const n = this.u32();
    const b = this.buf.slice(this.pos, this.pos + n);
    this.pos += n;
    return b;
  }

  /** Strings the core writes are ASCII (via names, AIM identifiers, outcomes): latin1 is exact. */
  str(): string {
    let s = '';
    for (const c of this.blob()) s += String.fromCharCode(c);
    return s;
  }

  i32s(): Int32Array {
    const a = new Int32Array(this.u32());
    for (let i = 0; i < a.length; i++) a[i] = this.i32();
    return a;
  }

  f32s(count = this.u32()): Float32Array {
    const a = new Float32Array(count);
    for (let i = 0; i < a.length; i++) a[i] = this.f32();
    return a;
  }

  corners(): WirePoint[] {
    const c: WirePoint[] = [];
    for (let k = 0; k < 4; k++) c.push({ x: this.f32(), y: this.f32() });
    return c;
  }

  /** Same members, same order, as the addon's symbolToJs. */
  symbol(): WireSymbol {
    const bytes = this.makeBytes(this.blob());
    const gs1 = this.bool();
    const ecis = Array.from(this.i32s());
    const eciSegments: { offset: number; eci: number }[] = [];
    for (let n = this.u32(); n > 0; n--) eciSegments.push({ offset: this.u32(), eci: this.i32() });
    const index = this.i32();
    const count = this.i32();
    const fileId = this.i32();
    const readerInit = this.bool();
    const macro = this.str();
    return {
      bytes, gs1, ecis, eciSegments,
      structuredAppend: count > 0 ? { index, count, fileId: fileId >= 0 ? fileId : null } : null,
      readerInit,
      macro: macro === '' ? null : macro,
      symbologyId: this.str(),
      rows: this.i32(),
      cols: this.i32(),
      mask: this.i32(),
      errorsCorrected: this.i32(),
      erasuresCorrected: this.i32(),
      ecBudget: this.i32(),
      orientation: this.i32(),
      mirrored: this.bool(),
    };
  }

  reads(): WireRead[] {
    const out: WireRead[] = [];
    for (let n = this.u32(); n > 0; n--) {
      const s = this.symbol();
      out.push(Object.assign(s, { via: this.str(), corners: this.corners() }));
    }
    return out;
  }

  region(): WireRegion {
    return { x0: this.i32(), y0: this.i32(), x1: this.i32(), y1: this.i32() };
  }

  trace(): WireTrace {
    const passes: WireTrace['passes'] = [];
    for (let n = this.u32(); n > 0; n--) {
      const via = this.str();
      const dark = this.bool();
      const region = this.region();
      const scale = this.f32();
      const deconvolving = this.bool();
      const dots = this.f32s(this.u32() * 3);
      const clusters: Int32Array[] = [];
      for (let c = this.u32(); c > 0; c--) clusters.push(this.i32s());
      const lattices: WireTrace['passes'][number]['lattices'] = [];
      for (let l = this.u32(); l > 0; l--) {
        lattices.push({
          cluster: this.i32(), outcome: this.str(), dots: this.f32s(this.u32() * 3),
          row: this.i32s(), col: this.i32s(), rows: this.i32(), cols: this.i32(), pitch: this.f32(),
        });
      }
      passes.push({ via, dark, region, scale, deconvolving, dots, clusters, lattices });
    }
    const hypotheses: WireTrace['hypotheses'] = [];
    for (let n = this.u32(); n > 0; n--) {
      hypotheses.push({
        pass: this.i32(), lattice: this.i32(), rows: this.i32(), cols: this.i32(),
        values: this.f32s(), corners: this.corners(), outcome: this.str(),
      });
    }
    const windows: WireTrace['windows'] = [];
    for (let n = this.u32(); n > 0; n--) {
      windows.push({ region: this.region(), deconvolving: this.bool(), read: this.i32() });
    }
    return { passes, hypotheses, windows };
  }
}

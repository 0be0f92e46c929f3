// Dot circles for the inspect pictures, drawn straight into an RGBA layer that sharp composites.
// A textured photo gives tens of thousands of dot candidates: as SVG circles librsvg takes
// seconds for them, this loop a small fraction of that (bench/RESULTS.md, "Figures behind code
// comments"). Text, lines and boxes stay SVG (inspect-draw.ts): there are few of them.

export type Rgb = readonly [number, number, number];

export class CircleLayer {
  /** Straight (not premultiplied) RGBA, as sharp reads a raw 4-channel composite input. */
  readonly data: Buffer;

  constructor(readonly width: number, readonly height: number) {
    this.data = Buffer.alloc(width * height * 4);
  }

  /**
   * A circle outline of radius r and stroke width w around (cx, cy), in layer pixels, with
   * one-pixel soft edges; `fillAlpha` > 0 also tints its inside.
   */
  circle(cx: number, cy: number, r: number, w: number, rgb: Rgb, opacity = 1, fillAlpha = 0): void {
    const outer = r + w / 2 + 1;
    const x0 = Math.max(0, Math.floor(cx - outer)), x1 = Math.min(this.width - 1, Math.ceil(cx + outer));
    const y0 = Math.max(0, Math.floor(cy - outer)), y1 = Math.min(this.height - 1, Math.ceil(cy + outer));
    for (let y = y0; y <= y1; y++) {
      const dy = y + 0.5 - cy;
      for (let x = x0; x <= x1; x++) {
        const dx = x + 0.5 - cx;
        const d = Math.sqrt(dx * dx + dy * dy);
        // Coverage of this pixel by the ring: 1 inside the stroke, fading over one pixel at its edges.
        let a = Math.min(1, Math.max(0, w / 2 + 0.5 - Math.abs(d - r))) * opacity;
        if (fillAlpha > 0 && d < r) a = Math.max(a, fillAlpha);
        if (a > 0) this.blend((y * this.width + x) * 4, rgb, a);
      }
    }
  }

  /** Porter-Duff "over" of one colour onto the layer pixel at byte offset i. */
  private blend(i: number, rgb: Rgb, a: number): void {
    const d = this.data;
    const da = d[i + 3] / 255;
    const oa = a + da * (1 - a);
    for (let k = 0; k < 3; k++) d[i + k] = Math.round((rgb[k] * a + d[i + k] * da * (1 - a)) / oa);
    d[i + 3] = Math.round(oa * 255);
  }
}

/** HSL (degrees, 0-1, 0-1) to RGB, for colours that must be the same in the layer and in SVG text. */
export function hsl(h: number, s: number, l: number): Rgb {
  const k = (n: number) => (n + h / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => Math.round(255 * (l - a * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1))));
  return [f(0), f(8), f(4)];
}

export function css(rgb: Rgb): string {
  return `rgb(${rgb[0]},${rgb[1]},${rgb[2]})`;
}

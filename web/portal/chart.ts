// Daily scans bar chart drawn on a canvas (no chart library: a few dozen bars do not need one).

export interface DayCount { date: string; scans: number }

/** A "nice" axis maximum (1, 2 or 5 times a power of ten) at or above `v`. */
function niceMax(v: number): number {
  if (v <= 5) return 5;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

/**
 * Draws the bars at the canvas's CSS size times devicePixelRatio (sharp on phones).
 * Records what it drew in data attributes (bars, max) so a test can check it without pixels.
 */
export function drawDailyChart(canvas: HTMLCanvasElement, days: DayCount[]): void {
  const dpr = window.devicePixelRatio || 1;
  const cssW = canvas.clientWidth || 600;
  const cssH = canvas.clientHeight || 260;
  canvas.width = Math.round(cssW * dpr);
  canvas.height = Math.round(cssH * dpr);
  const g = canvas.getContext('2d');
  if (!g) return;
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, cssW, cssH);

  const styles = getComputedStyle(document.documentElement);
  const brand = styles.getPropertyValue('--brand').trim() || '#0b6bcb';
  const muted = styles.getPropertyValue('--muted').trim() || '#5d6b7c';
  const line = styles.getPropertyValue('--line').trim() || '#dfe4ea';

  const left = 44, right = 8, top = 10, bottom = 26;
  const w = cssW - left - right;
  const h = cssH - top - bottom;
  const maxVal = niceMax(Math.max(0, ...days.map((d) => d.scans)));

  g.font = '11px system-ui, sans-serif';
  g.textBaseline = 'middle';
  g.textAlign = 'right';
  for (let i = 0; i <= 4; i++) {
    const v = (maxVal * i) / 4;
    const y = top + h - (h * i) / 4;
    g.strokeStyle = line;
    g.lineWidth = 1;
    g.beginPath();
    g.moveTo(left, Math.round(y) + 0.5);
    g.lineTo(left + w, Math.round(y) + 0.5);
    g.stroke();
    g.fillStyle = muted;
    g.fillText(v >= 1000 ? `${v / 1000}k` : String(v), left - 6, y);
  }

  let bars = 0;
  if (days.length) {
    const slot = w / days.length;
    const barW = Math.max(2, Math.min(28, slot * 0.7));
    g.textAlign = 'center';
    g.textBaseline = 'top';
    const labelEvery = Math.ceil(days.length / Math.max(1, Math.floor(w / 48)));
    days.forEach((d, i) => {
      const x = left + slot * i + (slot - barW) / 2;
      const bh = (d.scans / maxVal) * h;
      if (d.scans > 0) {
        g.fillStyle = brand;
        const r = Math.min(3, barW / 2, bh);
        g.beginPath();
        g.moveTo(x, top + h);
        g.lineTo(x, top + h - bh + r);
        g.quadraticCurveTo(x, top + h - bh, x + r, top + h - bh);
        g.lineTo(x + barW - r, top + h - bh);
        g.quadraticCurveTo(x + barW, top + h - bh, x + barW, top + h - bh + r);
        g.lineTo(x + barW, top + h);
        g.closePath();
        g.fill();
        bars++;
      }
      if (i % labelEvery === 0) {
        g.fillStyle = muted;
        g.fillText(d.date.slice(5), x + barW / 2, top + h + 6);
      }
    });
  } else {
    g.fillStyle = muted;
    g.textAlign = 'center';
    g.fillText('No scans yet this period', left + w / 2, top + h / 2);
  }
  canvas.dataset.bars = String(bars);
  canvas.dataset.max = String(maxVal);
}

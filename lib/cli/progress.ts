// A one-line progress bar on stderr, for terminals only (the caller decides: never with --json,
// never when stderr is piped). Redrawn at most every 100 ms so it costs nothing next to decoding.
export class Progress {
  private last = 0;
  private shown = false;
  private readonly t0 = Date.now();

  constructor(private readonly out: NodeJS.WritableStream & { columns?: number }, private readonly total: number) {}

  update(done: number): void {
    const now = Date.now();
    if (done < this.total && now - this.last < 100) return;
    this.last = now;
    const width = Math.max(10, Math.min(40, (this.out.columns ?? 80) - 40));
    const filled = Math.round((done / this.total) * width);
    const rate = done / Math.max(0.001, (now - this.t0) / 1000);
    this.out.write(`\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${this.total} ${rate.toFixed(1)} files/s`);
    this.shown = true;
  }

  clear(): void {
    if (!this.shown) return;
    this.out.write('\r\x1b[2K');
    this.shown = false;
  }
}

// A fair budget of megapixels being decoded at once (issue 16, item 4: pixel bombs).
//
// A 7000x5600 single-colour PNG is 125 KB on the wire and 39 megapixels in memory; twelve of them
// decoded at once held 1.5 GB and delayed every other customer by over a second. Each decode
// asks the gate for its pixel count first:
//   - the pixels decoded at once stay under `budget` (one decode always runs, however big);
//   - one tenant (customer, licence) holds at most `perTenant` of it, so another tenant's small
//     images always find room beside one tenant's bombs and never queue behind them;
//   - waiters are served round-robin across tenants (first come first served within a tenant),
//     so a tenant with a long queue gets its turn like everyone else, not every turn;
//   - a tenant may have at most `maxWaiting` decodes waiting; more are refused (429) at once.
export class PixelGateFull extends Error {
  constructor(readonly waiting: number) {
    super(`${waiting} images of this customer are already waiting to be decoded`);
    this.name = 'PixelGateFull';
  }
}

interface Waiter { cost: number; admit: () => void }
interface Tenant { inFlight: number; queue: Waiter[] }

export interface GateOptions {
  /** pixels decoded at once, all tenants together */
  budget: number;
  /** pixels decoded at once for one tenant */
  perTenant: number;
  /** decodes one tenant may have waiting */
  maxWaiting: number;
}

export class PixelGate {
  private inFlight = 0;
  private running = 0;
  private tenants = new Map<string, Tenant>();
  /** tenants with waiters, in the order they get their next turn */
  private rotation: string[] = [];
  private idleWaiters: (() => void)[] = [];
  /** the largest total of pixels decoded at once so far (exposed in /metrics) */
  peak = 0;

  constructor(readonly o: GateOptions) {}

  /** Runs `fn` once `pixels` fit in the budget; throws PixelGateFull when the tenant's queue is full. */
  async run<T>(tenant: string, pixels: number, fn: () => Promise<T>): Promise<T> {
    const cost = Math.max(1, Math.round(pixels));
    await this.acquire(tenant, cost);
    try {
      return await fn();
    } finally {
      this.release(tenant, cost);
    }
  }

  /** Pixels being decoded now, and decodes waiting. */
  get load(): { pixels: number; running: number; waiting: number } {
    let waiting = 0;
    for (const t of this.tenants.values()) waiting += t.queue.length;
    return { pixels: this.inFlight, running: this.running, waiting };
  }

  /** Resolves when nothing runs and nothing waits. */
  idle(): Promise<void> {
    if (this.running === 0 && this.rotation.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private tenant(id: string): Tenant {
    let t = this.tenants.get(id);
    if (!t) { t = { inFlight: 0, queue: [] }; this.tenants.set(id, t); }
    return t;
  }

  private fits(t: Tenant, cost: number): boolean {
    const overall = this.running === 0 || this.inFlight + cost <= this.o.budget;
    const own = t.inFlight === 0 || t.inFlight + cost <= this.o.perTenant;
    return overall && own;
  }

  private acquire(id: string, cost: number): Promise<void> {
    const t = this.tenant(id);
    if (t.queue.length === 0 && this.fits(t, cost)) {
      this.take(t, cost);
      return Promise.resolve();
    }
    if (t.queue.length >= this.o.maxWaiting) return Promise.reject(new PixelGateFull(t.queue.length));
    return new Promise((resolve) => {
      t.queue.push({ cost, admit: resolve });
      if (!this.rotation.includes(id)) this.rotation.push(id);
    });
  }

  private take(t: Tenant, cost: number): void {
    t.inFlight += cost;
    this.inFlight += cost;
    this.running++;
    if (this.inFlight > this.peak) this.peak = this.inFlight;
  }

  private release(id: string, cost: number): void {
    const t = this.tenant(id);
    t.inFlight -= cost;
    this.inFlight -= cost;
    this.running--;
    this.admitWaiting();
    if (t.inFlight === 0 && t.queue.length === 0) this.tenants.delete(id);
    if (this.running === 0 && this.rotation.length === 0) {
      for (const w of this.idleWaiters.splice(0)) w();
    }
  }

  /** One pass over the rotation: each tenant whose next waiter fits is admitted, then goes last. */
  private admitWaiting(): void {
    let progress = true;
    while (progress && this.rotation.length) {
      progress = false;
      for (const id of [...this.rotation]) {
        const t = this.tenants.get(id)!;
        const w = t.queue[0];
        if (!this.fits(t, w.cost)) continue;
        t.queue.shift();
        this.take(t, w.cost);
        this.rotation.splice(this.rotation.indexOf(id), 1);
        if (t.queue.length) this.rotation.push(id);
        w.admit();
        progress = true;
      }
    }
  }
}

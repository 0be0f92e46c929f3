// The frame queue of every camera socket (/v1/live and the Live Scanner's /v1/scanner/live).
//
// One policy for both: frames are decoded one at a time per socket; while one decodes, at most
// `maxWaiting` wait. When another arrives, the OLDEST waiting frame is answered with the socket's
// "dropped" answer without being decoded (or charged): a camera wants its newest frame read, not
// a growing backlog. Every frame gets exactly one answer and answers leave strictly in the order
// the frames came, whichever finishes first. An answer may carry a close code: it is sent, the
// socket is closed with it, and nothing after it is answered.

/** What a socket sends for one frame; `close` ends the socket right after it. */
export interface FrameAnswer {
  body: object;
  close?: { code: number; reason: string };
}

export interface FrameQueueOptions<F> {
  /** Frames allowed to wait behind the one being decoded. */
  maxWaiting: number;
  /** Decodes one frame; null = nothing to send for it (the socket is going away). */
  decode: (frame: F) => Promise<FrameAnswer | null>;
  /** The answer of a frame skipped by the drop rule. */
  dropped: () => FrameAnswer;
  /** Writes one answer to the socket. */
  send: (body: object) => void;
  /** Closes the socket after an answer that says so. */
  close: (code: number, reason: string) => void;
  /** Told of each dropped frame (metrics). */
  onDrop?: () => void;
}

interface Slot { answer: FrameAnswer | null; settled: boolean }

export class FrameQueue<F> {
  private slots: Slot[] = [];
  private waiting: { slot: Slot; frame: F }[] = [];
  private busy = false;
  private stopped = false;

  constructor(private readonly o: FrameQueueOptions<F>) {}

  /** Queues a frame for decoding (dropping the oldest waiting one when the queue is full). */
  push(frame: F): void {
    if (this.stopped) return;
    const slot = this.takeTurn();
    if (this.waiting.length >= this.o.maxWaiting) {
      const oldest = this.waiting.shift()!;
      this.settle(oldest.slot, this.o.dropped());
      this.o.onDrop?.();
    }
    this.waiting.push({ slot, frame });
    this.flush();
    void this.pump();
  }

  /** Answers a message at once, in its turn among the frames (a text message where a frame was due). */
  answer(answer: FrameAnswer): void {
    if (this.stopped) return;
    this.settle(this.takeTurn(), answer);
  }

  /** No more answers (the socket closed): waiting frames are forgotten, never decoded. */
  stop(): void {
    this.stopped = true;
    this.waiting.length = 0;
  }

  /** The next place in the answer order. */
  private takeTurn(): Slot {
    const slot: Slot = { answer: null, settled: false };
    this.slots.push(slot);
    return slot;
  }

  private settle(slot: Slot, answer: FrameAnswer | null): void {
    slot.answer = answer;
    slot.settled = true;
    this.flush();
  }

  private async pump(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      while (this.waiting.length && !this.stopped) {
        const { slot, frame } = this.waiting.shift()!;
        let answer: FrameAnswer | null;
        try {
          answer = await this.o.decode(frame);
        } catch {
          answer = this.o.dropped(); // the decode callback reports its own failures; one answer per frame regardless
        }
        this.settle(slot, answer);
      }
    } finally {
      this.busy = false;
    }
  }

  /** Sends every answer whose turn has come. */
  private flush(): void {
    while (this.slots.length && this.slots[0].settled && !this.stopped) {
      const { answer } = this.slots.shift()!;
      if (!answer) continue;
      this.o.send(answer.body);
      if (answer.close) {
        this.stop();
        this.o.close(answer.close.code, answer.close.reason);
      }
    }
  }
}

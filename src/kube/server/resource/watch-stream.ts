// The chunked response of one watch: headers before the first line, and one close for every way
// a watch ends (timeout, either side going away, an expired resourceVersion, a slow reader).
//
// Lines are shared by every watcher (watch-lines.ts), so what a watcher has not yet sent is kept
// as references to them and handed to the socket a piece at a time as it drains: TLS encrypts
// whatever it is given at once into a copy of its own, so writing a 1 MB event to 2,000 sockets
// that have not read it yet would otherwise cost 2 GB of ciphertext.
import type { ServerResponse } from 'node:http';

/** A watcher further behind than this is closed (it relists), as kube's watch cache drops one it cannot keep up with. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;
/** How much of a line is handed to the socket at once. */
const PIECE_BYTES = 64 * 1024;

export class WatchStream {
  private closed = false;
  private readonly cleanups: Array<() => void> = [];
  /** Lines not yet handed to the socket; the first from `offset` on. */
  private readonly pending: Buffer[] = [];
  private offset = 0;
  private pendingBytes = 0;
  private waitingForDrain = false;
  private owedFlushes = 0;

  constructor(private readonly res: ServerResponse) {}

  get isClosed(): boolean {
    return this.closed;
  }

  /** Runs `cleanup` when the stream closes, in registration order. */
  onClose(cleanup: () => void): void {
    this.cleanups.push(cleanup);
  }

  begin(): void {
    if (this.res.headersSent) return;
    this.res.writeHead(200, {
      'Content-Type': 'application/json',
      'Transfer-Encoding': 'chunked',
      'Cache-Control': 'no-cache, private',
    });
    this.res.flushHeaders();
  }

  /** `line` may be shared with other watchers: it is only ever read. */
  write(line: Buffer): void {
    this.begin();
    if (this.closed) return;
    this.pending.push(line);
    this.pendingBytes += line.length;
    if (this.pendingBytes + this.res.writableLength > MAX_BUFFERED_BYTES) {
      // Too far behind: finish the line being sent (a client must not see half of one) and go.
      this.pending.length = Math.min(this.pending.length, this.offset > 0 ? 1 : 0);
      this.close();
      return;
    }
    this.flush();
  }

  private readonly flush = (): void => {
    this.waitingForDrain = false;
    while (this.pending.length > 0 && !this.res.writableEnded) {
      const head = this.pending[0];
      const end = Math.min(head.length, this.offset + PIECE_BYTES);
      const piece = head.subarray(this.offset, end);
      this.pendingBytes -= piece.length;
      if (end === head.length) {
        this.pending.shift();
        this.offset = 0;
      } else this.offset = end;
      if (!this.res.write(piece)) {
        this.waitingForDrain = true;
        // Every line that arrives while the socket is full earns one more flush at the next
        // 'drain' (so a backlog goes out faster, not a piece per event-loop turn), counted here
        // rather than as one listener each.
        if (this.owedFlushes++ === 0) this.res.once('drain', this.onDrain);
        return;
      }
    }
  };

  private readonly onDrain = (): void => {
    const owed = this.owedFlushes;
    this.owedFlushes = 0;
    for (let i = 0; i < owed && !this.closed; i++) this.flush();
  };

  readonly close = (): void => {
    if (this.closed) return;
    this.closed = true;
    for (const cleanup of this.cleanups) cleanup();
    if (this.res.writableEnded) return;
    // A watch that ends (timeout, shutdown, 410) still delivers what it was given.
    if (this.owedFlushes > 0) this.res.off('drain', this.onDrain);
    if (this.pending.length > 0) {
      this.res.write(this.pending[0].subarray(this.offset));
      for (const line of this.pending.slice(1)) this.res.write(line);
      this.pending.length = 0;
    }
    this.res.end();
  };
}

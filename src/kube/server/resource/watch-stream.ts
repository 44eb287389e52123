// The chunked response of one watch: headers before the first line, and one close for every way
// a watch ends (timeout, either side going away, an expired resourceVersion, a slow reader).
import type { ServerResponse } from 'node:http';

/** A watcher that stops reading must not make the server buffer without bound. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

export class WatchStream {
  private closed = false;
  private readonly cleanups: Array<() => void> = [];

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

  write(line: string): void {
    this.begin();
    if (this.closed) return;
    this.res.write(line);
    if (this.res.writableLength > MAX_BUFFERED_BYTES) this.close();
  }

  readonly close = (): void => {
    if (this.closed) return;
    this.closed = true;
    for (const cleanup of this.cleanups) cleanup();
    if (!this.res.writableEnded) this.res.end();
  };
}

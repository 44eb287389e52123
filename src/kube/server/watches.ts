// Open watch streams, so tests and shutdown can cut them from the server side.
import type { ServerResponse } from 'node:http';

export class WatchRegistry {
  private readonly open = new Map<ServerResponse, () => void>();

  add(res: ServerResponse, close: () => void): () => void {
    this.open.set(res, close);
    return () => this.open.delete(res);
  }

  get size(): number {
    return this.open.size;
  }

  /** Cuts every open watch's socket, as a network failure or an apiserver restart would. */
  dropAll(): void {
    for (const [res, close] of [...this.open]) {
      res.socket?.destroy();
      close();
    }
  }

  /** Ends every watch cleanly (server shutdown). */
  closeAll(): void {
    for (const close of [...this.open.values()]) close();
  }
}

// A watch over raw HTTPS that keeps each event's exact bytes, can stop reading (a client that
// falls behind) and tells when the server ended the stream.
import { request } from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { TestCluster } from '../../../helpers/control-plane.ts';
import { waitFor } from '../../../helpers/wait.ts';

export interface RawWatch {
  status: number;
  /** Each event line as sent, newline excluded. */
  lines: Buffer[];
  ended: boolean;
  /** Stops reading: the socket's buffers fill and the server's writes queue up. */
  pause(): void;
  resume(): void;
  close(): void;
  /** Waits until `n` lines have arrived. */
  waitForLines(n: number, timeoutMs?: number): Promise<void>;
}

export function openWatch(cp: TestCluster, path: string, token = cp.token): Promise<RawWatch> {
  return new Promise((resolve, reject) => {
    const req = request(`${cp.url}${path}`, { ca: cp.caPem, headers: { Authorization: `Bearer ${token}` } });
    req.on('error', reject);
    req.on('response', (res: IncomingMessage) => {
      let pending = Buffer.alloc(0);
      const w: RawWatch = {
        status: res.statusCode ?? 0,
        lines: [],
        ended: false,
        pause: () => res.pause(),
        resume: () => res.resume(),
        close: () => req.destroy(),
        waitForLines: (n, timeoutMs = 20_000) =>
          waitFor(() => w.lines.length >= n, `${n} watch events on ${path} (got ${w.lines.length})`, timeoutMs),
      };
      res.on('data', (chunk: Buffer) => {
        pending = Buffer.concat([pending, chunk]);
        for (let nl = pending.indexOf(10); nl >= 0; nl = pending.indexOf(10)) {
          w.lines.push(pending.subarray(0, nl));
          pending = pending.subarray(nl + 1);
        }
      });
      const end = (): void => {
        w.ended = true;
      };
      res.on('end', end);
      res.on('close', end);
      res.on('error', end);
      resolve(w);
    });
    req.end();
  });
}

// Load generator: `concurrency` keep-alive HTTPS clients, each sending its next request as soon as
// the previous answer is read, for `durationMs` after a `warmupMs` warm-up. In `body`, "__N__" is
// replaced with a per-request counter (unique names for CREATE).
import { Agent, request } from 'node:https';
import { nowMs, percentile, workerMain } from '../common.ts';

export interface LoadInput {
  url: string;
  caPem: string;
  token?: string;
  method: string;
  path: string;
  body?: string;
  concurrency: number;
  durationMs: number;
  warmupMs: number;
  expectStatus: number;
}

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  bytesPerResponse: number;
  firstError?: string;
}

workerMain<LoadInput, LoadResult>(async (input) => {
  const u = new URL(input.path, input.url);
  const agent = new Agent({ keepAlive: true, maxSockets: input.concurrency, ca: input.caPem });
  let counter = 0;
  let measuring = false;
  let stop = false;
  let requests = 0;
  let errors = 0;
  let bytes = 0;
  let firstError: string | undefined;
  const latencies: number[] = [];

  const one = (): Promise<void> =>
    new Promise((resolve) => {
      const n = counter++;
      const payload = input.body?.replaceAll('__N__', String(n));
      const t0 = nowMs();
      const req = request(
        {
          agent,
          method: input.method,
          hostname: u.hostname,
          port: u.port,
          path: u.pathname + u.search,
          headers: {
            accept: 'application/json',
            ...(input.token ? { authorization: `Bearer ${input.token}` } : {}),
            ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
          },
        },
        (res) => {
          let len = 0;
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => {
            len += c.length;
            if (res.statusCode !== input.expectStatus) chunks.push(c);
          });
          res.on('end', () => {
            if (measuring) {
              if (res.statusCode === input.expectStatus) {
                requests++;
                bytes += len;
                latencies.push(nowMs() - t0);
              } else {
                errors++;
                firstError ??= `HTTP ${res.statusCode}: ${Buffer.concat(chunks).toString('utf8').slice(0, 200)}`;
              }
            }
            resolve();
          });
        },
      );
      req.on('error', (e) => {
        if (measuring) {
          errors++;
          firstError ??= e.message;
        }
        resolve();
      });
      if (payload) req.write(payload);
      req.end();
    });

  const loop = async (): Promise<void> => {
    while (!stop) await one();
  };
  const loops = Array.from({ length: input.concurrency }, loop);
  await new Promise((r) => setTimeout(r, input.warmupMs));
  measuring = true;
  const t0 = nowMs();
  await new Promise((r) => setTimeout(r, input.durationMs));
  measuring = false;
  const seconds = (nowMs() - t0) / 1000;
  stop = true;
  await Promise.all(loops);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    requests,
    errors,
    seconds,
    reqPerSec: requests / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    bytesPerResponse: requests ? bytes / requests : 0,
    firstError,
  };
});

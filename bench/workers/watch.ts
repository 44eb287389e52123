// Watch fan-out: opens `watchers` watches on the ConfigMaps of one namespace, then writes `events`
// ConfigMaps (POST) at `ratePerSec`, and measures for each (event, watcher) pair the time from the
// start of the write request to the arrival of its ADDED event on that watcher.
// Receipt is timed when the event's line arrives; the name is located by string search, not a full
// JSON.parse, so this process's parsing cost does not inflate the server's delivery latency.
import { Agent, request } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { eachLine, nowMs, percentile, workerMain } from '../common.ts';
import { configMap } from '../common.ts';

export interface WatchInput {
  url: string;
  caPem: string;
  token: string;
  namespace: string;
  resourceVersion: string;
  watchers: number;
  events: number;
  ratePerSec: number;
  writeConcurrency: number;
}

export interface WatchResult {
  watchers: number;
  events: number;
  deliveries: number;
  expectedDeliveries: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  writeSeconds: number;
  writesPerSec: number;
  writeErrors: number;
}

workerMain<WatchInput, WatchResult>(async (input) => {
  const u = new URL(input.url);
  const headers = { accept: 'application/json', authorization: `Bearer ${input.token}` };
  const watchAgent = new Agent({ keepAlive: true, maxSockets: input.watchers + 1, ca: input.caPem });
  const writeAgent = new Agent({ keepAlive: true, maxSockets: input.writeConcurrency, ca: input.caPem });
  const sentAt = new Float64Array(input.events);
  const latencies = new Float64Array(input.events * input.watchers);
  let deliveries = 0;
  let allDelivered: () => void = () => {};
  const done = new Promise<void>((r) => (allDelivered = r));
  const expected = input.events * input.watchers;
  const responses: IncomingMessage[] = [];

  const marker = '"name":"w-';
  const openWatch = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const path = `/api/v1/namespaces/${input.namespace}/configmaps?watch=1&resourceVersion=${input.resourceVersion}&timeoutSeconds=600`;
      const req = request({ agent: watchAgent, hostname: u.hostname, port: u.port, path, headers }, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`watch: HTTP ${res.statusCode}`));
        responses.push(res);
        eachLine(res, (line, t) => {
          if (!line.startsWith('{"type":"ADDED"')) return;
          const at = line.indexOf(marker);
          if (at < 0) return;
          const i = Number.parseInt(line.slice(at + marker.length, line.indexOf('"', at + marker.length)), 10);
          latencies[deliveries++] = t - sentAt[i];
          if (deliveries === expected) allDelivered();
        });
        resolve();
      });
      req.on('error', reject);
      req.end();
    });
  await Promise.all(Array.from({ length: input.watchers }, openWatch));

  // Paced writes: every tick, send the writes due by now (with at most writeConcurrency in flight).
  let writeErrors = 0;
  let next = 0;
  let inFlight = 0;
  const t0 = nowMs();
  await new Promise<void>((resolveWrites) => {
    const write = (i: number): void => {
      inFlight++;
      const body = JSON.stringify(configMap(`w-${i}`, input.namespace, i));
      sentAt[i] = nowMs();
      const req = request(
        {
          agent: writeAgent,
          method: 'POST',
          hostname: u.hostname,
          port: u.port,
          path: `/api/v1/namespaces/${input.namespace}/configmaps`,
          headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode !== 201) writeErrors++;
            inFlight--;
            pump();
          });
        },
      );
      req.on('error', () => {
        writeErrors++;
        inFlight--;
        pump();
      });
      req.end(body);
    };
    const pump = (): void => {
      const due = Math.min(input.events, Math.floor(((nowMs() - t0) / 1000) * input.ratePerSec) + 1);
      while (next < due && inFlight < input.writeConcurrency) write(next++);
      if (next >= input.events && inFlight === 0) {
        clearInterval(timer);
        resolveWrites();
      }
    };
    const timer = setInterval(pump, 2);
    pump();
  });
  const writeSeconds = (nowMs() - t0) / 1000;
  await Promise.race([done, new Promise((r) => setTimeout(r, 60_000))]);
  for (const r of responses) r.destroy();
  watchAgent.destroy();
  writeAgent.destroy();
  const sorted = Array.from(latencies.subarray(0, deliveries)).sort((a, b) => a - b);
  return {
    watchers: input.watchers,
    events: input.events,
    deliveries,
    expectedDeliveries: expected,
    p50Ms: percentile(sorted, 50),
    p90Ms: percentile(sorted, 90),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted[sorted.length - 1] ?? NaN,
    writeSeconds,
    writesPerSec: input.events / writeSeconds,
    writeErrors,
  };
});

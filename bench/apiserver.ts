// API server benchmarks: request throughput (GET one, LIST 1,000, CREATE) against the embedded
// control plane and against a bare node:https keep-alive server returning a fixed JSON body of the
// same size (the practical ceiling of node:https on this machine), watch fan-out latency, and the
// memory cost of stored objects. The servers run in this process; load generators and watchers run
// in child processes so they do not share the server's thread.
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { startControlPlane } from '../src/kube/index.ts';
import { generateServingCertificates } from '../src/kube/server/tls.ts';
import { configMap, mustCall, round, runWorker } from './common.ts';
import type { Endpoint } from './common.ts';
import { ensureNamespace, seedConfigMaps } from './seed.ts';
import type { LoadInput, LoadResult } from './workers/load.ts';
import type { WatchInput, WatchResult } from './workers/watch.ts';
import type { MemoryInput, MemoryResult } from './workers/apiserver-memory.ts';

export interface ThroughputRow {
  op: 'GET' | 'LIST' | 'CREATE';
  description: string;
  responseBytes: number;
  ours: LoadResult;
  bare: LoadResult;
  ratio: number;
  target: number;
  met: boolean | null;
}

export interface ApiserverResults {
  settings: { concurrency: number; durationMs: number; warmupMs: number };
  throughput: ThroughputRow[];
  watch: WatchResult & { ratePerSec: number; targetP99Ms: number; met: boolean };
  memory: MemoryResult & { target: number; met: boolean; path: string };
  /** The same with V8's young generation capped (`--max-semi-space-size=1`): what a user can set. */
  memorySmallYoung: MemoryResult & { flag: string };
}

/** A node flag that trades some allocation speed for RSS: the young generation's semi-spaces capped at 1 MiB. */
const SMALL_YOUNG_FLAG = '--max-semi-space-size=1';

const CONCURRENCY = 16;
const DURATION_MS = 5_000;
const WARMUP_MS = 1_000;

interface Op {
  op: ThroughputRow['op'];
  description: string;
  method: string;
  path: string;
  body?: string;
  status: number;
  target: number;
}

/** A bare node:https server with keep-alive: reads the request, answers with a fixed body. */
async function startBare(bodies: {
  get: string;
  list: string;
  create: string;
}): Promise<{ ep: Endpoint; close: () => Promise<void> }> {
  const certs = generateServingCertificates(['127.0.0.1']);
  const server = createServer(
    { cert: certs.serving.certPem, key: certs.serving.keyPem, keepAliveTimeout: 65_000 },
    (req, res) => {
      req.resume();
      req.on('end', () => {
        let body = bodies.list;
        let status = 200;
        if (req.method === 'POST') {
          body = bodies.create;
          status = 201;
        } else if (req.url?.includes('/configmaps/')) body = bodies.get;
        res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      });
    },
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    ep: { url: `https://127.0.0.1:${port}`, caPem: certs.ca.certPem },
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

function load(ep: Endpoint, op: Op): Promise<LoadResult> {
  const input: LoadInput = {
    url: ep.url,
    caPem: ep.caPem,
    token: ep.token,
    method: op.method,
    path: op.path,
    body: op.body,
    concurrency: CONCURRENCY,
    durationMs: DURATION_MS,
    warmupMs: WARMUP_MS,
    expectStatus: op.status,
  };
  return runWorker<LoadResult>('load.ts', input, { timeoutMs: 60_000 });
}

export async function runApiserver(log: (s: string) => void): Promise<ApiserverResults> {
  const cp = await startControlPlane();
  const ours: Endpoint = { url: cp.url, caPem: cp.caPem, token: cp.token };
  try {
    await seedConfigMaps(cp, 'bench-get', 1, 'one-');
    await seedConfigMaps(cp, 'bench-list', 1_000);
    await ensureNamespace(cp, 'bench-create');
    await ensureNamespace(cp, 'bench-watch');

    const createBody = JSON.stringify(configMap('c-__N__', 'bench-create'));
    const ops: Op[] = [
      {
        op: 'GET',
        description: 'GET one ConfigMap',
        method: 'GET',
        path: '/api/v1/namespaces/bench-get/configmaps/one-0',
        status: 200,
        target: 0.5,
      },
      {
        op: 'LIST',
        description: 'LIST 1,000 ConfigMaps',
        method: 'GET',
        path: '/api/v1/namespaces/bench-list/configmaps',
        status: 200,
        target: NaN,
      },
      {
        op: 'CREATE',
        description: 'CREATE one ConfigMap',
        method: 'POST',
        path: '/api/v1/namespaces/bench-create/configmaps',
        body: createBody,
        status: 201,
        target: 0.3,
      },
    ];
    // Bodies of the same size as our responses, for the bare server.
    const bodies = {
      get: await mustCall(ours, 'GET', ops[0].path),
      list: await mustCall(ours, 'GET', ops[1].path),
      create: await mustCall(ours, 'POST', ops[2].path, JSON.parse(createBody.replace('__N__', 'probe'))),
    };
    const bare = await startBare(bodies);
    const sizes = {
      GET: Buffer.byteLength(bodies.get),
      LIST: Buffer.byteLength(bodies.list),
      CREATE: Buffer.byteLength(bodies.create),
    };

    const throughput: ThroughputRow[] = [];
    try {
      for (const op of ops) {
        log(`apiserver: ${op.description}: ours`);
        const o = await load(ours, op);
        log(`apiserver: ${op.description}: bare node:https`);
        const b = await load(bare.ep, op);
        const ratio = o.reqPerSec / b.reqPerSec;
        throughput.push({
          op: op.op,
          description: op.description,
          responseBytes: sizes[op.op],
          ours: o,
          bare: b,
          ratio,
          target: op.target,
          met: Number.isNaN(op.target) ? null : ratio >= op.target,
        });
        log(`  ours ${round(o.reqPerSec)} req/s, bare ${round(b.reqPerSec)} req/s, ratio ${round(ratio * 100)} %`);
      }
    } finally {
      await bare.close();
    }

    log('apiserver: watch fan-out (100 watchers, 10,000 events)');
    const listed = JSON.parse(await mustCall(ours, 'GET', '/api/v1/namespaces/bench-watch/configmaps')) as {
      metadata: { resourceVersion: string };
    };
    const ratePerSec = 1_000;
    const watchInput: WatchInput = {
      url: cp.url,
      caPem: cp.caPem,
      token: cp.token,
      namespace: 'bench-watch',
      resourceVersion: listed.metadata.resourceVersion,
      watchers: 100,
      events: 10_000,
      ratePerSec,
      writeConcurrency: 16,
    };
    const w = await runWorker<WatchResult>('watch.ts', watchInput, { timeoutMs: 180_000 });
    log(
      `  p50 ${round(w.p50Ms, 2)} ms, p99 ${round(w.p99Ms, 2)} ms, ${w.deliveries}/${w.expectedDeliveries} delivered`,
    );

    await cp.stop();

    log('apiserver: memory of 100,000 stored ConfigMaps (child process, --expose-gc)');
    const m = await runWorker<MemoryResult>('apiserver-memory.ts', { count: 100_000 } satisfies MemoryInput, {
      nodeFlags: ['--expose-gc'],
      timeoutMs: 300_000,
    });
    log(
      `  heap +${round(m.heapGrowthBytes / 2 ** 20)} MiB, RSS +${round(m.rssGrowthBytes / 2 ** 20)} MiB for ${round(m.storedJsonBytes / 2 ** 20)} MiB of JSON`,
    );
    log(`apiserver: the same with ${SMALL_YOUNG_FLAG}`);
    const small = await runWorker<MemoryResult>('apiserver-memory.ts', { count: 100_000 } satisfies MemoryInput, {
      nodeFlags: ['--expose-gc', SMALL_YOUNG_FLAG],
      timeoutMs: 300_000,
    });
    log(`  RSS ${round(small.rssAfterBytes / 2 ** 20)} MiB (default ${round(m.rssAfterBytes / 2 ** 20)} MiB)`);

    return {
      settings: { concurrency: CONCURRENCY, durationMs: DURATION_MS, warmupMs: WARMUP_MS },
      throughput,
      watch: { ...w, ratePerSec, targetP99Ms: 100, met: w.p99Ms < 100 && w.deliveries === w.expectedDeliveries },
      memory: {
        ...m,
        target: 2,
        met: m.heapRatio <= 2 && m.rssRatio <= 2,
        path: 'internals.store.create (defaulting, admission, validation, managedFields, storage; no HTTP)',
      },
      memorySmallYoung: { ...small, flag: SMALL_YOUNG_FLAG },
    };
  } finally {
    await cp.stop();
  }
}

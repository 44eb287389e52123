// InformerFactory.stop() against the embedded control plane: it must return promptly whatever the
// reflector is doing — right after the sync (the list → watch hand-over), with a quiet watch open,
// and with a paged LIST stuck on the wire (before its headers, and half-way through its body).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { startTestCluster } from '../../helpers/control-plane.ts';
import type { TestCluster } from '../../helpers/control-plane.ts';
import { KubeClient } from '../../../src/runtime/client/client.ts';
import { ConfigMaps, Namespaces } from '../../../src/runtime/client/resources.ts';
import type { KubeObject } from '../../../src/runtime/client/types.ts';
import { InformerFactory } from '../../../src/runtime/cache/factory.ts';
import { listWatchFor } from '../../../src/runtime/cache/list-watch.ts';
import { silentLogger } from '../../../src/runtime/util/logger.ts';
import { eventually, pool } from './helpers.ts';

/** Far below the watchdog (70 s), the watch timeout (≥ 300 s) and the request timeout (60 s). */
const PROMPT_MS = 2_000;

let cp: TestCluster;
let client: KubeClient;
const NS = 'stop-test';
const OBJECTS = 300;

before(async () => {
  cp = await startTestCluster();
  client = KubeClient.fromKubeconfigString(cp.kubeconfig, { logger: silentLogger(), metricsRegistry: null });
  await client.create(Namespaces, { metadata: { name: NS } });
  // The namespace's ConfigMaps: kube-root-ca.crt (the root CA publisher's) and OBJECTS of ours.
  await eventually(async () => !!(await client.get(ConfigMaps, 'kube-root-ca.crt', NS)), 'kube-root-ca.crt');
  const names = Array.from({ length: OBJECTS }, (_, i) => `cm-${i}`);
  await pool(names, 16, (name) =>
    client.create<KubeObject>(ConfigMaps, { metadata: { name, namespace: NS }, data: { k: name } }),
  );
});

after(async () => {
  client?.close();
  await cp?.stop();
});

/** Resolves with how long `p` took, or rejects when it takes longer than `ms` (instead of hanging the suite). */
async function within(p: Promise<unknown>, ms: number, what: string): Promise<number> {
  const t0 = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not return within ${ms} ms`)), ms);
  });
  try {
    await Promise.race([p, late]);
    return performance.now() - t0;
  } finally {
    clearTimeout(timer);
  }
}

function quietFactory(c: KubeClient, extra: ConstructorParameters<typeof InformerFactory>[1] = {}): InformerFactory {
  return new InformerFactory(c, { logger: silentLogger(), metricsRegistry: null, ...extra });
}

test('stop() right after waitForSync returns at once (stop lands between the list and the watch)', async () => {
  // The informer resolves waitForSync from inside the list's last step, so this stop() runs before the
  // reflector has opened its watch: the watch must see the stop, not wait for the watchdog (70 s).
  for (let round = 0; round < 3; round++) {
    const factory = quietFactory(client);
    const inf = factory.informerFor(ConfigMaps, { namespace: NS });
    factory.start();
    await inf.waitForSync(undefined, 10_000);
    assert.equal(inf.size(), OBJECTS + 1);
    await within(factory.stop(), PROMPT_MS, `stop() in round ${round}`);
  }
});

test('stop() returns promptly while a quiet watch is open', async () => {
  let opened = 0;
  const factory = quietFactory(client, {
    listerWatcher: (type, scope) => {
      const lw = listWatchFor<KubeObject>(client, type, scope);
      return { list: lw.list, watch: (call) => lw.watch({ ...call, onOpen: () => (opened++, call.onOpen()) }) };
    },
  });
  const inf = factory.informerFor(ConfigMaps, { namespace: NS });
  factory.start();
  await inf.waitForSync(undefined, 10_000);
  await eventually(() => opened === 1, 'watch open');
  await within(factory.stop(), PROMPT_MS, 'stop() with an open watch');
  assert.equal(inf.isStarted(), false);
});

/**
 * A proxy in front of the control plane that stalls LIST requests of ConfigMaps: `'headers'` never
 * answers the first page; `'body'` answers the first page, then sends the headers and the start of
 * the second page's body and stops there. `stalled` resolves once a stalled request has arrived.
 */
async function stallingProxy(mode: 'headers' | 'body'): Promise<{
  client: KubeClient;
  stalled: Promise<void>;
  close: () => Promise<void>;
}> {
  let onStalled: () => void = () => {};
  const stalled = new Promise<void>((r) => (onStalled = r));
  const proxy = http.createServer((req, res) => {
    const isList = req.url?.includes('/configmaps') && !req.url.includes('watch=');
    if (isList && (mode === 'headers' || req.url?.includes('continue='))) {
      if (mode === 'body') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"kind":"ConfigMapList","apiVersion":"v1","metadata":{},"items":[{"metadata":');
      }
      onStalled();
      return;
    }
    const upstream = https.request(
      `${cp.url}${req.url}`,
      { method: req.method, headers: { ...req.headers, host: new URL(cp.url).host }, ca: cp.caPem },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    req.pipe(upstream);
    res.on('close', () => upstream.destroy());
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  const proxied = KubeClient.fromKubeconfigString(
    JSON.stringify({
      clusters: [
        {
          name: 'p',
          cluster: {
            server: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
            'insecure-skip-tls-verify': true,
          },
        },
      ],
      users: [{ name: 'u', user: { token: cp.token } }],
      contexts: [{ name: 'p', context: { cluster: 'p', user: 'u' } }],
      'current-context': 'p',
    }),
    { logger: silentLogger(), metricsRegistry: null },
  );
  return {
    client: proxied,
    stalled,
    close: async () => {
      proxied.close();
      proxy.closeAllConnections();
      await new Promise<void>((r) => proxy.close(() => r()));
    },
  };
}

for (const mode of ['headers', 'body'] as const) {
  test(`stop() returns promptly while a paged LIST is in flight (stalled before its ${mode})`, async () => {
    const proxy = await stallingProxy(mode);
    try {
      const factory = quietFactory(proxy.client, { pageSize: 50 });
      const inf = factory.informerFor(ConfigMaps, { namespace: NS });
      factory.start();
      await proxy.stalled;
      const sync = inf.waitForSync();
      const syncRejected = assert.rejects(sync, /stopped before it synced/);
      await within(factory.stop(), PROMPT_MS, `stop() during a LIST stalled before its ${mode}`);
      await syncRejected;
      assert.equal(inf.hasSynced(), false);
    } finally {
      await proxy.close();
    }
  });
}

// One peer of the convergence benchmark, in its own process (so its peak RSS is its own): reconcile
// every Widget once by patching its status. Sends { started: t } right before the peer starts, then
// runs until the parent sends "stop", and reports its peak RSS.
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nowMs, workerMain } from '../common.ts';
import { GROUP, KIND, PLURAL, VERSION } from '../crd.ts';
import type { KubeObject } from '../../src/runtime/index.ts';
import type * as DotI from '@dot-i/k8s-operator';
import type * as K8s from '@kubernetes/client-node';

export type Peer = 'peerpods' | 'dot-i' | 'client-node';

export interface ConvergeInput {
  peer: Peer;
  kubeconfig: string;
  namespace: string;
  concurrency: number;
}

export interface ConvergeResult {
  peer: Peer;
  peakRssBytes: number;
  finalHeapUsedBytes: number;
  patches: number;
  patchErrors: number;
  firstError?: string;
}

interface Widget extends KubeObject {
  status?: { reconciled?: boolean };
}

let patches = 0;
let patchErrors = 0;
let firstError: string | undefined;
function failed(e: unknown): void {
  patchErrors++;
  firstError ??= e instanceof Error ? e.message : String(e);
}

async function runPeerpods(input: ConvergeInput, stopped: Promise<void>): Promise<void> {
  const { KubeClient, Manager, ControllerBuilder, customResource, silentLogger } =
    await import('../../src/runtime/index.ts');
  const Widgets = customResource(GROUP, VERSION, KIND, PLURAL, true);
  const client = KubeClient.fromKubeconfigString(input.kubeconfig, { logger: silentLogger() });
  const manager = new Manager({
    client,
    logger: silentLogger(),
    server: false,
    leaderElection: false,
    handleSignals: false,
    controller: { maxConcurrentReconciles: input.concurrency },
  });
  const widgets = manager.informerFor<Widget>(Widgets, { namespace: input.namespace });
  new ControllerBuilder(manager, 'bench-widgets')
    .for(Widgets, { scope: { namespace: input.namespace } })
    .complete(async (req) => {
      const w = widgets.get(req.namespace, req.name);
      if (!w || w.status?.reconciled) return;
      try {
        await client.patch(
          Widgets,
          req.name,
          req.namespace,
          { status: { reconciled: true, observedGeneration: w.metadata.generation } },
          'merge',
          {
            subresource: 'status',
          },
        );
        patches++;
      } catch (e) {
        failed(e);
        throw e;
      }
    });
  process.send?.({ started: nowMs() });
  const running = manager.start();
  await stopped;
  await manager.stop();
  await running;
  client.close();
}

async function runDotI(input: ConvergeInput, stopped: Promise<void>): Promise<void> {
  // dot-i reads the kubeconfig with loadFromDefault(), i.e. from $KUBECONFIG.
  const path = join(tmpdir(), `peerpods-bench-${process.pid}.kubeconfig`);
  writeFileSync(path, input.kubeconfig, { mode: 0o600 });
  process.env.KUBECONFIG = path;
  const mod = await import('@dot-i/k8s-operator');
  // A CommonJS module with `exports.default`: under ESM the class is one `default` deeper.
  const Operator = ((mod.default as unknown as { default?: unknown }).default ??
    mod.default) as typeof DotI.default.default;
  const { ResourceEventType } = mod;
  const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: (m: string) => failed(m) };
  class WidgetOperator extends Operator {
    constructor() {
      super(quiet);
    }
    protected async init(): Promise<void> {
      await this.watchResource(
        GROUP,
        VERSION,
        PLURAL,
        async (e: DotI.ResourceEvent) => {
          if (e.type === ResourceEventType.Deleted) return;
          const w = e.object as Widget;
          if (w.status?.reconciled) return;
          try {
            await this.patchResourceStatus(e.meta, { reconciled: true, observedGeneration: w.metadata.generation });
            patches++;
          } catch (err) {
            failed(err);
          }
        },
        input.namespace,
      );
    }
  }
  const op = new WidgetOperator();
  process.send?.({ started: nowMs() });
  await op.start();
  await stopped;
  op.stop();
}

async function runClientNode(input: ConvergeInput, stopped: Promise<void>): Promise<void> {
  const k8s = await import('@kubernetes/client-node');
  const kc = new k8s.KubeConfig();
  kc.loadFromString(input.kubeconfig);
  const api = kc.makeApiClient(k8s.CustomObjectsApi);
  const ns = input.namespace;
  // A minimal work queue: a set of pending keys (deduplicated) and `concurrency` workers.
  const pending = new Set<string>();
  const latest = new Map<string, Widget>();
  let waiters: Array<() => void> = [];
  const wakeAll = (): void => {
    const w = waiters;
    waiters = [];
    for (const f of w) f();
  };
  let stopping = false;
  const enqueue = (w: Widget): void => {
    const name = w.metadata.name as string;
    latest.set(name, w);
    pending.add(name);
    waiters.shift()?.();
  };
  const informer = k8s.makeInformer<K8s.KubernetesObject>(
    kc,
    `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${PLURAL}`,
    () =>
      api.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: ns, plural: PLURAL }) as Promise<
        K8s.KubernetesListObject<K8s.KubernetesObject>
      >,
  );
  informer.on('add', (o) => enqueue(o as Widget));
  informer.on('update', (o) => enqueue(o as Widget));
  informer.on('error', (e: unknown) => {
    failed(e);
    if (!stopping) setTimeout(() => void informer.start(), 1000);
  });
  const worker = async (): Promise<void> => {
    while (!stopping) {
      const next = pending.values().next();
      if (next.done) {
        await new Promise<void>((r) => waiters.push(r));
        continue;
      }
      const name = next.value;
      pending.delete(name);
      const w = latest.get(name);
      if (!w || w.status?.reconciled) continue;
      try {
        await api.patchNamespacedCustomObjectStatus({
          group: GROUP,
          version: VERSION,
          namespace: ns,
          plural: PLURAL,
          name,
          body: [
            { op: 'add', path: '/status', value: { reconciled: true, observedGeneration: w.metadata.generation } },
          ],
        });
        patches++;
      } catch (e) {
        failed(e);
        pending.add(name);
      }
    }
  };
  process.send?.({ started: nowMs() });
  await informer.start();
  const workers: Promise<void>[] = [];
  for (let i = 0; i < input.concurrency; i++) workers.push(worker());
  await stopped;
  stopping = true;
  wakeAll();
  await Promise.all(workers);
  await informer.stop();
}

workerMain<ConvergeInput, ConvergeResult>(async (input, onMessage) => {
  let stop: () => void = () => {};
  const stopped = new Promise<void>((r) => (stop = r));
  onMessage((m) => {
    if (m === 'stop') stop();
  });
  if (input.peer === 'peerpods') await runPeerpods(input, stopped);
  else if (input.peer === 'dot-i') await runDotI(input, stopped);
  else await runClientNode(input, stopped);
  return {
    peer: input.peer,
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
    finalHeapUsedBytes: process.memoryUsage().heapUsed,
    patches,
    patchErrors,
    firstError,
  };
});

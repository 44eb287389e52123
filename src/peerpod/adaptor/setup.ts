// Wiring the adaptor onto a runtime Manager: the node's pods (field selector), its PeerPods (label
// selectors, node-peerpods.ts; mapped to their pod), this node's Node object (for the host IP), and,
// when the provider comes from the cluster, the provider ConfigMap and Secret.
import { ConfigMaps, ControllerBuilder, Nodes, Pods, Secrets, runnableFunc } from '../../runtime/index.ts';
import type { Controller, KubeObject, Manager, Predicate, Request } from '../../runtime/index.ts';
import { PeerPods } from '../api/index.ts';
import type { PeerPod } from '../api/index.ts';
import { InformerCredentials, nameScope } from '../providers/index.ts';
import type { DataObject } from '../providers/index.ts';
import type { AdaptorDeps } from './deps.ts';
import { clusterUidReader } from './deps.ts';
import { LateCreates } from './late-creates.ts';
import { adaptorMetrics } from './metrics.ts';
import type { AdaptorOptions, ResolvedAdaptorOptions } from './options.ts';
import { resolveAdaptorOptions } from './options.ts';
import { isOnNode } from './peerpod-record.ts';
import { NodePeerPods } from './node-peerpods.ts';
import { reportsRunning } from './pod-status.ts';
import { ProviderSource } from './provider-source.ts';
import { poolConfigsInformer, setupPool } from './pool/setup.ts';
import { adaptorReconciler, isPeerPod } from './reconciler.ts';

export interface Adaptor {
  controller: Controller;
  options: ResolvedAdaptorOptions;
  providers: ProviderSource;
}

/** Controller names are metric labels; one adaptor per node may share a manager (the main job). */
export function adaptorControllerName(nodeName: string): string {
  return `peerpod-adaptor-${nodeName.toLowerCase()}`;
}

function forAll<T extends KubeObject>(ok: (obj: T) => boolean): Predicate<T> {
  return { create: (o) => ok(o), update: (o, n) => ok(o) || ok(n), delete: (o) => ok(o) };
}

/**
 * Registers the adaptor for `options.nodeName` on `manager`. Against the embedded control plane the
 * caller must also claim the runtime class from the simulated kubelets
 * (`controlPlane.internals.registerNodeAgent(runtimeClassName)`); against a real cluster the kata
 * shim's RuntimeClass handler does that.
 */
export function setupAdaptor(manager: Manager, options: AdaptorOptions): Adaptor {
  const opts = resolveAdaptorOptions(options, manager.client.namespace);
  const log = manager.logger.child({ component: 'peerpod-adaptor', node: opts.nodeName });
  const podScope = { fieldSelector: `spec.nodeName=${opts.nodeName}` };
  const pods = manager.informerFor<KubeObject>(Pods, podScope);
  const peerPods = new NodePeerPods(manager, opts.nodeName);
  const nodes = manager.informerFor<KubeObject>(Nodes, { fieldSelector: `metadata.name=${opts.nodeName}` });

  let credentials: InformerCredentials | undefined;
  const settingsScopes = opts.provider
    ? []
    : [
        { type: ConfigMaps, scope: nameScope(opts.namespace, opts.configMapName) },
        { type: Secrets, scope: nameScope(opts.namespace, opts.secretName) },
      ];
  if (!opts.provider) {
    credentials = new InformerCredentials(
      {
        configMaps: manager.informerFor<DataObject>(ConfigMaps, settingsScopes[0].scope),
        secrets: manager.informerFor<DataObject>(Secrets, settingsScopes[1].scope),
      },
      opts.namespace,
      { configMap: opts.configMapName, secret: opts.secretName },
    );
  }
  const providers = new ProviderSource(opts, credentials, log);
  const metrics = adaptorMetrics(manager.metricsRegistry);
  const deps: AdaptorDeps = {
    client: manager.client,
    pods,
    peerPods,
    nodes,
    providers,
    poolConfigs: poolConfigsInformer(manager, opts.namespace),
    poolHealth: { checkedAt: 0 },
    warmStarts: { count: 0 },
    events: manager.getEventRecorder('peerpod-adaptor'),
    metrics,
    opts,
    clusterUid: clusterUidReader(manager.client),
    lateCreates: new LateCreates(log),
    log,
  };

  const ours = (p: KubeObject): boolean => isPeerPod(p, opts.runtimeClassName);
  // New settings may fix what failed: retry every pod of ours not yet running.
  const waiting = (): Request[] =>
    pods
      .list()
      .filter((p) => ours(p) && (p.metadata.deletionTimestamp || !reportsRunning(p)))
      .map((p) => ({ namespace: p.metadata.namespace, name: p.metadata.name as string }));

  let builder = new ControllerBuilder(manager, adaptorControllerName(opts.nodeName))
    .for(Pods, { scope: podScope, predicates: [forAll(ours)] })
    .watches(Nodes, () => [], { scope: { fieldSelector: `metadata.name=${opts.nodeName}` } });
  for (const scope of peerPods.scopes) {
    builder = builder.owns<PeerPod>(PeerPods, { scope, predicates: [forAll((pp) => isOnNode(pp, opts.nodeName))] });
  }
  for (const s of settingsScopes) builder = builder.watches(s.type, waiting, { scope: s.scope });
  const controller = builder
    .withOptions({
      maxConcurrentReconciles: opts.maxConcurrentReconciles,
      ...(opts.rateLimiter ? { rateLimiter: opts.rateLimiter } : {}),
    })
    .complete(adaptorReconciler(deps));
  // The warm pool (pool/): idle unless the config of this adaptor's RuntimeClass sets spec.pool.
  setupPool(manager, deps, `${adaptorControllerName(opts.nodeName)}-pool`);

  const removeSource = metrics.addRunningSource({
    node: opts.nodeName,
    provider: () => providers.name(),
    count: () =>
      peerPods
        .list()
        .filter((pp) => isOnNode(pp, opts.nodeName) && pp.spec?.instanceID && !pp.metadata.deletionTimestamp).length,
  });
  manager.add(
    runnableFunc(
      async (signal) => {
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        removeSource();
        await providers.close();
      },
      // Not leader-elected: every node runs its own adaptor.
      { needLeaderElection: false, name: `${adaptorControllerName(opts.nodeName)}-provider` },
    ),
  );
  log.info({ runtimeClass: opts.runtimeClassName, provider: providers.name() || '(from settings)' }, 'adaptor set up');
  return { controller, options: opts, providers };
}

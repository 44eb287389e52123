// The PeerPod controller: wires the informers, the provider pool, the reconciler and the orphan
// sweep onto a runtime Manager.
import { ConfigMaps, ControllerBuilder, Secrets, runnableFunc } from '../../../runtime/index.ts';
import type { Controller, Manager, Predicate, Request, SharedInformer } from '../../../runtime/index.ts';
import { ConditionTypes, PeerPodConfigs, PeerPods } from '../../api/index.ts';
import type { PeerPod, PeerPodConfig } from '../../api/index.ts';
import { InformerCredentials, nameScope } from '../../providers/index.ts';
import type { DataObject } from '../../providers/index.ts';
import { PeerPodConfigSettings } from './config-settings.ts';
import { peerPodMetrics } from './metrics.ts';
import { CONTROLLER_NAME, resolveOptions } from './options.ts';
import type { PeerPodControllerOptions, ResolvedOptions } from './options.ts';
import { ProviderPool } from './provider-pool.ts';
import { peerPodReconciler } from './reconciler.ts';
import { OrphanSweeper } from './sweep.ts';
import { conditionStatus } from './status.ts';

export interface PeerPodController {
  controller: Controller;
  sweeper: OrphanSweeper;
  pool: ProviderPool;
  options: ResolvedOptions;
}

/**
 * Our own status writes come back as update events; reconciling on them would bypass the error
 * backoff. Only what the reconcile reads (spec, deletion, finalizers, owners) lets an update through.
 */
export function ignoreStatusOnlyUpdates(): Predicate<PeerPod> {
  return {
    update: (o, n) =>
      !deepEqual(o.spec, n.spec) ||
      o.metadata.deletionTimestamp !== n.metadata.deletionTimestamp ||
      !deepEqual(o.metadata.finalizers, n.metadata.finalizers) ||
      !deepEqual(o.metadata.ownerReferences, n.metadata.ownerReferences),
  };
}

export function setupPeerPodController(manager: Manager, options: PeerPodControllerOptions): PeerPodController {
  const opts = resolveOptions(options);
  const log = manager.logger.child({ controller: CONTROLLER_NAME });
  const peerPods = manager.informerFor<PeerPod>(PeerPods);
  const cmScope = nameScope(opts.namespace, opts.configMapName);
  const secretScope = nameScope(opts.namespace, opts.secretName);
  const configMaps = manager.informerFor<DataObject>(ConfigMaps, cmScope);
  const secrets = manager.informerFor<DataObject>(Secrets, secretScope);
  const defaults = { configMap: opts.configMapName, secret: opts.secretName };
  const defaultSource = new InformerCredentials({ configMaps, secrets }, opts.namespace, defaults);
  // Each provider's settings are its PeerPodConfig's (config-settings.ts); the controller is built
  // below, so the informers a config adds are watched once it exists.
  const configs = manager.informerFor<PeerPodConfig>(PeerPodConfigs, { namespace: opts.namespace });
  const configInformers: Array<SharedInformer<DataObject>> = [];
  let watchSettings = (inf: SharedInformer<DataObject>): void => void configInformers.push(inf);
  const credentials = new PeerPodConfigSettings({
    configs,
    namespace: opts.namespace,
    defaults,
    defaultSource,
    informerFor: (type, scope) => manager.informerFor<DataObject>(type, scope),
    onInformer: (inf) => watchSettings(inf),
  });
  const metrics = peerPodMetrics(manager.metricsRegistry);
  const pool = new ProviderPool(credentials, opts, metrics, log);
  const events = manager.getEventRecorder(`${CONTROLLER_NAME}-controller`);

  // New settings may fix what failed: retry every PeerPod that is waiting on its provider.
  const waitingOnProvider = (): Request[] =>
    peerPods
      .list()
      .filter((pp) => pp.metadata.deletionTimestamp || conditionStatus(pp, ConditionTypes.ProviderReady) === 'False')
      .map((pp) => ({ namespace: pp.metadata.namespace, name: pp.metadata.name as string }));

  const controller = new ControllerBuilder(manager, CONTROLLER_NAME)
    .for<PeerPod>(PeerPods, { predicates: [ignoreStatusOnlyUpdates()] })
    .watches(ConfigMaps, waitingOnProvider, { scope: cmScope })
    .watches(Secrets, waitingOnProvider, { scope: secretScope })
    .watches(PeerPodConfigs, waitingOnProvider, { scope: { namespace: opts.namespace } })
    .withOptions({
      maxConcurrentReconciles: opts.maxConcurrentReconciles,
      ...(opts.rateLimiter ? { rateLimiter: opts.rateLimiter } : {}),
    })
    .completeWithObjects(
      peerPodReconciler({ client: manager.client, peerPods, pool, credentials, events, metrics, opts, log }),
    );

  watchSettings = (informer) =>
    controller.watch({ informer, map: waitingOnProvider, predicates: [], description: 'watches provider settings' });
  for (const inf of configInformers.splice(0)) watchSettings(inf);

  const sweeper = new OrphanSweeper({
    client: manager.client,
    peerPods,
    waitFor: [configMaps, secrets, configs],
    pool,
    credentials,
    events,
    metrics,
    opts,
    log,
  });
  manager.add(sweeper);
  manager.add(
    runnableFunc(
      async (signal) => {
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        await pool.close();
      },
      { needLeaderElection: false, name: 'peerpod-provider-pool' },
    ),
  );
  return { controller, sweeper, pool, options: opts };
}

export {
  CONTROLLER_NAME,
  DEFAULT_CONFIGMAP,
  DEFAULT_MAX_CONCURRENT_DELETES,
  DEFAULT_MAX_CONCURRENT_RECONCILES,
  DEFAULT_ORPHAN_GRACE_MS,
  DEFAULT_SECRET,
  DEFAULT_SWEEP_INTERVAL_MS,
  LEADER_ELECTION_ID,
} from './options.ts';
import { deepEqual } from '../../../apimachinery/json/index.ts';
export type { PeerPodControllerOptions } from './options.ts';
export { ProviderPool } from './provider-pool.ts';
export { ProviderUnavailableError } from '../../providers/index.ts';
export { OrphanSweeper } from './sweep.ts';
export type { SweepResult } from './sweep.ts';
export { peerPodProviderRules, peerPodRbacRules } from './rbac.ts';

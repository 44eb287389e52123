// The PeerPodConfig controller on a runtime Manager. Embeddable: another operator calls
// setupPeerPodConfigController with its own manager (and options) to get node capacity, the adaptor
// DaemonSet and the webhook managed alongside its own controllers.
import {
  ControllerBuilder,
  DaemonSets,
  Deployments,
  MutatingWebhookConfigurations,
  Nodes,
  Secrets,
  Services,
  runnableFunc,
} from '../../../runtime/index.ts';
import type { Controller, KubeObject, Manager, Predicate, Request } from '../../../runtime/index.ts';
import { PeerPodConfigs } from '../../api/peerpodconfig.ts';
import type { PeerPodConfig } from '../../api/peerpodconfig.ts';
import { peerPodConfigMetrics } from './metrics.ts';
import { OWNER_ANNOTATION } from './nodes.ts';
import type { NodeObject } from './nodes.ts';
import {
  ADAPTOR_DAEMONSET,
  MANAGED_BY,
  MANAGED_BY_LABEL,
  OWNER_NAMESPACE_LABEL,
  OWNER_NAME_LABEL,
  WEBHOOK_DEPLOYMENT,
  WEBHOOK_SECRET,
  WEBHOOK_SERVICE,
  webhookConfigurationName,
} from './objects.ts';
import { CONTROLLER_NAME, resolveOptions } from './options.ts';
import type { PeerPodConfigControllerOptions, ResolvedOptions } from './options.ts';
import { LimitEvents } from './capacity-condition.ts';
import { ProviderCapacityProbe } from './provider-capacity.ts';
import { peerPodConfigReconciler } from './reconciler.ts';

export interface PeerPodConfigController {
  controller: Controller;
  options: ResolvedOptions;
}

/** Status writes come back as update events; only what the reconcile reads lets an update through. */
function specOrLifecycleChanged(): Predicate<KubeObject> {
  return {
    update: (o, n) =>
      o.metadata.generation !== n.metadata.generation ||
      o.metadata.deletionTimestamp !== n.metadata.deletionTimestamp ||
      !deepEqual(o.metadata.finalizers, n.metadata.finalizers),
  };
}

/** The node's claims (one annotation per resource, binding.ts). */
function claims(node: NodeObject): Array<[string, string]> {
  const prefix = `${OWNER_ANNOTATION.split('/')[0]}/`;
  return Object.entries(node.metadata.annotations ?? {}).filter(([k]) => k.startsWith(prefix));
}

/**
 * Heartbeats rewrite node status every few seconds; only labels, our claims and the advertised
 * resources (every provider's, so capacity and allocatable as a whole: heartbeats leave them be) matter.
 */
function nodeChanged(): Predicate<NodeObject> {
  return {
    update: (o, n) =>
      !deepEqual(o.metadata.labels, n.metadata.labels) ||
      !deepEqual(claims(o), claims(n)) ||
      o.metadata.deletionTimestamp !== n.metadata.deletionTimestamp ||
      !deepEqual(o.status?.capacity, n.status?.capacity) ||
      !deepEqual(o.status?.allocatable, n.status?.allocatable),
  };
}

export function setupPeerPodConfigController(
  manager: Manager,
  options: PeerPodConfigControllerOptions = {},
): PeerPodConfigController {
  const opts = resolveOptions(options);
  // Namespaced: only that namespace's configs, and each deployed object selected by its fixed name,
  // so `resourceNames` in the controller's Role cover the list/watch too (see rbac.ts).
  const home = opts.namespace;
  const configs = manager.informerFor<PeerPodConfig>(PeerPodConfigs, home ? { namespace: home } : undefined);
  const nodes = manager.informerFor<NodeObject>(Nodes);
  const metrics = peerPodConfigMetrics(manager.metricsRegistry);
  const events = manager.getEventRecorder(`${CONTROLLER_NAME}-controller`);
  const log = manager.logger.child({ controller: CONTROLLER_NAME });
  const capacityProbe = opts.capacity ? new ProviderCapacityProbe(manager.client, opts.capacity, log) : undefined;
  if (capacityProbe) {
    manager.add(
      runnableFunc(
        async (signal) => {
          await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
          await capacityProbe.close();
        },
        { needLeaderElection: false, name: 'peerpodconfig-capacity-providers' },
      ),
    );
  }
  const managed = (name: string) => ({
    scope: {
      labelSelector: `${MANAGED_BY_LABEL}=${MANAGED_BY}`,
      ...(home ? { namespace: home, fieldSelector: `metadata.name=${name}` } : {}),
    },
  });

  // A node change can move every config's spread (a join re-spreads the limit): requeue them all.
  const allConfigs = (): Request[] =>
    configs.list().map((c) => ({ namespace: c.metadata.namespace, name: c.metadata.name as string }));
  const ownerOfWebhookConfig = (o: KubeObject): Request[] => {
    const l = o.metadata.labels ?? {};
    const ns = l[OWNER_NAMESPACE_LABEL];
    const name = l[OWNER_NAME_LABEL];
    return ns && name ? [{ namespace: ns, name }] : [];
  };

  let builder = new ControllerBuilder(manager, CONTROLLER_NAME)
    .for<PeerPodConfig>(PeerPodConfigs, {
      predicates: [specOrLifecycleChanged()],
      ...(home ? { scope: { namespace: home } } : {}),
    })
    .watches<NodeObject>(Nodes, allConfigs, { predicates: [nodeChanged()] })
    // Claims are granted oldest first and one config deploys a namespace's webhook with every
    // provider's route: any config's change may move another's (binding.ts).
    .watches<PeerPodConfig>(PeerPodConfigs, allConfigs, {
      predicates: [specOrLifecycleChanged()],
      ...(home ? { scope: { namespace: home } } : {}),
    })
    // Namespaced, the default provider's DaemonSet by name (its Role names it); another provider's
    // is then not watched for drift, only applied on each reconcile.
    .owns(DaemonSets, managed(ADAPTOR_DAEMONSET));
  if (opts.webhook) {
    builder = builder
      .owns(Deployments, managed(WEBHOOK_DEPLOYMENT))
      .owns(Services, managed(WEBHOOK_SERVICE))
      .owns(Secrets, managed(WEBHOOK_SECRET))
      .watches(MutatingWebhookConfigurations, ownerOfWebhookConfig, {
        scope: {
          labelSelector: `${MANAGED_BY_LABEL}=${MANAGED_BY}`,
          ...(home ? { fieldSelector: `metadata.name=${webhookConfigurationName(home)}` } : {}),
        },
      });
  }
  const controller = builder
    .withOptions({
      maxConcurrentReconciles: opts.maxConcurrentReconciles,
      ...(opts.rateLimiter ? { rateLimiter: opts.rateLimiter } : {}),
    })
    .completeWithObjects(
      peerPodConfigReconciler({
        client: manager.client,
        nodes: () => nodes.list(),
        configExists: (key) => {
          const [ns, name] = key.split('/');
          return configs.get(ns, name) !== undefined;
        },
        defaults: { runtimeClassName: opts.runtimeClassName, extendedResource: opts.extendedResource },
        configs: () => configs.list(),
        opts,
        clock: manager.clock,
        events,
        metrics,
        log,
        ...(capacityProbe ? { capacityProbe, limitEvents: new LimitEvents(events) } : {}),
      }),
    );
  return { controller, options: opts };
}

export {
  ADAPTOR_SERVICE_ACCOUNT,
  WEBHOOK_SERVICE_ACCOUNT,
  CONTROLLER_NAME as PEERPODCONFIG_CONTROLLER_NAME,
  DEFAULT_ADAPTOR_IMAGE,
  DEFAULT_EXCLUDED_NAMESPACES,
  DEFAULT_WEBHOOK_IMAGE,
} from './options.ts';
export { DEFAULT_CAPACITY_RECHECK_MS } from './options.ts';
export type { CapacityOptions, PeerPodConfigControllerOptions, WebhookDeployOptions } from './options.ts';
export { claimAnnotation, conflictOf } from './binding.ts';
export type { ProviderBinding } from './binding.ts';
export {
  ADAPTOR_DAEMONSET,
  adaptorDaemonSetForRuntimeClass,
  adaptorDaemonSetName,
  WEBHOOK_DEPLOYMENT,
  WEBHOOK_SECRET,
  WEBHOOK_SERVICE,
  webhookConfigurationName,
} from './objects.ts';
import { deepEqual } from '../../../apimachinery/json/index.ts';
export { OWNER_ANNOTATION } from './nodes.ts';
export { spreadVms } from './spread.ts';
export { peerPodConfigProviderRules, peerPodConfigRbacRules } from './rbac.ts';

// The kvm-operator: four handler-chain controllers (cluster, deleter, drainer, unhealthy-node
// terminator) plus the node drainer that executes DrainerConfigs, on one runtime Manager.
import { ControllerBuilder, Deployments, Pods, Secrets, runnableFunc } from '../runtime/index.ts';
import type { HandlerChain, KubeObject, Manager } from '../runtime/index.ts';
import { DrainerConfigs, KVMConfigs, Labels, MANAGED_BY, Releases } from './api/index.ts';
import type { KVMConfig, Release } from './api/index.ts';
import { ControllerNames } from './controllers/names.ts';
import { chainController, kvmConfigScope, nodePodScope, toKvmConfig } from './controllers/shared.ts';
import type { KvmDeps } from './deps.ts';
import { clusterHandlers, deleterHandlers, drainerHandlers, terminatorHandlers } from './handlers/index.ts';
import { NodeDrainer } from './nodedrainer/index.ts';
import { resolveKvmOptions } from './options.ts';
import type { KvmOperatorOptions, ResolvedKvmOptions } from './options.ts';
import type { Pod } from './pods.ts';
import { SecretWorkloadClusters } from './workload/index.ts';
import type { SecretObject, WorkloadClusters } from './workload/index.ts';

export interface KvmOperator {
  options: ResolvedKvmOptions;
  deps: KvmDeps;
  chains: {
    cluster: HandlerChain<KVMConfig>;
    deleter: HandlerChain<KVMConfig>;
    drainer: HandlerChain<Pod>;
    unhealthyNodeTerminator: HandlerChain<KVMConfig>;
  };
}

export interface KvmOperatorSetup extends KvmOperatorOptions {
  /** Workload-cluster clients; default: built from credential Secrets (see workload/credentials.ts). */
  workload?: WorkloadClusters;
}

export function setupKvmOperator(manager: Manager, setup: KvmOperatorSetup = {}): KvmOperator {
  const { workload: givenWorkload, ...rest } = setup;
  const options = resolveKvmOptions(rest);
  const credentialScope = { namespace: options.credentialsNamespace, labelSelector: Labels.cluster };
  const secrets = manager.informerFor<SecretObject>(Secrets, credentialScope);
  const workload = givenWorkload ?? new SecretWorkloadClusters(secrets, options.credentialsNamespace);
  const releases = manager.informerFor<Release>(Releases);
  const kvmConfigs = manager.informerFor<KVMConfig>(KVMConfigs, kvmConfigScope(options));
  const deps: KvmDeps = {
    client: manager.client,
    workload,
    release: (name) => releases.get(undefined, name),
    events: manager.getEventRecorder('kvm-operator'),
    options,
    log: manager.logger.child({ operator: 'kvm-operator' }),
  };
  const toCluster = toKvmConfig(options);
  // A new or changed Release concerns every cluster labelled with its version.
  const byRelease = (r: KubeObject) =>
    kvmConfigs
      .list()
      .filter((c) => `v${c.metadata.labels?.[Labels.releaseVersion] ?? ''}` === r.metadata.name)
      .map((c) => ({ namespace: c.metadata.namespace, name: c.metadata.name as string }));

  const cluster = chainController<KVMConfig>(manager, {
    name: ControllerNames.cluster,
    type: KVMConfigs,
    scope: kvmConfigScope(options),
    handlers: clusterHandlers(deps),
    resyncMs: options.resyncMs,
    recheckMs: options.recheckMs,
    watches: [
      { type: Deployments, scope: { labelSelector: `${Labels.managedBy}=${MANAGED_BY}` }, map: toCluster },
      { type: Pods, scope: nodePodScope(options), map: toCluster },
      { type: Releases, scope: {}, map: byRelease },
      { type: Secrets, scope: credentialScope, map: toCluster },
    ],
  });
  const deleter = chainController<KVMConfig>(manager, {
    name: ControllerNames.deleter,
    type: KVMConfigs,
    scope: kvmConfigScope(options),
    handlers: deleterHandlers(deps),
    resyncMs: options.deleterResyncMs,
    recheckMs: options.recheckMs,
    watches: [{ type: Pods, scope: nodePodScope(options), map: toCluster }],
  });
  const drainer = chainController<Pod>(manager, {
    name: ControllerNames.drainer,
    type: Pods,
    scope: nodePodScope(options),
    handlers: drainerHandlers(deps),
    resyncMs: options.resyncMs,
    recheckMs: options.recheckMs,
  });
  const unhealthyNodeTerminator = chainController<KVMConfig>(manager, {
    name: ControllerNames.unhealthyNodeTerminator,
    type: KVMConfigs,
    scope: kvmConfigScope(options),
    handlers: terminatorHandlers(deps),
    resyncMs: options.resyncMs,
    recheckMs: options.recheckMs,
  });
  if (options.nodeDrainer) {
    new ControllerBuilder(manager, ControllerNames.nodeDrainer).for(DrainerConfigs).complete(new NodeDrainer(deps));
  }
  manager.add(
    runnableFunc(
      async (signal) => {
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        workload.close();
      },
      { needLeaderElection: false, name: 'kvm-workload-clients' },
    ),
  );
  return { options, deps, chains: { cluster, deleter, drainer, unhealthyNodeTerminator } };
}

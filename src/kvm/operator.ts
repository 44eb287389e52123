// The kvm-operator: four handler-chain controllers (cluster, deleter, drainer, unhealthy-node
// terminator) plus the node drainer that executes DrainerConfigs, on one runtime Manager. Each
// controller's wiring lives in controllers/; this file builds what they share and assembles them.
import { Secrets, runnableFunc } from '../runtime/index.ts';
import type { HandlerChain, Manager } from '../runtime/index.ts';
import { Releases } from './api/index.ts';
import type { KVMConfig, Release } from './api/index.ts';
import { setupClusterController } from './controllers/cluster.ts';
import { setupDeleterController } from './controllers/deleter.ts';
import { setupDrainerController } from './controllers/drainer.ts';
import { setupNodeDrainerController } from './controllers/node-drainer.ts';
import { credentialScope } from './controllers/shared.ts';
import { setupUnhealthyNodeTerminator } from './controllers/unhealthy-node-terminator.ts';
import type { KvmDeps } from './deps.ts';
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
  const secrets = manager.informerFor<SecretObject>(Secrets, credentialScope(options));
  const workload = givenWorkload ?? new SecretWorkloadClusters(secrets, options.credentialsNamespace);
  const releases = manager.informerFor<Release>(Releases);
  const deps: KvmDeps = {
    client: manager.client,
    workload,
    release: (name) => releases.get(undefined, name),
    events: manager.getEventRecorder('kvm-operator'),
    options,
    log: manager.logger.child({ operator: 'kvm-operator' }),
  };
  const chains = {
    cluster: setupClusterController(manager, deps),
    deleter: setupDeleterController(manager, deps),
    drainer: setupDrainerController(manager, deps),
    unhealthyNodeTerminator: setupUnhealthyNodeTerminator(manager, deps),
  };
  if (options.nodeDrainer) setupNodeDrainerController(manager, deps);
  manager.add(
    runnableFunc(
      async (signal) => {
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        workload.close();
      },
      { needLeaderElection: false, name: 'kvm-workload-clients' },
    ),
  );
  return { options, deps, chains };
}

// The host operator's process: one manager (one leader-election Lease, one /metrics, one set of
// probes) running its own controller and the embedded peer-pod controllers.
// `KUBECONFIG=... FLEET_NAMESPACE=fleet-system node --import tsx examples/embed-peerpod/main.ts`
import {
  KubeClient,
  Manager,
  Namespaces,
  createLogger,
  installCrds,
  isAlreadyExists,
} from '../../src/runtime/index.ts';
import { allCrds } from '../../src/peerpod/index.ts';
import { setupFleetOperator } from './operator.ts';

const namespace = process.env.FLEET_NAMESPACE ?? 'fleet-system';
const log = createLogger('fleet-operator');
const client = await KubeClient.load();

// The CRDs come from the package, so the host operator installs exactly the schema its embedded
// controllers were built against (`peerpods manifests` writes the same ones as YAML).
await installCrds(client, allCrds(), { fieldManager: 'fleet-operator' });
try {
  await client.create(Namespaces, { metadata: { name: namespace } });
} catch (err) {
  if (!isAlreadyExists(err)) throw err;
}

const manager = new Manager({
  client,
  logger: log,
  leaderElection: { leaseName: 'fleet-operator', namespace },
  server: { host: '127.0.0.1', port: Number(process.env.METRICS_PORT ?? 8080) },
});
setupFleetOperator(manager, { namespace });
await manager.start(); // until SIGTERM/SIGINT
client.close();

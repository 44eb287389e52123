// One command runs the whole example: an embedded control plane, the PodSet CRD, the operator and a
// sample PodSet. `node --import tsx examples/podset/main.ts` (add `--once` to exit when converged).
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startControlPlane } from '../../src/kube/index.ts';
import { KubeClient, Manager, createLogger, isConditionTrue } from '../../src/runtime/index.ts';
import { PodSets, installCrd } from './api.ts';
import type { PodSet } from './api.ts';
import { applyPodSet, setupPodSetController } from './controller.ts';

const once = process.argv.includes('--once');
const log = createLogger('podset-example');

const cp = await startControlPlane();
const kubeconfigPath = join(tmpdir(), 'peerpods-podset-example.kubeconfig');
writeFileSync(kubeconfigPath, cp.kubeconfig, { mode: 0o600 });
log.info(
  { url: cp.url, kubeconfig: kubeconfigPath },
  'control plane started; try: kubectl --kubeconfig <path> get podsets,pods',
);

const client = KubeClient.fromKubeconfigString(cp.kubeconfig, { logger: log.child({ component: 'kube-client' }) });
await installCrd(client);

const manager = new Manager({
  client,
  logger: log,
  server: { host: '127.0.0.1', port: Number(process.env.METRICS_PORT ?? 0) },
  leaderElection: { leaseName: 'podset-example' },
});
setupPodSetController(manager);
const running = manager.start();
const { port } = await manager.serverAddress();
log.info(
  { metrics: `http://127.0.0.1:${port}/metrics`, readyz: `http://127.0.0.1:${port}/readyz` },
  'operator started',
);

await applyPodSet(manager, 'demo', 'default', 3);
log.info('created PodSet default/demo with 3 replicas');

const deadline = Date.now() + 30_000;
for (;;) {
  const ps = await client.get<PodSet>(PodSets, 'demo', 'default');
  if (ps.status?.replicas === 3 && isConditionTrue(ps.status.conditions, 'Ready')) {
    log.info({ status: ps.status }, 'PodSet default/demo converged');
    break;
  }
  if (Date.now() > deadline) {
    log.error({ status: ps.status }, 'PodSet did not converge in 30 s');
    process.exitCode = 1;
    break;
  }
  await new Promise((r) => setTimeout(r, 200));
}

if (once) await manager.stop();
await running;
client.close();
await cp.stop();

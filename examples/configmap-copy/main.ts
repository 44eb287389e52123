// The README's 30-line controller, kept compiling by the typecheck.
import {
  ConfigMaps,
  ControllerBuilder,
  KubeClient,
  Manager,
  Secrets,
  createOrPatch,
  setControllerReference,
} from '../../src/runtime/index.ts';
import type { KubeObject } from '../../src/runtime/index.ts';

// Keeps a Secret `<name>-copy` next to every ConfigMap labelled copy=true, owned by it.
const client = await KubeClient.load(); // --kubeconfig file, KUBECONFIG, in-cluster or ~/.kube/config
const manager = new Manager({ client, leaderElection: { leaseName: 'copy-operator' } });

new ControllerBuilder(manager, 'copy')
  .for<KubeObject & { data?: Record<string, string> }>(ConfigMaps, { scope: { labelSelector: 'copy=true' } })
  .owns(Secrets)
  .completeWithObjects(async (cm) => {
    if (cm.metadata.deletionTimestamp) return; // the garbage collector removes the copy
    const { name, namespace } = cm.metadata;
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `${name}-copy`, namespace },
      stringData: {} as Record<string, string>,
    };
    await createOrPatch(client, Secrets, secret, (s) => {
      setControllerReference(cm, s);
      s.stringData = cm.data ?? {};
    }); // compares before writing: an unchanged Secret is never rewritten
    return { requeueAfter: 10 * 60_000 };
  });

await manager.start(); // SIGTERM: finishes in-flight reconciles (30 s cap), releases the Lease

// `peerpods cluster node add|remove|ready|notready NAME`: drives a running cluster's simulated
// nodes through its API. The control plane adopts any Node labelled peerpods.io/simulated=true
// (fills in its status, runs a kubelet and a Lease for it), stops simulating a deleted Node, and
// keeps whatever Ready condition a client wrote.
import type { Command } from 'commander';
import { resolve } from 'node:path';
import type { KubeClient, ResourceType } from '../../runtime/index.ts';
import { formatTime } from '../../apimachinery/time/format.ts';

const NODES: ResourceType = { group: '', version: 'v1', kind: 'Node', plural: 'nodes', namespaced: false };

function readyPatch(ready: boolean): unknown {
  const now = formatTime(new Date());
  return {
    status: {
      conditions: [
        {
          type: 'Ready',
          status: ready ? 'True' : 'False',
          reason: ready ? 'KubeletReady' : 'KubeletNotReady',
          message: ready ? 'kubelet is posting ready status' : 'simulated node marked not ready',
          lastHeartbeatTime: now,
          lastTransitionTime: now,
        },
      ],
    },
  };
}

export function registerNodeCommands(cluster: Command, defaultKubeconfig: string): void {
  const node = cluster.command('node').description("manage a running cluster's simulated nodes");
  const action =
    (fn: (client: KubeClient, name: string) => Promise<string>) =>
    async (name: string, opts: { kubeconfig: string }) => {
      // Loaded here: registering the command (every CLI start) must not load the client.
      const { KubeClient } = await import('../../runtime/index.ts');
      const client = await KubeClient.load({ kubeconfigPath: resolve(opts.kubeconfig) });
      try {
        console.log(await fn(client, name));
      } finally {
        client.close();
      }
    };
  const sub = (verb: string, description: string, fn: (client: KubeClient, name: string) => Promise<string>): void => {
    node
      .command(`${verb} <name>`)
      .description(description)
      .option('--kubeconfig <file>', 'kubeconfig of the running cluster', defaultKubeconfig)
      .action(action(fn));
  };
  sub('add', 'create a simulated node (the control plane starts its kubelet)', async (client, name) => {
    await client.create(NODES, {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name,
        labels: {
          'peerpods.io/simulated': 'true',
          'node.kubernetes.io/worker': '',
          'kubernetes.io/hostname': name,
          'kubernetes.io/os': 'linux',
        },
      },
    });
    return `node/${name} created`;
  });
  sub('remove', 'delete a node (its pods are garbage-collected)', async (client, name) => {
    await client.delete(NODES, name);
    return `node/${name} deleted`;
  });
  sub('ready', 'set the Ready condition to True', async (client, name) => {
    await client.patch(NODES, name, undefined, readyPatch(true), 'strategic', { subresource: 'status' });
    return `node/${name} ready`;
  });
  sub(
    'notready',
    'set the Ready condition to False (taints follow; pods are evicted after their not-ready toleration, 300 s by default)',
    async (client, name) => {
      await client.patch(NODES, name, undefined, readyPatch(false), 'strategic', { subresource: 'status' });
      return `node/${name} not ready`;
    },
  );
}

// `peerpods cluster start`: the embedded control plane in the foreground.
import { InvalidArgumentError, type Command } from 'commander';
import { resolve } from 'node:path';
import { startControlPlane } from '../../kube/index.ts';
import { parsePort } from '../options.ts';
import { registerNodeCommands } from './nodes.ts';
import { onShutdown } from '../signals.ts';

export const DEFAULT_KUBECONFIG = '.peerpods/kubeconfig';

export function registerClusterCommands(program: Command): void {
  const cluster = program.command('cluster').description('run the embedded Kubernetes-API-compatible control plane');
  cluster
    .command('start')
    .description('start the control plane in the foreground; writes a kubeconfig when ready')
    .option('--port <n>', 'port to listen on (0 picks a free one)', parsePort, 6443)
    .option('--host <addr>', 'address to listen on', '127.0.0.1')
    .option('--kubeconfig <file>', 'where to write the kubeconfig', DEFAULT_KUBECONFIG)
    .option('--nodes <n>', 'simulated worker nodes to start (node-1..N)', parseCount, 0)
    .action(async (opts: { port: number; host: string; kubeconfig: string; nodes: number }) => {
      const kubeconfigPath = resolve(opts.kubeconfig);
      const cp = await startControlPlane({ port: opts.port, host: opts.host, kubeconfigPath, nodes: opts.nodes });
      console.log(`peerpods control plane listening on ${cp.url}`);
      console.log(`kubeconfig written to ${kubeconfigPath}`);
      if (opts.nodes > 0) console.log(`${opts.nodes} simulated node(s): ${cp.internals.nodes.list().join(', ')}`);
      console.log(`try: kubectl --kubeconfig ${kubeconfigPath} get namespaces`);
      onShutdown(async () => {
        await cp.stop();
      });
    });
  registerNodeCommands(cluster, DEFAULT_KUBECONFIG);
}

function parseCount(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a non-negative integer');
  return Number(value);
}

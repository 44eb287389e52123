// `peerpods cluster start`: the embedded control plane in the foreground.
import type { Command } from 'commander';
import { resolve } from 'node:path';
import { startControlPlane } from '../kube/index.ts';
import { parsePort } from './options.ts';
import { onShutdown } from './signals.ts';

export const DEFAULT_KUBECONFIG = '.peerpods/kubeconfig';

export function registerClusterCommands(program: Command): void {
  const cluster = program.command('cluster').description('run the embedded Kubernetes-API-compatible control plane');
  cluster
    .command('start')
    .description('start the control plane in the foreground; writes a kubeconfig when ready')
    .option('--port <n>', 'port to listen on (0 picks a free one)', parsePort, 6443)
    .option('--host <addr>', 'address to listen on', '127.0.0.1')
    .option('--kubeconfig <file>', 'where to write the kubeconfig', DEFAULT_KUBECONFIG)
    .action(async (opts: { port: number; host: string; kubeconfig: string }) => {
      const kubeconfigPath = resolve(opts.kubeconfig);
      const cp = await startControlPlane({ port: opts.port, host: opts.host, kubeconfigPath });
      console.log(`peerpods control plane listening on ${cp.url}`);
      console.log(`kubeconfig written to ${kubeconfigPath}`);
      console.log(`try: kubectl --kubeconfig ${kubeconfigPath} get namespaces`);
      onShutdown(async () => {
        await cp.stop();
      });
    });
}

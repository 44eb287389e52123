// `peerpods start` (= `npm start`): the main job. Today it runs the embedded control plane with
// a kubeconfig for kubectl; the peer-pod operators join it as they land.
import type { Command } from 'commander';
import { resolve } from 'node:path';
import { startControlPlane } from '../kube/index.ts';
import { DEFAULT_KUBECONFIG } from './cluster.ts';
import { parsePort } from './options.ts';
import { onShutdown } from './signals.ts';

export function registerStartCommand(program: Command): void {
  program
    .command('start')
    .description('run the embedded control plane and print how to use it with kubectl')
    .option('--port <n>', 'API server port (0 picks a free one)', parsePort, 0)
    .option('--kubeconfig <file>', 'where to write the kubeconfig', DEFAULT_KUBECONFIG)
    .action(async (opts: { port: number; kubeconfig: string }) => {
      const kubeconfigPath = resolve(opts.kubeconfig);
      const cp = await startControlPlane({ port: opts.port, kubeconfigPath });
      const k = `kubectl --kubeconfig ${opts.kubeconfig}`;
      console.log(`peerpods control plane: ${cp.url}`);
      console.log(`kubeconfig: ${kubeconfigPath}`);
      console.log('try:');
      console.log(`  ${k} get namespaces`);
      console.log(`  ${k} create configmap demo --from-literal=hello=world`);
      console.log(`  ${k} get configmaps -w`);
      console.log('peerpods ready (Ctrl-C stops)');
      onShutdown(() => cp.stop());
    });
}

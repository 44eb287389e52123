// The `peerpods` command.
import { Command } from 'commander';
import { registerClusterCommands } from './cluster.ts';
import { registerStartCommand } from './start.ts';
import { registerDemoCommand } from './demo.ts';
import { registerManifestCommands } from './manifests.ts';
import { registerPeerPodCommands } from './peerpod.ts';
import { registerPeerPodConfigCommand } from './peerpodconfig.ts';
import { registerWebhookCommand } from './webhook.ts';
import { registerAdaptorCommand } from './adaptor.ts';
import { registerKvmCommand } from './kvm.ts';

const program = new Command('peerpods')
  .description('Kubernetes operators for pod VMs, their operator runtime, and an embedded control plane')
  .showHelpAfterError();
registerStartCommand(program);
registerDemoCommand(program);
registerClusterCommands(program);
registerManifestCommands(program);
registerPeerPodCommands(program);
registerPeerPodConfigCommand(program);
registerWebhookCommand(program);
registerAdaptorCommand(program);
registerKvmCommand(program);

program.parseAsync(process.argv).catch((e: unknown) => {
  console.error(`peerpods: ${(e as Error).message}`);
  process.exit(1);
});

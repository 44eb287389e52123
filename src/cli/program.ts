// The `peerpods` command tree, built apart from parsing so tests can read every command's help.
import { Command } from 'commander';
import { configureHelp } from './help.ts';
import { registerClusterCommands } from './cluster/command.ts';
import { registerStartCommand } from './start/start.ts';
import { registerDemoCommand } from './start/demo.ts';
import { registerManifestCommands } from './manifests/command.ts';
import { registerPeerPodCommands } from './run/peerpod.ts';
import { registerPeerPodConfigCommand } from './run/peerpodconfig.ts';
import { registerWebhookCommand } from './run/webhook.ts';
import { registerAdaptorCommand } from './run/adaptor.ts';
import { registerKvmCommand } from './run/kvm.ts';

export function buildProgram(): Command {
  const program = configureHelp(
    new Command('peerpods')
      .description('Kubernetes operators for pod VMs, their operator runtime, and an embedded control plane')
      .showHelpAfterError(),
  );
  registerStartCommand(program);
  registerDemoCommand(program);
  registerClusterCommands(program);
  registerManifestCommands(program);
  registerPeerPodCommands(program);
  registerPeerPodConfigCommand(program);
  registerWebhookCommand(program);
  registerAdaptorCommand(program);
  registerKvmCommand(program);
  return program;
}

// The `peerpods` command tree, built apart from parsing so tests can read every command's help.
//
// Startup stays light (`peerpods --help` well under 300 ms): the modules imported here register
// commands, options and defaults only — commander, ./options.ts, each part's light
// `src/<part>/defaults.ts`, and types. Whatever a command runs is imported inside its action
// (`.action(async (o) => (await import('./x.ts')).runX(o))`), so one command never loads another's
// code. A new command follows the same shape: a `command.ts` that registers, one line below.
import { Command } from 'commander';
import { configureHelp } from './help.ts';
import { registerClusterCommands } from './cluster/command.ts';
import { registerDemoCommand, registerStartCommand } from './start/command.ts';
import { registerManifestCommands } from './manifests/command.ts';
import { registerRunCommands } from './run/command.ts';
import { registerScaffoldCommands } from './scaffold/commands.ts';

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
  registerRunCommands(program);
  registerScaffoldCommands(program);
  return program;
}

// `peerpods start` and `peerpods demo`: their flags, registered without loading the stack; each
// action imports what it runs (see program.ts).
import { InvalidArgumentError } from 'commander';
import type { Command } from 'commander';
import type { ProviderWish } from '../../peerpod/index.ts';
import { DEFAULT_KUBECONFIG } from '../cluster/command.ts';
import { durationOption, parsePort } from '../options.ts';
import type { DemoOptions } from './demo.ts';
import type { StartOptions } from './start.ts';

export function parseProvider(value: string): ProviderWish {
  if (value !== 'qemu' && value !== 'simulated' && value !== 'both')
    throw new InvalidArgumentError('must be qemu, simulated or both');
  return value;
}

/** `peerpods demo` walks one provider's story. */
function parseOneProvider(value: string): Exclude<ProviderWish, 'both'> {
  if (value !== 'qemu' && value !== 'simulated') throw new InvalidArgumentError('must be qemu or simulated');
  return value;
}

export function parseNodeCount(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 100) throw new InvalidArgumentError('must be an integer within 1..100');
  return n;
}

export function registerStartCommand(program: Command): void {
  program
    .command('start')
    .description('run the control plane with simulated nodes and the whole peer-pods stack; Ctrl-C stops it')
    .option('--port <n>', 'API server port (0 picks a free one)', parsePort, 0)
    .option('--kubeconfig <file>', 'where to write the kubeconfig (state goes next to it)', DEFAULT_KUBECONFIG)
    .option(
      '--provider <name>',
      'qemu, simulated, or both side by side, each behind its own RuntimeClass (default: both when qemu-system-x86_64 runs, else simulated)',
      parseProvider,
    )
    .option('--nodes <n>', 'simulated worker nodes', parseNodeCount, 2)
    .addOption(durationOption('--summary-interval <duration>', 'how often the live summary is checked', 3000))
    .addOption(durationOption('--orphan-grace <duration>', 'age before a VM no PeerPod names is deleted', 60_000))
    .action(async (o: StartOptions) => (await import('./start.ts')).runStart(o));
}

export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description('run the whole peer-pod story unattended (create, limit, delete, failure path, orphan sweep)')
    .option('--provider <name>', 'qemu or simulated (default: qemu when qemu-system-x86_64 runs)', parseOneProvider)
    .addOption(durationOption('--orphan-grace <duration>', 'orphan sweep grace period', 5000))
    .addOption(durationOption('--step-timeout <duration>', 'deadline of each step', 30_000))
    .option('--keep', 'keep the temporary directory (state, logs)')
    .action(async (o: DemoOptions) => {
      const { demo } = await import('./demo.ts');
      const results = await demo(o, (line) => console.log(line));
      process.exit(results.length > 0 && results.every((r) => r.ok) ? 0 : 1);
    });
}

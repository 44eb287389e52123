// `peerpods demo`: the whole peer-pod story, unattended, on a fresh stack in a temporary directory.
// Exit 0 only if every step held; otherwise 1, with the failing step's ✗ line.
import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { chooseProvider, runDemo } from '../../peerpod/index.ts';
import type { StackProviderName, StepResult } from '../../peerpod/index.ts';
import { fileLogger } from './start.ts';

export interface DemoOptions {
  provider?: StackProviderName;
  orphanGrace: number;
  stepTimeout: number;
  keep?: boolean;
}

export async function demo(o: DemoOptions, print: (line: string) => void): Promise<StepResult[]> {
  const choice = await chooseProvider(o.provider);
  // The control plane is loaded only by the commands that run one (`run …` operators start faster).
  const { POD_VISIBLE_TMPDIR, startLocalStack } = await import('./local-stack.ts');
  const dir = await mkdtemp(path.join(POD_VISIBLE_TMPDIR, 'peerpods-demo-'));
  print(`peerpods demo: provider ${choice.name} — ${choice.reason}`);
  if (choice.installHint) print(`  ${choice.installHint}`);
  print(`  state and logs in ${dir}`);
  const started = performance.now();
  const local = await startLocalStack({
    nodes: 2,
    provider: choice.name,
    stateDir: dir,
    logger: fileLogger('peerpods-demo', path.join(dir, 'peerpods.log')),
    orphanGraceMs: o.orphanGrace,
    sweepIntervalMs: 1000,
  });
  print(
    `  stack up in ${((performance.now() - started) / 1000).toFixed(2)} s: cluster (nodes ${local.nodes.join(', ')}), install + deploy; controllers, webhook and adaptors running as pods`,
  );
  let results: StepResult[] = [];
  try {
    results = await runDemo(
      {
        client: local.stack.client,
        stack: local.stack,
        stateDir: dir,
        nodes: local.nodes,
        namespace: 'default',
        orphanGraceMs: o.orphanGrace,
        timeoutMs: o.stepTimeout,
        pods: new Map(),
      },
      print,
    );
  } finally {
    const report = await local.stop();
    if (report.vmsLeft > 0 || report.vmsDeletedDirectly > 0) {
      print(`  stop: ${report.vmsDeletedDirectly} VM(s) deleted directly, ${report.vmsLeft} left`);
    }
    if (!o.keep) await rm(dir, { recursive: true, force: true });
  }
  const total = results.reduce((s, r) => s + r.ms, 0);
  const failed = results.find((r) => !r.ok);
  print(
    failed
      ? `peerpods demo: FAILED at "${failed.title}"`
      : `peerpods demo: all ${results.length} steps held (${(total / 1000).toFixed(2)} s of steps)`,
  );
  return results;
}

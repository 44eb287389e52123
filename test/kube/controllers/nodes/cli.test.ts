// `peerpods cluster node add|notready|ready|remove` against a running cluster.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { eventually, startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';
import { defs } from '../scheduler/helpers.ts';

const run = promisify(execFile);
let cp: TestCluster;
before(async () => {
  cp = await startTestCluster({ nodes: 1 });
});
after(() => cp.stop());

const cli = (...args: string[]) =>
  run(process.execPath, ['bin/peerpods.js', 'cluster', 'node', ...args, '--kubeconfig', cp.kubeconfigPath]);

const ready = (name: string): string | undefined => {
  const s = cp.internals.store.getStored(defs(cp).nodes, undefined, name);
  if (!s) return undefined;
  const conds = ((JSON.parse(s.json) as JsonObject).status as { conditions?: JsonObject[] }).conditions ?? [];
  return conds.find((c) => c.type === 'Ready')?.status as string | undefined;
};

test('node add, notready, ready, remove', async () => {
  assert.match((await cli('add', 'cli-node')).stdout, /node\/cli-node created/);
  await eventually(() => ready('cli-node') === 'True', { what: 'adopted and Ready' });
  await cli('notready', 'cli-node');
  await eventually(() => ready('cli-node') === 'False');
  await cli('ready', 'cli-node');
  await eventually(() => ready('cli-node') === 'True');
  await cli('remove', 'cli-node');
  await eventually(() => ready('cli-node') === undefined && !cp.internals.nodes.list().includes('cli-node'));
});

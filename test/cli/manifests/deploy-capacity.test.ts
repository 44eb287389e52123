// The PeerPodConfig controller `peerpods deploy` installs (a process pod under its own
// ServiceAccount, RBAC enforced) evaluates capacity for real: it reads the provider settings, this
// cluster's VM tag and the PeerPods with the rules deploy grants it, and reports what this host's
// memory holds — never CapacityUnknown for a refused read. Read with kubectl, as a user would.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { startControlPlane } from '../../../src/kube/index.ts';
import { ConfigMaps, KubeClient, silentLogger } from '../../../src/runtime/index.ts';
import type { KubeObject } from '../../../src/runtime/index.ts';
import { PeerPodConfigs } from '../../../src/peerpod/index.ts';
import { processRuntimeOptions } from '../../../src/cli/cluster/process-runtime.ts';
import { deployTo } from '../../../src/cli/manifests/operations.ts';
import { DEFAULT_NAMESPACE } from '../../../src/cli/manifests/layers.ts';
import { kubectl } from '../../helpers/kubectl.ts';
import { processesMentioning } from '../../helpers/cli.ts';
import { waitFor } from '../../helpers/wait.ts';

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

/** Not under /tmp: the operators' pods may mount an emptyDir there and not see the VM state dir. */
const STATE_TMPDIR = '/var/tmp';

test(
  'a deployed PeerPodConfig controller reports the capacity this host holds (qemu), not CapacityUnknown',
  { timeout: 240_000 },
  async (t) => {
    const dir = mkdtempSync(path.join(STATE_TMPDIR, 'peerpods-deploy-capacity-'));
    const kubeconfigPath = path.join(dir, 'kubeconfig');
    const qemuDir = path.join(dir, 'qemu');
    mkdirSync(qemuDir);
    const cp = await startControlPlane({
      port: 0,
      kubeconfigPath,
      nodes: 0,
      processRuntime: processRuntimeOptions(path.join(dir, 'cluster'), []),
    });
    cp.internals.registerNodeAgent('kata-remote');
    const node = await cp.internals.nodes.add(`node-${100 + Math.floor(Math.random() * 150)}`);
    const admin = KubeClient.fromKubeconfigString(cp.kubeconfig, { logger: silentLogger() });
    t.after(async () => {
      admin.close();
      await cp.stop();
      rmSync(dir, { recursive: true, force: true });
    });
    const ns = DEFAULT_NAMESPACE;
    await deployTo(admin, {}, () => {});

    // 1 TiB VMs: this host holds none of them.
    await admin.create(ConfigMaps, {
      metadata: { name: 'peer-pods-cm', namespace: ns },
      data: {
        CLOUD_PROVIDER: 'qemu',
        QEMU_STATE_DIR: qemuDir,
        QEMU_DEFAULT_VCPUS: '1',
        QEMU_DEFAULT_MEMORY: '1048576',
      },
    } as KubeObject);
    await admin.create(PeerPodConfigs, {
      metadata: { name: 'peerpodconfig', namespace: ns },
      spec: { limit: '3' },
    } as KubeObject);

    let last = '';
    const capacity = async (): Promise<{ cond?: Condition; configured?: string; effective?: string }> => {
      const r = await kubectl(
        kubeconfigPath,
        [
          'get',
          'peerpodconfig',
          'peerpodconfig',
          '-n',
          ns,
          '-o',
          'jsonpath={.status.configuredLimit} {.status.effectiveLimit} {.status.conditions[?(@.type=="CapacityLimited")]}',
        ],
        { version: '1.33' },
      );
      assert.equal(r.code, 0, r.stderr);
      last = r.stdout;
      const [configured, effective, ...rest] = r.stdout.split(' ');
      const json = rest.join(' ');
      return { configured, effective, ...(json ? { cond: JSON.parse(json) as Condition } : {}) };
    };
    const until = async (ok: (c: Awaited<ReturnType<typeof capacity>>) => boolean, what: string) =>
      waitFor(async () => ok(await capacity()), what, 120_000, 500).catch((err: Error) => {
        throw new Error(`${err.message}; last: ${last}`);
      });

    await until((c) => c.cond?.status === 'True', 'CapacityLimited True');
    let c = await capacity();
    assert.equal(c.cond?.reason, 'HostMemory', last);
    assert.match(
      c.cond?.message ?? '',
      /^limit 3 lowered to 0: qemu: MemAvailable \d+ MiB \/ 1048576 MiB per VM = 0 \(/,
    );
    assert.deepEqual([c.configured, c.effective], ['3', '0']);

    // 128 MiB VMs: the configured limit fits, and the node gets it.
    await admin.patch(ConfigMaps, 'peer-pods-cm', ns, { data: { QEMU_DEFAULT_MEMORY: '128' } }, 'merge');
    await until((x) => x.cond?.reason === 'WithinCapacity', 'WithinCapacity');
    c = await capacity();
    assert.match(c.cond?.message ?? '', /^limit 3 fits \(\d+ can be held\): qemu: .*128 MiB per VM/);
    assert.doesNotMatch(c.cond?.message ?? '', /forbidden|cannot/);
    assert.deepEqual([c.configured, c.effective], ['3', '3']);
    await waitFor(
      async () => {
        const r = await kubectl(kubeconfigPath, [
          'get',
          'node',
          node,
          '-o',
          'jsonpath={.status.capacity.kata\\.peerpods\\.io/vm}',
        ]);
        return r.stdout === '3';
      },
      `node ${node} advertises 3 VMs`,
      60_000,
      500,
    );
    await cp.stop();
    await waitFor(() => processesMentioning(dir).length === 0, 'no process of the cluster left', 30_000, 200);
  },
);

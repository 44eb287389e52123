// CAA#3055: "a routine CAA daemonset update disrupts every peer pod workload on the node". Here the
// adaptor keeps nothing in memory: a rolling update of its DaemonSet (kubectl rollout restart, and
// the operator upgrade that changes its image) and a SIGKILL of its process leave every peer pod
// Running and Ready with no container restart and no write to it, every PeerPod as it was, and the
// cloud without a VM created or deleted (the simulated cloud's own ledger); the new adaptors own the
// VMs by their PeerPods (deleting a pod deletes exactly its VM).
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ADAPTOR_DAEMONSET, PeerPods, STACK_NAMESPACE } from '../../../src/peerpod/index.ts';
import { Pods } from '../../../src/runtime/index.ts';
import type { KubeObject } from '../../../src/runtime/index.ts';
import { kubectl } from '../../helpers/kubectl.ts';
import { waitFor } from '../../helpers/wait.ts';
import { simulatedLedger, watchForDisruption } from './adaptor-rollout/disruption.ts';
import type { DisruptionReport } from './adaptor-rollout/disruption.ts';
import {
  APP_NAMESPACE,
  adaptorDaemonSet,
  rolloutBaseline,
  runPeerPods,
  setAdaptorImage,
  sigkillAdaptor,
  startRolloutWorld,
  waitForAdaptorRollout,
} from './adaptor-rollout/world.ts';
import type { RolloutWorld } from './adaptor-rollout/world.ts';

const PODS = 6;

function assertUndisturbed(r: DisruptionReport, what: string): void {
  assert.deepEqual([...r.disruptedPods], [], `${what}: no peer pod disrupted`);
  assert.deepEqual([...r.podWrites], [], `${what}: no write to a peer pod`);
  assert.deepEqual(r.peerPodChanges, [], `${what}: every PeerPod as it was`);
  assert.equal(r.vmsCreated, 0, `${what}: no VM created`);
  assert.deepEqual(r.vmsDeleted, [], `${what}: no VM deleted`);
}

describe('adaptor rollout and restart: running peer pods are not disrupted', { timeout: 150_000 }, () => {
  let w: RolloutWorld;
  let names: string[];

  before(async () => {
    w = await startRolloutWorld({ nodes: 2, limit: 8 });
    names = await runPeerPods(w, PODS, 30_000);
  });
  after(async () => {
    await w?.stop();
  });

  it('kubectl rollout restart of the adaptor DaemonSet (RollingUpdate, maxUnavailable 1)', async () => {
    const ds = await adaptorDaemonSet(w.client);
    // maxSurge 0 is the API server's default (kubernetes pkg/apis/apps/v1/defaults.go SetDefaults_DaemonSet):
    // never two adaptors on one node, whose host port they share.
    assert.deepEqual((ds.spec as { updateStrategy?: unknown }).updateStrategy, {
      type: 'RollingUpdate',
      rollingUpdate: { maxUnavailable: 1, maxSurge: 0 },
    });
    const baseline = await rolloutBaseline(w.client);
    const watch = await watchForDisruption(w.client, APP_NAMESPACE, w.cloudDir);
    const ds1 = `daemonset/${ADAPTOR_DAEMONSET}`;
    const restart = await kubectl(w.kubeconfigPath, ['rollout', 'restart', ds1, '-n', STACK_NAMESPACE], {
      version: '1.33',
    });
    assert.equal(restart.code, 0, restart.stderr);
    const status = await kubectl(w.kubeconfigPath, ['rollout', 'status', ds1, '-n', STACK_NAMESPACE, '--timeout=60s'], {
      version: '1.33',
      timeoutMs: 70_000,
    });
    assert.equal(status.code, 0, status.stderr);
    // kubectl's DaemonSetStatusViewer (staging/src/k8s.io/kubectl/pkg/polymorphichelpers/rollout_status.go).
    assert.match(status.stdout, /daemon set "peerpodconfig-ctrl-caa-daemon" successfully rolled out/);
    const timing = await waitForAdaptorRollout(w.client, baseline, 60_000);
    assert.equal(timing.replaced, 2, 'one new adaptor pod per node');
    assertUndisturbed(await watch.stop(), 'rollout restart');
  });

  it('an operator upgrade that changes the adaptor image rolls the DaemonSet without disruption', async () => {
    const baseline = await rolloutBaseline(w.client);
    const watch = await watchForDisruption(w.client, APP_NAMESPACE, w.cloudDir);
    await setAdaptorImage(w.client, 'ghcr.io/peerpods/peerpods:next');
    const timing = await waitForAdaptorRollout(w.client, baseline, 90_000);
    const ds = await adaptorDaemonSet(w.client);
    assert.equal(ds.spec.template.spec.containers[0].image, 'ghcr.io/peerpods/peerpods:next');
    assert.equal(timing.replaced, 2);
    assertUndisturbed(await watch.stop(), 'image upgrade');
  });

  it('an adaptor SIGKILLed comes back in the same pod and disrupts nothing', async () => {
    const watch = await watchForDisruption(w.client, APP_NAMESPACE, w.cloudDir);
    const node = w.local.nodes[0];
    const killed = await sigkillAdaptor(w.client, node, 60_000);
    assert.ok(killed.restartCount >= 1, `adaptor pod ${killed.pod} restarted`);
    assertUndisturbed(await watch.stop(), 'SIGKILL');
  });

  it('the new adaptors own the VMs by their PeerPods: deleting a pod deletes exactly its VM', async () => {
    const watch = await watchForDisruption(w.client, APP_NAMESPACE, w.cloudDir);
    const pods = (await w.client.listAll(Pods, { namespace: APP_NAMESPACE })).items;
    // One pod on each node, so each new adaptor shows it acts on what it re-adopted.
    const victims = w.local.nodes
      .map((n) => pods.find((p) => (p.spec as { nodeName?: string }).nodeName === n))
      .filter((p): p is KubeObject => p !== undefined);
    assert.equal(victims.length, w.local.nodes.length, 'peer pods on every node');
    const pps = (
      await w.client.listAll<KubeObject & { spec?: { instanceID?: string } }>(PeerPods, { namespace: APP_NAMESPACE })
    ).items;
    const vmOf = (pod: KubeObject) =>
      pps.find((pp) => pp.metadata.ownerReferences?.[0]?.uid === pod.metadata.uid)?.spec?.instanceID as string;
    const vms = victims.map(vmOf);
    for (const p of victims) await w.client.delete(Pods, p.metadata.name as string, APP_NAMESPACE);
    await waitFor(
      async () => {
        const left = (await w.client.listAll(Pods, { namespace: APP_NAMESPACE })).items;
        const live = new Set(simulatedLedger(w.cloudDir).live);
        return left.length === PODS - victims.length && vms.every((id) => !live.has(id));
      },
      'the deleted pods gone with their VMs',
      30_000,
      100,
    );
    const r = await watch.stop();
    const gone = new Set(victims.map((p) => p.metadata.name as string));
    assert.deepEqual(
      [...r.disruptedPods.keys()].filter((n) => !gone.has(n)),
      [],
      'the other pods undisturbed',
    );
    assert.deepEqual(
      [...r.podWrites.keys()].filter((n) => !gone.has(n)),
      [],
    );
    assert.equal(r.vmsCreated, 0);
    assert.deepEqual([...r.vmsDeleted].sort(), [...vms].sort(), 'exactly the deleted pods’ VMs');
    assert.equal(names.length, PODS);
  });

  it('control: the watch does see a pod going NotReady and a VM deleted', async () => {
    const watch = await watchForDisruption(w.client, APP_NAMESPACE, w.cloudDir);
    const pod = (await w.client.listAll(Pods, { namespace: APP_NAMESPACE })).items[0];
    const name = pod.metadata.name as string;
    const vm = (
      await w.client.listAll<KubeObject & { spec?: { instanceID?: string } }>(PeerPods, { namespace: APP_NAMESPACE })
    ).items.find((pp) => pp.metadata.ownerReferences?.[0]?.uid === pod.metadata.uid)?.spec?.instanceID as string;
    await w.client.patch(
      Pods,
      name,
      APP_NAMESPACE,
      { status: { conditions: [{ type: 'Ready', status: 'False', reason: 'Control' }] } },
      'strategic',
      { subresource: 'status' },
    );
    rmSync(path.join(w.cloudDir, `${vm}.json`));
    await waitFor(() => watch.disrupted().has(name), 'the watch to see the pod NotReady', 10_000, 20);
    const r = await watch.stop();
    assert.equal(r.disruptedPods.get(name), 'Ready False');
    assert.deepEqual(r.vmsDeleted, [vm]);
  });
});

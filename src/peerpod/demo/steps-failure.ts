// When the node side fails: the adaptor is down (its pod deleted, the node tainted so the DaemonSet
// does not put it back) and the peer pod is force-deleted, so only the PeerPod controller can delete
// the VM (from the PeerPod's fields) and release the finalizer. Then a VM no
// PeerPod names (a crash between create and record) is swept, and everything is cleaned up.
import { randomUUID } from 'node:crypto';
import { Pods } from '../../runtime/index.ts';
import { CLUSTER_UID_TAG } from '../providers/index.ts';
import { qemuProcessesUnder } from '../main/index.ts';
import { bringAdaptorBack, takeAdaptorDown } from './adaptor-down.ts';
import type { DemoContext } from './context.ts';
import { clusterVms, peerPodsOf, podsByName, running, waitFor } from './context.ts';
import type { Step } from './runner.ts';

export const failureSteps: Step<DemoContext>[] = [
  {
    title: 'failure path: adaptor pod down, pod force-deleted → the PeerPod controller deletes the VM',
    async run(d) {
      const pod = [...(await podsByName(d)).values()].find(running);
      if (!pod) throw new Error('no running peer pod');
      const name = pod.metadata.name as string;
      const node = pod.spec.nodeName as string;
      const [pp] = await peerPodsOf(d, pod.metadata.uid as string);
      const id = pp?.spec?.instanceID;
      if (!id) throw new Error(`${name} has no PeerPod with an instance ID`);
      await takeAdaptorDown(d.client, d.stack.namespace, node, d.timeoutMs);
      const started = Date.now();
      // Nobody on the node can finish a graceful delete: force it, as for a node that is gone.
      await d.client.delete(Pods, name, d.namespace, { gracePeriodSeconds: 0 });
      d.pods.delete(name);
      let vmGoneMs = 0;
      await waitFor(d, `VM ${id} deleted and PeerPod ${pp.metadata.name} released`, async () => {
        if (!vmGoneMs && !(await clusterVms(d)).some((v) => v.id === id)) vmGoneMs = Date.now() - started;
        return vmGoneMs > 0 && (await peerPodsOf(d, pod.metadata.uid as string)).length === 0;
      });
      const releasedMs = Date.now() - started;
      await bringAdaptorBack(d.client, d.stack.namespace, node, d.timeoutMs);
      return `${name} on ${node}: VM gone after ${vmGoneMs} ms, finalizer released, PeerPod gone after ${releasedMs} ms; adaptor pod back`;
    },
  },
  {
    title: 'orphan sweep: a VM no PeerPod names is deleted after the grace period',
    async run(d) {
      const vm = await d.stack.provider.createInstance({
        podName: 'orphan',
        podNamespace: d.namespace,
        sandboxId: randomUUID(),
        vcpus: 1,
        memoryMiB: 128,
        tags: { [CLUSTER_UID_TAG]: d.stack.clusterUid },
      });
      // The grace period runs from the VM's own creation time, which is before createInstance returns.
      const started = vm.createdAt.getTime();
      await waitFor(
        d,
        `orphan VM ${vm.name} swept`,
        async () => !(await clusterVms(d)).some((v) => v.id === vm.id),
        d.orphanGraceMs + d.timeoutMs,
      );
      const ms = Date.now() - started;
      if (ms < d.orphanGraceMs)
        throw new Error(`swept ${ms} ms after the VM was created, before the ${d.orphanGraceMs} ms grace period`);
      return `${vm.name} swept after ${ms} ms (grace ${d.orphanGraceMs} ms)`;
    },
  },
  {
    title: 'cleanup: every peer pod deleted, no VM left',
    async run(d) {
      const report = await d.stack.drain(d.timeoutMs);
      d.pods.clear();
      if (report.vmsDeletedDirectly > 0) throw new Error(`${report.vmsDeletedDirectly} VM(s) needed a direct delete`);
      if (report.vmsLeft > 0) throw new Error(`${report.vmsLeft} VM(s) left`);
      if (d.stack.provider.name === 'qemu') {
        const left = await qemuProcessesUnder(d.stateDir);
        if (left.length) throw new Error(`qemu processes left: ${left.map((p) => p.pid).join(', ')}`);
      }
      await waitFor(d, 'PeerPods gone', async () => (await peerPodsOf(d, '')).length === 0);
      return `${report.podsDeleted} pods deleted in ${report.ms} ms; no VM${d.stack.provider.name === 'qemu' ? ' process' : ''} left`;
    },
  },
];

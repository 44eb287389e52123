// The PeerPodConfig limit at work (4 VMs over 2 nodes: a 5th pod waits), and a pod's way down.
import { Pods } from '../../runtime/index.ts';
import { SAMPLE_LIMIT } from '../main/index.ts';
import { DEFAULT_EXTENDED_RESOURCE } from '../webhook/index.ts';
import type { DemoContext, PodView } from './context.ts';
import { clusterVms, eventsOf, getPod, peerPodsOf, podsByName, running, waitFor } from './context.ts';
import type { Step } from './runner.ts';
import { createPods } from './steps-life.ts';

const MORE = Array.from(
  { length: SAMPLE_LIMIT - 1 },
  (_, i) => [`demo-${i + 3}`, { cpu: '1', memory: '128Mi' }] as const,
);

export const limitSteps: Step<DemoContext>[] = [
  {
    title: `over the limit (${SAMPLE_LIMIT} VMs): the 5th pod stays Pending`,
    async run(d) {
      await createPods(
        d,
        MORE.map(([n, r]) => [n, { ...r }]),
      );
      let pending: PodView | undefined;
      let message = '';
      await waitFor(d, `${SAMPLE_LIMIT} pods Running and 1 Pending with FailedScheduling`, async () => {
        const pods = [...(await podsByName(d)).values()];
        const up = pods.filter(running);
        const waiting = pods.filter((p) => !p.spec.nodeName);
        if (up.length !== SAMPLE_LIMIT || waiting.length !== 1) return false;
        pending = waiting[0];
        const ev = (await eventsOf(d, pending)).find((e) => e.reason === 'FailedScheduling');
        message = ev?.message ?? '';
        return message.includes(DEFAULT_EXTENDED_RESOURCE);
      });
      d.pendingPod = pending?.metadata.name as string;
      const vms = (await clusterVms(d)).length;
      if (vms !== SAMPLE_LIMIT) throw new Error(`${vms} VMs, want ${SAMPLE_LIMIT}`);
      return `${d.pendingPod} Pending: "${message}"`;
    },
  },
  {
    title: 'delete a pod → its VM and PeerPod go, the Pending pod takes the slot',
    async run(d) {
      const pod = await getPod(d, 'demo-1');
      if (!pod) throw new Error('demo-1 not found');
      const [pp] = await peerPodsOf(d, pod.metadata.uid as string);
      const id = pp?.spec?.instanceID;
      if (!id) throw new Error('demo-1 has no PeerPod with an instance ID');
      const started = Date.now();
      await d.client.delete(Pods, 'demo-1', d.namespace);
      d.pods.delete('demo-1');
      let vmGoneMs = 0;
      await waitFor(d, `VM ${id} gone and demo-1's PeerPod gone`, async () => {
        if (!vmGoneMs && !(await clusterVms(d)).some((v) => v.id === id)) vmGoneMs = Date.now() - started;
        return (
          vmGoneMs > 0 && (await peerPodsOf(d, pod.metadata.uid as string)).length === 0 && !(await getPod(d, 'demo-1'))
        );
      });
      const goneMs = Date.now() - started;
      const pending = d.pendingPod ?? '';
      await waitFor(d, `${pending} Running`, async () => running(await getPod(d, pending)));
      return `VM gone after ${vmGoneMs} ms, PeerPod after ${goneMs} ms; ${pending} Running`;
    },
  },
];

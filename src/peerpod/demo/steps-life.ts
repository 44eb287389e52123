// A peer pod's way up: created → mutated by the webhook → scheduled → its VM running → recorded in
// a PeerPod owned by the pod and held by the adaptor's finalizer.
import { Pods } from '../../runtime/index.ts';
import { PEERPOD_FINALIZER } from '../api/index.ts';
import { peerPodManifest, qemuProcessesUnder, vmSizeOfArgs } from '../main/index.ts';
import { Annotations, DEFAULT_EXTENDED_RESOURCE } from '../webhook/index.ts';
import type { DemoContext } from './context.ts';
import { clusterVms, peerPodsOf, podsByName, running, waitFor } from './context.ts';
import type { Step } from './runner.ts';

export const FIRST_PODS: Array<[string, { cpu: string; memory: string }]> = [
  ['demo-1', { cpu: '1', memory: '128Mi' }],
  ['demo-2', { cpu: '2', memory: '256Mi' }],
];

const mib = (q: string): number => Number(q.replace(/Mi$/, ''));

export async function createPods(
  d: DemoContext,
  pods: Array<[string, { cpu: string; memory: string }]>,
): Promise<void> {
  for (const [name, res] of pods) {
    await d.client.create(Pods, peerPodManifest(name, res, d.namespace));
    d.pods.set(name, res);
  }
}

export const lifeSteps: Step<DemoContext>[] = [
  {
    title: 'create 2 peer pods (runtimeClassName kata-remote)',
    async run(d) {
      await createPods(d, FIRST_PODS);
      return FIRST_PODS.map(([n, r]) => `${n} ${r.cpu} CPU/${r.memory}`).join(', ');
    },
  },
  {
    title: `webhook: requests → 1 ${DEFAULT_EXTENDED_RESOURCE} + VM size annotations`,
    async run(d) {
      const pods = await podsByName(d);
      for (const [name, want] of FIRST_PODS) {
        const p = pods.get(name);
        if (!p) throw new Error(`${name} not found`);
        const a = p.metadata.annotations ?? {};
        const r = p.spec.containers[0].resources ?? {};
        if (r.requests?.[DEFAULT_EXTENDED_RESOURCE] !== '1' || r.requests.cpu || r.requests.memory) {
          throw new Error(`${name}: resources not mutated: ${JSON.stringify(r)}`);
        }
        if (a[Annotations.vcpus] !== want.cpu || a[Annotations.memory] !== String(mib(want.memory))) {
          throw new Error(`${name}: annotations ${JSON.stringify(a)}`);
        }
      }
      return FIRST_PODS.map(([n, r]) => `${n} vcpus=${r.cpu} memory=${mib(r.memory)}`).join(', ');
    },
  },
  {
    title: 'scheduled onto nodes with free VM capacity',
    async run(d) {
      let where = '';
      await waitFor(d, 'both pods bound', async () => {
        const pods = await podsByName(d);
        const bound = FIRST_PODS.map(([n]) => pods.get(n)?.spec.nodeName);
        where = FIRST_PODS.map(([n], i) => `${n} → ${bound[i]}`).join(', ');
        return bound.every(Boolean);
      });
      return where;
    },
  },
  {
    title: 'VMs running, pods Running with the VM IP',
    async run(d) {
      await waitFor(d, 'both pods Running', async () => {
        const pods = await podsByName(d);
        return FIRST_PODS.every(([n]) => running(pods.get(n)));
      });
      const vms = await clusterVms(d);
      if (vms.length !== 2) throw new Error(`provider lists ${vms.length} VMs, want 2`);
      if (d.stack.provider.name !== 'qemu')
        return `${vms.length} ${d.stack.provider.name} VMs: ${vms.map((v) => v.name).join(', ')}`;
      const procs = await qemuProcessesUnder(d.stateDir);
      const sizes: string[] = [];
      for (const [name, want] of FIRST_PODS) {
        const p = procs.find((x) => x.args.some((a) => a.startsWith(`podvm-${name}-`)));
        if (!p) throw new Error(`no qemu process for ${name}`);
        const size = vmSizeOfArgs(p.args);
        if (size.vcpus !== Number(want.cpu) || size.memoryMiB !== mib(want.memory)) {
          throw new Error(
            `${name}: qemu -smp ${size.vcpus} -m ${size.memoryMiB}, want ${want.cpu}/${mib(want.memory)}`,
          );
        }
        sizes.push(`${name}: pid ${p.pid} -smp ${size.vcpus} -m ${size.memoryMiB}`);
      }
      return sizes.join(', ');
    },
  },
  {
    title: `PeerPods owned by their pods, with ${PEERPOD_FINALIZER}`,
    async run(d) {
      const pods = await podsByName(d);
      const out: string[] = [];
      for (const [name] of FIRST_PODS) {
        const pod = pods.get(name);
        const [pp, ...more] = await peerPodsOf(d, pod?.metadata.uid as string);
        if (!pp || more.length) throw new Error(`${name}: ${more.length + (pp ? 1 : 0)} PeerPods, want 1`);
        const owner = pp.metadata.ownerReferences?.[0];
        if (owner?.kind !== 'Pod' || owner.controller !== true)
          throw new Error(`${pp.metadata.name}: owner ${JSON.stringify(owner)}`);
        if (!pp.metadata.finalizers?.includes(PEERPOD_FINALIZER)) throw new Error(`${pp.metadata.name}: no finalizer`);
        if (!pp.spec?.instanceID) throw new Error(`${pp.metadata.name}: no instanceID`);
        out.push(`${pp.metadata.name} → ${pp.spec.instanceID.slice(0, 13)}`);
      }
      return out.join(', ');
    },
  },
];

// What `peerpods start` prints: which provider(s) and why, where things are, and the kubectl commands
// that walk through a peer pod's life (on each provider, when two run side by side).
import { relative } from 'node:path';
import { stringify } from 'yaml';
import {
  ADAPTOR_DAEMONSET,
  QEMU_BINARY,
  RUNTIME_CLASS,
  SAMPLE_LIMIT,
  STACK_NAMESPACE,
  WEBHOOK_DEPLOYMENT,
  adaptorDaemonSetForRuntimeClass,
  peerPodManifest,
} from '../../peerpod/index.ts';
import type { ProviderChoice, StackBinding } from '../../peerpod/index.ts';
import { PEERPOD_CONTROLLER_DEPLOYMENT } from '../manifests/layers.ts';

export function peerPodYaml(name: string, runtimeClassName = RUNTIME_CLASS): string {
  return stringify(peerPodManifest(name, undefined, undefined, runtimeClassName));
}

export interface BannerInfo {
  url: string;
  kubeconfigPath: string;
  stateDir: string;
  logFile: string;
  manifestPath: string;
  /** A provider beside the first (the simulated one beside qemu), and its peer pod manifest. */
  beside?: { binding: StackBinding; manifestPath: string };
  provider: ProviderChoice;
  providerConfig: Record<string, string>;
  nodes: string[];
  clusterUid: string;
  reapedAtStart: number;
}

/** Paths relative to the working directory when they are inside it: shorter, copy-pasteable. */
function rel(p: string): string {
  const r = relative(process.cwd(), p);
  return r && !r.startsWith('..') ? r : p;
}

export function bannerLines(b: BannerInfo): string[] {
  const k = `kubectl --kubeconfig ${rel(b.kubeconfigPath)}`;
  const lines = [
    `peerpods: control plane ${b.url} · ${b.nodes.length} simulated worker nodes (${b.nodes.join(', ')}) · cluster UID ${b.clusterUid}`,
    `provider: ${b.provider.name} — ${b.provider.reason}`,
  ];
  const beside = b.beside?.binding;
  if (beside) {
    lines.push(
      `          and ${beside.provider} beside it (RuntimeClass ${beside.runtimeClassName}); one provider only: --provider qemu|simulated`,
    );
  }
  if (b.provider.installHint) lines.push(`          ${b.provider.installHint}; then restart`);
  if (b.provider.name === 'qemu')
    lines.push(`          VM state, logs and QMP sockets: ${rel(b.providerConfig.QEMU_STATE_DIR)}`);
  if (b.reapedAtStart > 0) lines.push(`          deleted ${b.reapedAtStart} VM(s) an earlier run left behind`);
  lines.push(
    `deployed: \`peerpods install\` + \`peerpods deploy\` (config/default) into ${STACK_NAMESPACE}, as on a real cluster:`,
    `         PeerPod + PeerPodConfig controllers (Deployments), webhook (Deployment ${WEBHOOK_DEPLOYMENT}),`,
    `         one adaptor pod per node (DaemonSet ${ADAPTOR_DAEMONSET}) — each a process pod; RuntimeClass ${RUNTIME_CLASS},`,
    `         PeerPodConfig peerpodconfig-sample (limit ${SAMPLE_LIMIT} VMs, spread over the nodes)`,
  );
  if (beside) {
    lines.push(
      `         and for ${beside.provider}: PeerPodConfig ${beside.configName} (limit ${SAMPLE_LIMIT}; RuntimeClass ${beside.runtimeClassName},`,
      `         resource ${beside.extendedResource}, settings ${beside.configMap} + ${beside.secret}),`,
      `         its adaptors in DaemonSet ${adaptorDaemonSetForRuntimeClass(beside.runtimeClassName)}`,
    );
  }
  lines.push(
    `kubeconfig: ${rel(b.kubeconfigPath)} · logs: ${rel(b.logFile)}`,
    '',
    'try:',
    `  ${k} apply -f ${rel(b.manifestPath)}            # a pod with runtimeClassName ${RUNTIME_CLASS}`,
    `  ${k} get pods,peerpods -o wide                    # the pod Running, its PeerPod`,
    `  ${k} get pod peer-pod-1 -o jsonpath='{.metadata.annotations}{"\\n"}{.spec.containers[0].resources}{"\\n"}'`,
    `  ${k} get peerpods -o jsonpath='{range .items[*]}{.metadata.name}{"\\t"}{.spec.cloudProvider}{"\\t"}{.spec.instanceID}{"\\n"}{end}'`,
  );
  if (b.provider.name === 'qemu') lines.push(`  ps -o pid,args -C ${QEMU_BINARY}                      # the pod's VM`);
  if (b.beside) {
    const { binding, manifestPath } = b.beside;
    lines.push(
      `  ${k} apply -f ${rel(manifestPath)}        # a pod with runtimeClassName ${binding.runtimeClassName}: a ${binding.provider} VM`,
      `  ${k} get peerpods -o wide                         # each PeerPod's PROVIDER`,
    );
  }
  lines.push(
    `  ${k} get nodes -o custom-columns=NAME:.metadata.name,VMS:.status.allocatable.kata\\.peerpods\\.io/vm`,
    `  ${k} delete pod peer-pod-1                        # the VM goes, then the PeerPod`,
    `  ${k} get pods -n ${STACK_NAMESPACE} -o wide             # the operator, webhook and adaptor pods`,
    `  ${k} logs -n ${STACK_NAMESPACE} deploy/${PEERPOD_CONTROLLER_DEPLOYMENT}`,
    '',
  );
  return lines;
}

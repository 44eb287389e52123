// The local peer-pods stack (`peerpods start`, `peerpods demo`, the end-to-end benchmark): its
// settings and sample PeerPodConfig, readiness, summary and drain. The CLI deploys it.
export type { PeerPodsStack, StackProvider } from './stack.ts';
export type { DrainReport } from './shutdown.ts';
export { deleteSpares, drainPeerPods, peerPodsInCluster } from './shutdown.ts';
export { reapOtherProviders, reapPreviousRuns } from './reap.ts';
export { applyPeerPodConfigs, applySettings, stackPeerPodConfig } from './bootstrap.ts';
export type { BootstrapOptions } from './bootstrap.ts';
export { waitForStackReady } from './readiness.ts';
export type { ReadyBinding } from './readiness.ts';
export { formatSummary, summarize } from './summary.ts';
export type { Summary } from './summary.ts';
export { until } from './readiness.ts';
export { samplePeerPodConfig } from './bootstrap.ts';
export {
  QEMU_BINARY,
  QEMU_INSTALL_HINT,
  RUNTIME_CLASS,
  SAMPLE_CONFIG_NAME,
  SAMPLE_LIMIT,
  SIM_RUNTIME_CLASS,
  STACK_NAMESPACE,
  chooseProvider,
  choiceProviders,
  stackBindings,
  providerConfigFor,
  qemuAvailable,
} from './settings.ts';
export type { ProviderChoice, ProviderWish, StackBinding, StackProviderName } from './settings.ts';
export { qemuProcessesUnder, vmSizeOfArgs } from './processes.ts';
export type { VmProcess } from './processes.ts';
export { peerPodManifest } from './manifest.ts';

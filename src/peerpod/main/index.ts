// The local peer-pods stack (`peerpods start`, `peerpods demo`, the end-to-end benchmark).
export { startPeerPodsStack } from './stack.ts';
export type { PeerPodsStack, StackOptions } from './stack.ts';
export type { DrainReport } from './shutdown.ts';
export { peerPodsInCluster } from './shutdown.ts';
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
  STACK_NAMESPACE,
  chooseProvider,
  providerConfigFor,
  qemuAvailable,
} from './settings.ts';
export type { ProviderChoice, StackProviderName } from './settings.ts';
export { qemuProcessesUnder, vmSizeOfArgs } from './processes.ts';
export type { VmProcess } from './processes.ts';
export { peerPodManifest } from './manifest.ts';

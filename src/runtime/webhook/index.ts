export { WebhookServer } from './server.ts';
export type { WebhookServerOptions } from './server.ts';
export {
  AdmissionDenied,
  allowed,
  denied,
  errored,
  jsonPatchOps,
  mutatingHandler,
  patched,
  validatingHandler,
} from './admission.ts';
export type { AdmissionHandler, AdmissionResult } from './admission.ts';
export { CertWatcher } from './cert-watcher.ts';
export type { CertWatcherOptions, KeyPair } from './cert-watcher.ts';
export type {
  AdmissionRequest,
  AdmissionResponse,
  AdmissionReview,
  AdmissionStatus,
  GroupVersionKind,
  GroupVersionResource,
  Operation,
} from './types.ts';

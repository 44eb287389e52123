// What a deleted PeerPodConfig leaves to undo before its finalizer goes: the capacity it advertised
// on nodes and the cluster-scoped MutatingWebhookConfiguration (no owner reference can reach it).
// The owned namespaced objects (DaemonSet, Deployment, Service, Secret) go with the garbage
// collector. Every part is tried; any failure fails the cleanup, so the finalizer stays and the
// controller retries.
import { MutatingWebhookConfigurations, isNotFound } from '../../../runtime/index.ts';
import type { KubeObject } from '../../../runtime/index.ts';
import type { PeerPodConfig } from '../../api/peerpodconfig.ts';
import { releaseAll } from './capacity.ts';
import { OWNER_NAMESPACE_LABEL, OWNER_NAME_LABEL, webhookConfigurationName } from './objects.ts';
import type { ReconcilerDeps } from './reconciler.ts';
import { errorMessage } from './stages.ts';

export async function cleanupConfig(deps: ReconcilerDeps, cfg: PeerPodConfig, signal: AbortSignal): Promise<void> {
  const failures = await releaseAll(deps, cfg, signal);
  const webhookFailure = await deleteWebhookConfiguration(deps, cfg, signal);
  if (webhookFailure) failures.push(webhookFailure);
  if (failures.length > 0) {
    deps.metrics.errors.inc({ stage: 'cleanup' });
    deps.events.warning(cfg, 'CleanupFailed', failures.join('; '));
    throw new Error(`cleanup of ${cfg.metadata.namespace}/${cfg.metadata.name}: ${failures.join('; ')}`);
  }
}

/** Deletes the configuration only if it is ours; returns the failure, if any. */
async function deleteWebhookConfiguration(
  deps: ReconcilerDeps,
  cfg: PeerPodConfig,
  signal: AbortSignal,
): Promise<string | undefined> {
  const ns = cfg.metadata.namespace as string;
  const name = webhookConfigurationName(ns);
  try {
    const mwc = await deps.client.get<KubeObject>(MutatingWebhookConfigurations, name, undefined, { signal });
    const labels = mwc.metadata.labels ?? {};
    // Another tool may have put a configuration of that name there.
    if (labels[OWNER_NAMESPACE_LABEL] === ns && labels[OWNER_NAME_LABEL] === cfg.metadata.name) {
      await deps.client.delete(MutatingWebhookConfigurations, name, undefined, { signal });
    }
    return undefined;
  } catch (err) {
    return isNotFound(err) ? undefined : `MutatingWebhookConfiguration: ${errorMessage(err)}`;
  }
}

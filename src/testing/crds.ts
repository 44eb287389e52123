// Installing CRDs for a test: the runtime's installCrds applies each and resolves once every served
// version answers a LIST, so the first write of a custom resource after installCRDs never meets a 404.
// With the environment's webhook serving, conversion webhooks are pointed at the test's server.
import { installCrds, type KubeClient, type KubeObject } from '../runtime/index.ts';
import { readManifests, type ManifestSource } from './manifests.ts';
import { withConversionWebhook, type WebhookServing } from './webhooks.ts';

export async function installCustomResourceDefinitions(
  client: KubeClient,
  sources: readonly ManifestSource[],
  opts: { fieldManager: string; timeoutMs: number; webhook?: WebhookServing | undefined },
): Promise<KubeObject[]> {
  const read = readManifests(sources, ['CustomResourceDefinition']);
  const serving = opts.webhook;
  const crds = serving ? read.map((crd) => withConversionWebhook(crd, serving)) : read;
  if (crds.length === 0 && sources.length > 0)
    throw new Error('installCRDs: no CustomResourceDefinition in the sources');
  await installCrds(client, crds, { fieldManager: opts.fieldManager, timeoutMs: opts.timeoutMs });
  return crds;
}

// Installing CRDs from code, as envtest's InstallCRDs does: apply each definition, then wait until
// the server serves its kind, so objects of it can be written right after.
import { CustomResourceDefinitions } from '../client/resources.ts';
import type { KubeObject } from '../client/types.ts';
import type { HelperClient } from '../helpers/client.ts';
import { serverSideApply } from '../helpers/apply.ts';

const POLL_MS = 50;

interface CrdStatus {
  conditions?: Array<{ type: string; status: string }>;
}

/** Server-side applies every CRD, each followed by waitEstablished. */
export async function installCrds(
  client: HelperClient,
  crds: KubeObject[],
  opts: { fieldManager: string; timeoutMs?: number },
): Promise<void> {
  for (const crd of crds) {
    await serverSideApply(client, CustomResourceDefinitions, crd, { fieldManager: opts.fieldManager, force: true });
    await waitEstablished(client, crd.metadata.name as string, opts.timeoutMs);
  }
}

/** Waits until the CRD named `name` is Established, so objects of its kind can be written. */
export async function waitEstablished(client: HelperClient, name: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const crd = await client.get(CustomResourceDefinitions, name);
    const conditions = (crd.status as CrdStatus | undefined)?.conditions ?? [];
    if (conditions.some((c) => c.type === 'Established' && c.status === 'True')) return;
    if (Date.now() > deadline) throw new Error(`CRD ${name} not Established after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

// Installing CRDs from code, as envtest's InstallCRDs does: apply each definition, then wait until
// the server serves every version of its kind, so objects of it can be written right after.
import type { KubeClient } from '../client/client.ts';
import { CustomResourceDefinitions, customResource } from '../client/resources.ts';
import type { KubeObject, ResourceType } from '../client/types.ts';
import { serverSideApply } from '../helpers/apply.ts';

const POLL_MS = 50;
const DEFAULT_TIMEOUT_MS = 30_000;

/** The calls installCrds makes (a structural type, so tests can pass a fake). */
export type CrdClient = Pick<KubeClient, 'get' | 'create' | 'patch' | 'list'>;

interface CrdStatus {
  conditions?: Array<{ type: string; status: string }>;
}

interface CrdSpec {
  group: string;
  names: { kind: string; plural: string };
  scope: 'Namespaced' | 'Cluster';
  versions: Array<{ name: string; served: boolean }>;
}

/**
 * Server-side applies every CRD, then waits until each is Established and each of its served
 * versions answers a LIST: Established alone does not mean every version's endpoint is up, and
 * the first write after installCrds must not meet a 404.
 */
export async function installCrds(
  client: CrdClient,
  crds: KubeObject[],
  opts: { fieldManager: string; timeoutMs?: number },
): Promise<void> {
  for (const crd of crds) {
    await serverSideApply(client, CustomResourceDefinitions, crd, { fieldManager: opts.fieldManager, force: true });
    await waitEstablished(client, crd.metadata.name as string, opts.timeoutMs);
    for (const type of servedResources(crd)) await waitServed(client, type, opts.timeoutMs);
  }
}

/** Every served version of the CRD, as a resource type the client can list. */
export function servedResources(crd: KubeObject): ResourceType[] {
  const spec = crd.spec as CrdSpec;
  return spec.versions
    .filter((v) => v.served)
    .map((v) => customResource(spec.group, v.name, spec.names.kind, spec.names.plural, spec.scope === 'Namespaced'));
}

/** Waits until the CRD named `name` is Established, so objects of its kind can be written. */
export async function waitEstablished(
  client: Pick<KubeClient, 'get'>,
  name: string,
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const crd = await client.get(CustomResourceDefinitions, name);
    const conditions = (crd.status as CrdStatus | undefined)?.conditions ?? [];
    if (conditions.some((c) => c.type === 'Established' && c.status === 'True')) return;
    if (Date.now() > deadline) throw new Error(`CRD ${name} not Established after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** Waits until a LIST of `type` succeeds (until then the version's endpoint answers 404). */
async function waitServed(client: Pick<KubeClient, 'list'>, type: ResourceType, timeoutMs = DEFAULT_TIMEOUT_MS) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await client.list(type, { limit: 1 });
      return;
    } catch (err) {
      if (Date.now() > deadline) {
        const why = err instanceof Error ? err.message : String(err);
        throw new Error(`${type.plural}.${type.group}/${type.version} not served after ${timeoutMs} ms: ${why}`);
      }
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

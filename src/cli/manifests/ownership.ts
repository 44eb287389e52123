// What `undeploy` may delete: only what `deploy` made. Every generated object carries
// `app.kubernetes.io/managed-by: peerpods`; the operator's namespace is the exception, since an
// administrator may have made it (with peer-pods-cm and peer-pods-secret in it) before deploying:
// `deploy` applies it only when it does not exist yet, and then marks it with an annotation that
// no one else writes, so undeploy deletes the namespace (and what is in it) only in that case.
import { Namespaces, isNotFound } from '../../runtime/index.ts';
import type { KubeClient, KubeObject } from '../../runtime/index.ts';

export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY = 'peerpods';
/** On a namespace `peerpods deploy` created (never on one that existed before). */
export const CREATED_BY_DEPLOY_ANNOTATION = 'peerpods.io/created-by-deploy';

function createdByDeploy(ns: KubeObject): boolean {
  return ns.metadata.annotations?.[CREATED_BY_DEPLOY_ANNOTATION] === 'true';
}

/**
 * The objects to apply, the Namespace marked when deploy creates it (or created it on an earlier
 * run: applying without the annotation would drop it) and left out when it existed before.
 */
export async function claimNamespaces(
  client: KubeClient,
  objects: KubeObject[],
  log: (line: string) => void,
): Promise<KubeObject[]> {
  const out: KubeObject[] = [];
  for (const obj of objects) {
    if (obj.kind !== 'Namespace') {
      out.push(obj);
      continue;
    }
    const name = obj.metadata.name as string;
    let live: KubeObject | undefined;
    try {
      live = await client.get(Namespaces, name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (live && !createdByDeploy(live)) {
      log(`Namespace ${name} exists; kept as it is`);
      continue;
    }
    const annotations = { ...obj.metadata.annotations, [CREATED_BY_DEPLOY_ANNOTATION]: 'true' };
    out.push({ ...obj, metadata: { ...obj.metadata, annotations } });
  }
  return out;
}

/** Whether undeploy may delete this live object: deploy made it. */
export function madeByDeploy(live: KubeObject): boolean {
  if (live.kind === 'Namespace') return createdByDeploy(live);
  return live.metadata.labels?.[MANAGED_BY_LABEL] === MANAGED_BY;
}

// What the node handlers (config maps, deployments, PVCs) need before they may act on a cluster:
// a spec whose parallel node lists agree, a node index for every node, and the cluster's Release.
// Shared so the three handlers refuse in the same way and with the same words.
import type { HandlerContext } from '../../../runtime/index.ts';
import { Labels } from '../../api/labels.ts';
import type { KVMConfig } from '../../api/kvmconfig.ts';
import { releaseName } from '../../api/release.ts';
import type { Release } from '../../api/release.ts';
import type { KvmDeps } from '../../deps.ts';
import { clusterNodes, releaseVersionOf, specProblem } from '../../key.ts';

/** The cluster's Release is missing: nothing versioned can be rendered until it exists. */
export class ReleaseNotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReleaseNotFoundError';
  }
}

/**
 * The Release named by the KVMConfig's `release.giantswarm.io/version` label. A missing one is an
 * error (the controller retries with backoff) and a Warning event, because only a user can fix it.
 */
export function clusterRelease(deps: Pick<KvmDeps, 'release' | 'events'>, c: KVMConfig): Release {
  const version = releaseVersionOf(c);
  const release = version ? deps.release(releaseName(version)) : undefined;
  if (release) return release;
  const who = `KVMConfig ${c.metadata.namespace ?? ''}/${c.metadata.name ?? ''}`;
  const message = version
    ? `Release ${releaseName(version)} not found: ${who} is labelled ${Labels.releaseVersion}=${version}; create the Release or fix the label`
    : `${who} has no ${Labels.releaseVersion} label, so no Release gives its component versions`;
  deps.events.warning(c, 'ReleaseNotFound', message);
  throw new ReleaseNotFoundError(message);
}

/** IDs of the cluster's nodes that have no entry in `status.kvm.nodeIndexes` yet. */
export function nodesWithoutIndex(c: KVMConfig): string[] {
  const indexes = c.status?.kvm?.nodeIndexes ?? {};
  return clusterNodes(c)
    .map((n) => n.id)
    .filter((id) => indexes[id] === undefined);
}

/**
 * Cancels the handler (and says why) when the node handlers must not act yet. A spec whose node
 * lists disagree is never guessed at: acting on the shorter list would scale the cluster in.
 * Nodes without an index wait for the nodeindexstatus handler, which runs first and assigns them.
 */
export function nodesReady(c: KVMConfig, ctx: HandlerContext): boolean {
  const problem = specProblem(c);
  if (problem) {
    ctx.log.info({ problem }, 'invalid node lists; nodes are left as they are');
    ctx.cancelHandler(`invalid spec: ${problem}`);
    return false;
  }
  const missing = nodesWithoutIndex(c);
  if (missing.length > 0) {
    ctx.cancelHandler(`node(s) ${missing.join(', ')} have no node index yet`);
    return false;
  }
  return true;
}

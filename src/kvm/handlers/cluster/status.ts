// The first handler of the cluster chain: validates the spec, reads the workload cluster's nodes
// and writes status (upstream's statusresource plus our standard conditions). Any status write ends
// the loop: the write's own watch event brings the next one, which then acts on the new status.
// An invalid spec ends every loop here, so no later handler acts on it (parallel lists of unequal
// length, duplicate node IDs). An unreachable workload API is reported, not fatal: the management-
// cluster side of the chain still runs.
import { formatTime } from '../../../apimachinery/time/index.ts';
import { Nodes, patchStatusFrom, setCondition } from '../../../runtime/index.ts';
import type { Condition, ConditionInput, HandlerContext, ResourceHandler } from '../../../runtime/index.ts';
import { KVMConfigs } from '../../api/kvmconfig.ts';
import type { KVMConfig } from '../../api/kvmconfig.ts';
import type { KvmDeps } from '../../deps.ts';
import { clusterNodes, operatorVersionOf, releaseVersionOf, specProblem } from '../../key.ts';
import { WorkloadCredentialsError, isWorkloadUnavailable } from '../../workload/index.ts';
import {
  ConditionTypes,
  deletingClusterStatus,
  latestClusterCondition,
  nextClusterStatus,
  readyCondition,
  specProblemReason,
  workloadNodeView,
} from './status-compute.ts';
import type { WorkloadNodeObject, WorkloadNodeView } from './status-compute.ts';

/** The version recorded in status.cluster.versions: the release, else the operator version. */
export function desiredClusterVersion(c: KVMConfig): string {
  return releaseVersionOf(c) || operatorVersionOf(c);
}

/** A copy of `c` to mutate, and its status.conditions typed as metav1.Conditions. */
function draft(c: KVMConfig): { after: KVMConfig; conditions: Condition[] } {
  const after = structuredClone(c);
  after.status ??= {};
  after.status.conditions ??= [];
  return { after, conditions: after.status.conditions as Condition[] };
}

export function statusHandler(deps: KvmDeps): ResourceHandler<KVMConfig> {
  const now = (): number => deps.options.now();
  const set = (conditions: Condition[], c: KVMConfig, input: ConditionInput): boolean =>
    setCondition(conditions, { ...input, observedGeneration: c.metadata.generation }, now());

  async function write(c: KVMConfig, after: KVMConfig, ctx: HandlerContext): Promise<boolean> {
    const written = await patchStatusFrom(deps.client, KVMConfigs, c, after, { signal: ctx.signal });
    return written !== undefined;
  }

  /** The workload nodes, or undefined (with the reason set on `conditions`) when its API is unavailable. */
  async function readNodes(
    c: KVMConfig,
    conditions: Condition[],
    ctx: HandlerContext,
  ): Promise<WorkloadNodeView[] | undefined> {
    const type = ConditionTypes.WorkloadClusterReachable;
    const wasReachable = conditions.find((x) => x.type === type)?.status === 'True';
    try {
      const wc = deps.workload.clientFor(c);
      const list = await wc.list<WorkloadNodeObject>(Nodes, {
        signal: ctx.signal,
      });
      set(conditions, c, { type, status: 'True', reason: 'Reachable', message: `${list.items.length} node(s) listed` });
      return list.items.map((n) => workloadNodeView(n, deps.options.version, releaseVersionOf(c)));
    } catch (e) {
      if (!isWorkloadUnavailable(e)) throw e;
      const reason = e instanceof WorkloadCredentialsError ? 'CredentialsMissing' : 'Unreachable';
      const existing = conditions.find((x) => x.type === type);
      // Keep the first message of an outage: error texts vary (timings, addresses), and a status
      // rewritten every loop would end every loop here.
      const message =
        existing?.status === 'False' && existing.reason === reason ? existing.message : (e as Error).message;
      set(conditions, c, { type, status: 'False', reason, message });
      ctx.log.info({ err: (e as Error).message }, 'workload cluster unavailable; node status not refreshed');
      if (wasReachable)
        deps.events.warning(c, 'WorkloadClusterUnavailable', `workload cluster API unavailable: ${message}`);
      return undefined;
    }
  }

  return {
    name: 'status',
    async ensureCreated(c: KVMConfig, ctx: HandlerContext): Promise<void> {
      const { after, conditions } = draft(c);
      const problem = specProblem(c);
      if (problem) {
        set(conditions, c, {
          type: ConditionTypes.SpecValid,
          status: 'False',
          reason: specProblemReason(problem),
          message: problem,
        });
        set(conditions, c, { type: ConditionTypes.Ready, status: 'False', reason: 'InvalidSpec', message: problem });
        if (await write(c, after, ctx)) deps.events.warning(c, 'InvalidSpec', problem);
        ctx.cancelReconciliation(`invalid spec: ${problem}`);
        return;
      }
      set(conditions, c, { type: ConditionTypes.SpecValid, status: 'True', reason: 'Valid', message: '' });

      const nodes = await readNodes(c, conditions, ctx);
      const input = {
        desiredVersion: desiredClusterVersion(c),
        expectedNodes: clusterNodes(c).length,
        nodes,
        now: formatTime(now()),
      };
      const cluster = nextClusterStatus(c.status?.cluster, input);
      after.status = { ...after.status, cluster };
      set(conditions, c, readyCondition(cluster, input));

      if (!(await write(c, after, ctx))) return;
      const before = latestClusterCondition(c.status?.cluster);
      const phase = latestClusterCondition(cluster);
      if (phase && phase !== before)
        deps.events.normal(c, `Cluster${phase}`, `cluster is ${phase.toLowerCase()} (version ${input.desiredVersion})`);
      ctx.cancelReconciliation('status updated; the write brings the next loop');
    },

    async ensureDeleted(c: KVMConfig, ctx: HandlerContext): Promise<void> {
      if (latestClusterCondition(c.status?.cluster) === 'Deleting') return;
      const { after, conditions } = draft(c);
      after.status = { ...after.status, cluster: deletingClusterStatus(c.status?.cluster, formatTime(now())) };
      set(conditions, c, {
        type: ConditionTypes.Ready,
        status: 'False',
        reason: 'Deleting',
        message: 'cluster is being deleted',
      });
      await write(c, after, ctx);
      deps.events.normal(c, 'ClusterDeleting', 'cluster is being deleted');
      ctx.cancelReconciliation('status set to Deleting');
      ctx.keepFinalizer('status set to Deleting');
    },
  };
}

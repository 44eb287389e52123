// The pods/eviction subresource, as kube-apiserver's EvictionREST: a policy/v1 (or v1beta1)
// Eviction deletes the pod with its deleteOptions unless that would violate the pod's
// PodDisruptionBudget. There is no disruption controller here, so the budget's figures
// (expected, desired and current healthy pods) are computed from the live pods on each request
// instead of read from the PDB's status; evictions in one namespace are serialized so concurrent
// requests (kubectl drain evicts every pod at once) cannot overdraw a budget together.
import { isPodReady, isPodTerminal } from '../../../apimachinery/core/index.ts';
import { isObject } from '../../../apimachinery/json/index.ts';
import { badRequest, StatusError } from '../../../apimachinery/errors/index.ts';
import type { JsonObject, Status } from '../../../apimachinery/meta/index.ts';
import { compileSelector } from '../../builtins/selector.ts';
import { builtinResourceDefs } from '../builtins.ts';
import type { RequestContext } from '../context.ts';
import { checkDeleteOptions, rawDeleteOptions, type RequestDeleteOptions } from '../delete-options.ts';
import { listPrefix } from '../keys.ts';
import type { ResourceDef } from '../resource.ts';
import { parseStored, type DeleteOptions, type ObjectStore } from '../store/index.ts';

const ACCEPTED_VERSIONS = ['policy/v1', 'policy/v1beta1'];
const CONFLICT_RETRIES = 20;

/** A failure kube reports as a plain Status with a code and no reason (multiple PDBs). */
class ReasonlessError extends StatusError {
  constructor(code: number, message: string) {
    super(code, 'InternalError', message);
  }

  override toStatus(): Status {
    const status = super.toStatus();
    delete status.reason;
    return status;
  }
}

function tooManyRequests(message: string, retryAfterSeconds?: number): StatusError {
  return new StatusError(429, 'TooManyRequests', "Cannot evict pod as it would violate the pod's disruption budget.", {
    causes: [{ reason: 'DisruptionBudget', message }],
    ...(retryAfterSeconds ? { retryAfterSeconds } : {}),
  });
}

/** Budget figures as the disruption controller would publish them in the PDB's status. */
export interface BudgetFigures {
  expectedPods: number;
  desiredHealthy: number;
  currentHealthy: number;
  disruptionsAllowed: number;
}

function isDeleting(pod: JsonObject): boolean {
  return isObject(pod.metadata) && typeof pod.metadata.deletionTimestamp === 'string';
}

/** intstr.GetScaledValueFromIntOrPercent; undefined for a malformed value. */
function scaledValue(v: unknown, total: number, roundUp: boolean): number | undefined {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v !== 'string') return undefined;
  const m = /^(-?\d+)%$/.exec(v);
  if (!m) return undefined;
  const exact = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

/**
 * The disruption controller's arithmetic over `pods` (those the PDB's selector matches). Healthy
 * pods are Ready and not being deleted. The expected count is the number of matching pods that
 * are not terminal, terminating ones included, so a pod whose eviction is under way still counts
 * as expected but no longer as healthy (kube reads the owning controllers' scale instead, for
 * percentages and maxUnavailable).
 */
export function budgetFigures(pdb: JsonObject, pods: JsonObject[]): BudgetFigures {
  const spec = isObject(pdb.spec) ? pdb.spec : {};
  const live = pods.filter((p) => !isPodTerminal(p));
  const currentHealthy = live.filter((p) => !isDeleting(p) && isPodReady(p)).length;
  let expectedPods = 0;
  let desiredHealthy = 0;
  let malformed = false;
  if (spec.maxUnavailable !== undefined && spec.maxUnavailable !== null) {
    expectedPods = live.length;
    const maxUnavailable = scaledValue(spec.maxUnavailable, expectedPods, true);
    if (maxUnavailable === undefined) malformed = true;
    else desiredHealthy = Math.max(0, expectedPods - maxUnavailable);
  } else if (spec.minAvailable !== undefined && spec.minAvailable !== null) {
    expectedPods = live.length;
    const minAvailable = scaledValue(spec.minAvailable, expectedPods, true);
    if (minAvailable === undefined) malformed = true;
    else desiredHealthy = minAvailable;
  }
  let disruptionsAllowed = currentHealthy - desiredHealthy;
  if (malformed || expectedPods <= 0 || disruptionsAllowed <= 0) disruptionsAllowed = 0;
  return { expectedPods, desiredHealthy, currentHealthy, disruptionsAllowed };
}

/** metav1.DeleteOptions of the Eviction body as the store takes them; `dryRun` separately. */
function deleteOptionsOf(raw: unknown): RequestDeleteOptions {
  if (raw === undefined || raw === null) return { options: {}, dryRun: false };
  if (!isObject(raw)) throw badRequest('deleteOptions: Invalid value: must be an object');
  return checkDeleteOptions(rawDeleteOptions(raw));
}

/** The decoding checks of kube's create handler for a body that must be an Eviction. */
function checkEvictionBody(body: unknown, namespace: string | undefined): JsonObject {
  if (!isObject(body)) throw badRequest('the body of the request was not an Eviction object');
  const apiVersion = body.apiVersion;
  const kind = body.kind;
  if (apiVersion !== undefined && apiVersion !== '' && !ACCEPTED_VERSIONS.includes(String(apiVersion))) {
    throw badRequest(
      `the API version in the data (${String(apiVersion)}) does not match the expected API version (policy/v1)`,
    );
  }
  if (kind !== undefined && kind !== '' && kind !== 'Eviction') {
    const version = String(apiVersion || 'policy/v1');
    throw badRequest(
      `${String(kind)} in version "${version.split('/').pop()}" cannot be handled as a Eviction: no kind "${String(kind)}" is registered for version "${version}" in scheme "pkg/api/legacyscheme/scheme.go:30"`,
    );
  }
  const meta = body.metadata;
  if (meta !== undefined && meta !== null && !isObject(meta)) throw badRequest('metadata: must be an object');
  const ns = isObject(meta) ? meta.namespace : undefined;
  if (typeof ns === 'string' && ns !== '' && ns !== namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  return body;
}

export class PodEvictions {
  private readonly pdbDef: ResourceDef;
  /** Tail of the eviction chain per namespace. */
  private readonly chains = new Map<string, Promise<unknown>>();

  constructor(private readonly store: ObjectStore) {
    this.pdbDef = builtinResourceDefs().find((d) => d.group === 'policy' && d.resource === 'poddisruptionbudgets')!;
  }

  /** POST pods/{name}/eviction: returns the Success Status (201) or throws the failure. */
  async evict(
    podDef: ResourceDef,
    namespace: string | undefined,
    name: string,
    body: unknown,
    ctx: RequestContext,
  ): Promise<JsonObject> {
    const eviction = checkEvictionBody(body, namespace);
    const meta = isObject(eviction.metadata) ? eviction.metadata : {};
    if (meta.name !== name) throw badRequest('name in URL does not match name in Eviction object');
    const { options, dryRun } = deleteOptionsOf(eviction.deleteOptions);
    const evictionCtx: RequestContext = dryRun && !ctx.dryRun ? { ...ctx, dryRun: true } : ctx;
    return this.serialized(namespace ?? '', () => this.run(podDef, namespace, name, options, evictionCtx));
  }

  private serialized<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.chains.get(key) ?? Promise.resolve();
    const result = previous.then(fn, fn);
    const tail = result.catch(() => undefined);
    this.chains.set(key, tail);
    void tail.then(() => {
      if (this.chains.get(key) === tail) this.chains.delete(key);
    });
    return result;
  }

  private async run(
    podDef: ResourceDef,
    namespace: string | undefined,
    name: string,
    options: DeleteOptions,
    ctx: RequestContext,
  ): Promise<JsonObject> {
    const userSetRv = options.preconditions?.resourceVersion !== undefined;
    // Pods that are pending, terminal or already being deleted go without a PDB check; their
    // resourceVersion is pinned (unless the caller pinned one) so a pod turning Running meanwhile is
    // looked at again.
    let pod: JsonObject | undefined;
    for (let attempt = 0; ; attempt++) {
      pod = this.store.get(podDef, namespace, name);
      if (!canIgnoreBudget(pod)) break;
      const pinned = shouldPinVersion(pod) && !userSetRv ? withVersion(options, pod) : options;
      try {
        await this.store.delete(podDef, namespace, name, pinned, ctx);
        return success();
      } catch (e) {
        if (!(isConflict(e) && !userSetRv && attempt < CONFLICT_RETRIES)) throw e;
      }
    }

    const budgets = this.budgetsFor(pod, namespace);
    if (budgets.length > 1) {
      throw new ReasonlessError(
        500,
        'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
      );
    }
    let pinned = false;
    if (budgets.length === 1) {
      const pdb = budgets[0];
      const pdbName = String((pdb.metadata as JsonObject).name);
      const figures = budgetFigures(pdb, this.podsMatching(podDef, pdb, namespace));
      if (!isPodReady(pod) && figures.currentHealthy >= figures.desiredHealthy && figures.desiredHealthy > 0) {
        // An unready pod does not count as healthy: evicting it disrupts nothing, as long as it
        // does not become ready in the meantime.
        pinned = true;
      } else if (figures.disruptionsAllowed === 0) {
        throw tooManyRequests(
          `The disruption budget ${pdbName} needs ${figures.desiredHealthy} healthy pods and has ${figures.currentHealthy} currently`,
        );
      }
      try {
        await this.store.delete(
          podDef,
          namespace,
          name,
          pinned && !userSetRv ? withVersion(options, pod) : options,
          ctx,
        );
      } catch (e) {
        if (isConflict(e) && pinned && !userSetRv)
          throw tooManyRequests(`The disruption budget ${pdbName} is still being processed by the server.`, 10);
        throw e;
      }
      return success();
    }
    await this.store.delete(podDef, namespace, name, options, ctx);
    return success();
  }

  /** PDBs in the pod's namespace whose (non-empty, valid) selector matches the pod. */
  private budgetsFor(pod: JsonObject, namespace: string | undefined): JsonObject[] {
    const labels = podLabels(pod);
    const out: JsonObject[] = [];
    for (const stored of this.store.storage.list(listPrefix(this.pdbDef, namespace))) {
      const pdb = parseStored(stored);
      const selector = compileSelector(isObject(pdb.spec) ? pdb.spec.selector : undefined);
      if (selector.kind === 'match' && selector.matches(labels)) out.push(pdb);
    }
    return out;
  }

  private podsMatching(podDef: ResourceDef, pdb: JsonObject, namespace: string | undefined): JsonObject[] {
    const selector = compileSelector(isObject(pdb.spec) ? pdb.spec.selector : undefined);
    if (selector.kind !== 'match') return [];
    return this.store.storage
      .list(listPrefix(podDef, namespace))
      .map(parseStored)
      .filter((p) => selector.matches(podLabels(p)));
  }
}

function podLabels(pod: JsonObject): Record<string, string> {
  const meta = isObject(pod.metadata) ? pod.metadata : {};
  return isObject(meta.labels) ? (meta.labels as Record<string, string>) : {};
}

/** kube's canIgnorePDB: pending, terminal or already deleting. */
function canIgnoreBudget(pod: JsonObject): boolean {
  const phase = isObject(pod.status) ? pod.status.phase : undefined;
  return phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || isDeleting(pod);
}

function shouldPinVersion(pod: JsonObject): boolean {
  return !isPodTerminal(pod) && !isDeleting(pod);
}

function withVersion(options: DeleteOptions, pod: JsonObject): DeleteOptions {
  const rv = (pod.metadata as JsonObject).resourceVersion;
  return { ...options, preconditions: { ...options.preconditions, resourceVersion: String(rv) } };
}

function isConflict(e: unknown): boolean {
  return e instanceof StatusError && e.code === 409;
}

function success(): JsonObject {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
}

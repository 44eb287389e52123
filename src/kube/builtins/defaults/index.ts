// Entry point for built-in defaulting. kube-apiserver changes a built-in object in three places
// before it is stored: the scheme defaulters run while decoding, built-in admission plugins
// (ServiceAccount, DefaultTolerationSeconds, Priority) mutate it, and the kind's strategy
// prepares it on create. applyDefaults does all three, so that what we store is what
// kube-apiserver would store; update-time strategy work is prepareForUpdate in ../status.ts.
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { defaultCoreKind } from './core.ts';
import { defaultMiscKind } from './misc.ts';
import { defaultPod } from './pod.ts';
import { defaultWorkload, generateJobSelector, zeroWorkloadStatus } from './workloads.ts';
import { ensureObj } from '../json.ts';
import type { DefaultsOptions } from './options.ts';

export type { DefaultsOptions, PriorityClassInfo } from './options.ts';

const DS_TEMPLATE_GENERATION = 'deprecated.daemonset.template.generation';

/**
 * Applies kube-apiserver's defaults for a built-in kind in place. `op` selects the create-only
 * steps (admission defaults, status reset, generated selectors); unknown kinds are left alone.
 * May throw a 403 StatusError where the Priority admission plugin would refuse a Pod.
 */
export function applyDefaults(
  group: string,
  kind: string,
  obj: JsonObject,
  op: 'create' | 'update',
  opts: DefaultsOptions = {},
): void {
  if (group === '' && kind === 'Pod') {
    defaultPod(obj, op, opts);
    return;
  }
  if (defaultWorkload(group, kind, obj)) {
    if (op === 'create') prepareWorkloadCreate(group, kind, obj);
    return;
  }
  if (group === '' && defaultCoreKind(kind, obj, op, opts)) return;
  defaultMiscKind(group, kind, obj, op);
}

/** The workload strategies' PrepareForCreate: status belongs to controllers, plus kind specifics. */
function prepareWorkloadCreate(group: string, kind: string, o: JsonObject): void {
  const zero = zeroWorkloadStatus(kind);
  if (zero) o.status = zero;
  if (group === 'apps' && kind === 'DaemonSet') {
    // apps/v1 carries the internal spec.templateGeneration in this annotation; it starts at 1.
    const annotations = ensureObj(ensureObj(o, 'metadata'), 'annotations');
    const current = Number(annotations[DS_TEMPLATE_GENERATION]);
    annotations[DS_TEMPLATE_GENERATION] = String(Number.isInteger(current) && current >= 1 ? current : 1);
  }
  if (group === 'batch' && kind === 'Job') generateJobSelector(o);
}

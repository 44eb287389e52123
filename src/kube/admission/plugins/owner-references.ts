// kube-apiserver's OwnerReferencesPermissionEnforcement admission plugin
// (kubernetes/kubernetes plugin/pkg/admission/gc/gc_admission.go): an ownerReference lets the
// garbage collector delete an object, and blockOwnerDeletion holds its owner's deletion back, so
// changing the one takes `delete` on the object and setting the other takes `update` on the owner's
// finalizers. Off by default, as on kube-apiserver; OpenShift turns it on. It validates ahead of
// the admission it wraps (webhooks), as the plugin precedes ValidatingAdmissionWebhook in kube's order.
import { forbidden, qualifiedResource, type StatusError } from '../../../apimachinery/errors/index.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { goQuote } from '../../../apimachinery/strings/index.ts';
import type { Attributes, Authorizer, Decision } from '../../auth/types.ts';
import type { Admission, AdmissionAttributes } from '../../registry/context.ts';
import type { ResourceDef } from '../../registry/resource.ts';

export const OWNER_REFERENCES_PERMISSION_ENFORCEMENT = 'OwnerReferencesPermissionEnforcement';

/** The owner kinds the plugin can resolve (kube's RESTMapper; here the served resources). */
export interface OwnerKinds {
  byKind(apiVersion: string, kind: string): ResourceDef | undefined;
}

interface OwnerReference {
  apiVersion?: unknown;
  kind?: unknown;
  name?: unknown;
  uid?: unknown;
  controller?: unknown;
  blockOwnerDeletion?: unknown;
}

export class OwnerReferencesPermissionEnforcement implements Admission {
  constructor(
    private readonly authorizer: Authorizer,
    private readonly kinds: OwnerKinds,
    private inner: Admission,
  ) {}

  setInner(admission: Admission): void {
    this.inner = admission;
  }

  mutate(attrs: AdmissionAttributes, obj: JsonObject, old: JsonObject | undefined): Promise<JsonObject> {
    return this.inner.mutate(attrs, obj, old);
  }

  async validate(attrs: AdmissionAttributes, obj: JsonObject, old: JsonObject | undefined): Promise<void> {
    if (attrs.operation !== 'DELETE') this.check(attrs, obj, attrs.operation === 'CREATE' ? undefined : old);
    await this.inner.validate(attrs, obj, old);
  }

  private check(attrs: AdmissionAttributes, obj: JsonObject, old: JsonObject | undefined): void {
    // pods/status is exempt: the pod status strategy already keeps ownerReferences as they were.
    if (attrs.def.group === '' && attrs.def.resource === 'pods' && attrs.subresource === 'status') return;
    if (!isChangingOwnerReference(obj, old)) return;
    const request = {
      user: attrs.ctx.userInfo,
      resourceRequest: true,
      path: '',
      namespace: attrs.namespace ?? '',
    };
    // Whoever creates an object could as well not have: only changing references needs `delete`.
    if (attrs.operation !== 'CREATE') {
      const decision = this.authorizer.authorize({
        ...request,
        verb: 'delete',
        apiGroup: attrs.def.group,
        apiVersion: attrs.def.version,
        resource: attrs.def.resource,
        subresource: attrs.subresource ?? '',
        name: attrs.name,
      });
      if (!decision.allowed) {
        throw denied(attrs, obj, `cannot set an ownerRef on a resource you can't delete: ${because(decision)}`);
      }
    }
    for (const ref of newBlockingOwnerDeletionRefs(obj, old)) {
      const apiVersion = String(ref.apiVersion ?? '');
      const kind = String(ref.kind ?? '');
      const owner = this.resolve(apiVersion, kind);
      if (typeof owner === 'string') {
        throw denied(
          attrs,
          obj,
          `cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion ${apiVersion} Kind ${kind}: ${owner}`,
        );
      }
      const finalizers: Attributes = {
        ...request,
        // A namespaced owner lives in its dependent's namespace; a cluster-scoped one in none.
        namespace: owner.namespaced ? request.namespace : '',
        verb: 'update',
        apiGroup: owner.group,
        apiVersion: owner.version,
        resource: owner.resource,
        subresource: 'finalizers',
        name: String(ref.name ?? ''),
      };
      const decision = this.authorizer.authorize(finalizers);
      if (!decision.allowed) {
        throw denied(
          attrs,
          obj,
          `cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: ${because(decision)}`,
        );
      }
    }
  }

  /** The owner's resource, or the RESTMapper's error text. */
  private resolve(apiVersion: string, kind: string): ResourceDef | string {
    const slashes = apiVersion.split('/').length - 1;
    if (slashes > 1) return `unexpected GroupVersion string: ${apiVersion}`;
    return (
      this.kinds.byKind(apiVersion, kind) ?? `no matches for kind ${goQuote(kind)} in version ${goQuote(apiVersion)}`
    );
  }
}

/** Go's `%v, %v` of the authorizer's reason and error (nil prints `<nil>`). */
function because(d: Decision): string {
  return `${d.reason}, ${d.evaluationError ?? '<nil>'}`;
}

/** admission.NewForbidden: named after the object (or its generateName; "Unknown" if neither). */
function denied(attrs: AdmissionAttributes, obj: JsonObject, why: string): StatusError {
  const m = metadataOf(obj);
  const name =
    (typeof m.name === 'string' && m.name) || (typeof m.generateName === 'string' && m.generateName) || 'Unknown';
  return forbidden(`${qualifiedResource(attrs.def)} ${goQuote(name)} is forbidden: ${why}`, {
    name,
    group: attrs.def.group || undefined,
    kind: attrs.def.resource,
  });
}

function metadataOf(obj: JsonObject | undefined): JsonObject {
  const m = obj?.metadata;
  return m && typeof m === 'object' && !Array.isArray(m) ? (m as JsonObject) : {};
}

function ownerReferences(obj: JsonObject | undefined): OwnerReference[] {
  const refs = metadataOf(obj).ownerReferences;
  if (!Array.isArray(refs)) return [];
  return refs.filter((r): r is OwnerReference & JsonObject => !!r && typeof r === 'object' && !Array.isArray(r));
}

/** Fields as Go's Semantic.DeepEqual sees them: an unset pointer differs from false. */
function sameReference(a: OwnerReference, b: OwnerReference): boolean {
  return (
    a.apiVersion === b.apiVersion &&
    a.kind === b.kind &&
    a.name === b.name &&
    a.uid === b.uid &&
    a.controller === b.controller &&
    a.blockOwnerDeletion === b.blockOwnerDeletion
  );
}

function isChangingOwnerReference(obj: JsonObject, old: JsonObject | undefined): boolean {
  const next = ownerReferences(obj);
  if (!old) return next.length > 0;
  const prev = ownerReferences(old);
  return prev.length !== next.length || prev.some((ref, i) => !sameReference(ref, next[i]!));
}

/** References that block their owner's deletion and did not before (new, or nil/false → true). */
function newBlockingOwnerDeletionRefs(obj: JsonObject, old: JsonObject | undefined): OwnerReference[] {
  const blocking = ownerReferences(obj).filter((r) => r.blockOwnerDeletion === true);
  if (!old || blocking.length === 0) return blocking;
  const before = new Map(ownerReferences(old).map((r) => [r.uid, r]));
  return blocking.filter((r) => before.get(r.uid)?.blockOwnerDeletion !== true);
}

// Where the escalation check meets the store: after mutating admission and before validation, as
// kube's RBAC storage runs it (the create handler admits, then calls the policybased storage;
// updates wrap the admitted object). It sits around the store's Admission, so webhooks still run
// and replacing the webhook dispatcher keeps the check.
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import type { Admission, AdmissionAttributes } from '../../registry/context.ts';
import type { EscalationCheck } from './escalation.ts';
import { RBAC_GROUP } from './resolver.ts';

export class EscalationAdmission implements Admission {
  constructor(
    private readonly escalation: EscalationCheck,
    private inner: Admission,
  ) {}

  /** The admission that runs around the check (the webhook dispatcher, or a test's). */
  setInner(admission: Admission): void {
    this.inner = admission;
  }

  async mutate(attrs: AdmissionAttributes, obj: JsonObject, old: JsonObject | undefined): Promise<JsonObject> {
    const admitted = await this.inner.mutate(attrs, obj, old);
    if (attrs.def.group === RBAC_GROUP && attrs.operation !== 'DELETE' && !attrs.subresource) {
      this.escalation.check({
        resource: attrs.def.resource,
        namespace: attrs.namespace ?? '',
        requestName: attrs.operation === 'CREATE' ? '' : attrs.name,
        user: attrs.ctx.userInfo,
        obj: admitted,
        old,
      });
    }
    return admitted;
  }

  validate(attrs: AdmissionAttributes, obj: JsonObject, old: JsonObject | undefined): Promise<void> {
    return this.inner.validate(attrs, obj, old);
  }
}

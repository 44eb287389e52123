// The admission webhook dispatcher behind ObjectStore's Admission hooks. Mutating webhooks run
// one after another (configuration name, then list order), each seeing the previous one's
// patch, and those with reinvocationPolicy IfNeeded run once more when a later webhook changed
// the object. Validating webhooks then run in parallel on the final object. A call that fails
// (transport, timeout, nonsense answer) rejects the request unless failurePolicy is Ignore.
import { applyJsonPatch } from '../patch/index.ts';
import { StatusError, internalError } from '../../apimachinery/errors/index.ts';
import type { Storage } from '../storage/storage.ts';
import type { JsonObject } from '../../apimachinery/meta/index.ts';
import type { Admission, AdmissionAttributes } from '../registry/context.ts';
import { WebhookConfigCache } from './config.ts';
import { webhookMatches, isExempt } from './matching.ts';
import { TransportError, WebhookClient } from './client.ts';
import { buildReview, parseResponse, type ReviewResponse } from './review.ts';
import { CallError, deniedError, dryRunUnsupported, patchError } from './errors.ts';
import { endpointsResolver } from './resolver.ts';
import type { ServiceResolver, Webhook } from './types.ts';
import { deepEqual } from '../../apimachinery/json/index.ts';

export interface WebhookAdmissionOptions {
  /** Where `clientConfig.service` references are dialled; default: the Service's Endpoints. */
  serviceResolver?: ServiceResolver;
  /** Called when a failing webhook is ignored (failurePolicy Ignore), for logs. */
  onIgnoredFailure?: (err: CallError) => void;
}

export class WebhookAdmission implements Admission {
  private readonly storage: Storage;
  private readonly configs: WebhookConfigCache;
  private readonly onIgnoredFailure: (err: CallError) => void;
  /** Shared with the CRD conversion webhooks (crd/conversion), which dial Services the same way. */
  readonly client: WebhookClient;

  constructor(storage: Storage, options: WebhookAdmissionOptions = {}) {
    this.storage = storage;
    this.configs = new WebhookConfigCache(storage);
    this.client = new WebhookClient(options.serviceResolver ?? endpointsResolver(storage));
    this.onIgnoredFailure = options.onIgnoredFailure ?? (() => {});
  }

  /** Replaces the Service resolver; `undefined` restores the Endpoints lookup. */
  setServiceResolver(resolver: ServiceResolver | undefined): void {
    this.client.setServiceResolver(resolver ?? endpointsResolver(this.storage));
  }

  stop(): void {
    this.configs.stop();
    this.client.close();
  }

  async mutate(attrs: AdmissionAttributes, obj: JsonObject, old: JsonObject | undefined): Promise<JsonObject> {
    if (isExempt(attrs)) return obj;
    const hooks = this.configs.mutating();
    if (hooks.length === 0) return obj;
    // DELETE offers no object to patch; webhooks still see (and may deny) the request.
    let current: JsonObject | undefined = attrs.operation === 'DELETE' ? undefined : obj;
    const reinvocable = new Set<Webhook>();
    const reinvoke = new Set<Webhook>();
    for (const round of [0, 1]) {
      if (round === 1 && reinvoke.size === 0) break;
      for (const hook of hooks) {
        if (round === 1 && !reinvoke.has(hook)) continue;
        if (!webhookMatches(hook, attrs, current, old, this.storage)) continue;
        const next = await this.callMutating(hook, attrs, current, old);
        if (next !== current) {
          current = next;
          // Webhooks that already ran have not seen this change: they get one more look.
          if (round === 0) for (const h of reinvocable) reinvoke.add(h);
        }
        if (hook.reinvocationPolicy === 'IfNeeded') reinvocable.add(hook);
      }
    }
    return current ?? obj;
  }

  async validate(attrs: AdmissionAttributes, obj: JsonObject, old: JsonObject | undefined): Promise<void> {
    if (isExempt(attrs)) return;
    const hooks = this.configs.validating();
    if (hooks.length === 0) return;
    const current = attrs.operation === 'DELETE' ? undefined : obj;
    const matching = hooks.filter((h) => webhookMatches(h, attrs, current, old, this.storage));
    const results = await Promise.allSettled(matching.map((h) => this.callValidating(h, attrs, current, old)));
    // The first failure in webhook order, so the answer does not depend on which one was faster.
    for (const r of results) if (r.status === 'rejected') throw r.reason;
  }

  private async callMutating(
    hook: Webhook,
    attrs: AdmissionAttributes,
    obj: JsonObject | undefined,
    old: JsonObject | undefined,
  ): Promise<JsonObject | undefined> {
    const answer = await this.call(hook, attrs, obj, old);
    if (!answer?.patch) return obj;
    let ops: unknown;
    try {
      ops = JSON.parse(answer.patch.toString('utf8'));
    } catch (e) {
      throw patchError(hook.name, `the patch is not JSON: ${(e as Error).message}`);
    }
    if (!Array.isArray(ops)) throw patchError(hook.name, 'the patch is not a JSON array of operations');
    if (ops.length === 0) return obj;
    if (!obj) {
      throw internalError(
        `admission webhook "${hook.name}" attempted to modify the object, which is not supported for this operation`,
      );
    }
    let patched: JsonObject;
    try {
      patched = applyJsonPatch(obj, ops) as JsonObject;
    } catch (e) {
      // The patch engine keeps the precise reason on `cause` (its own message is the client-facing one).
      const why = e instanceof StatusError && e.cause instanceof Error ? e.cause.message : (e as Error).message;
      throw patchError(hook.name, why);
    }
    if (typeof patched !== 'object' || patched === null || Array.isArray(patched)) {
      throw patchError(hook.name, 'the patched document is not an object');
    }
    // Later webhooks see the object as the API would store it: unknown fields dropped, defaults set.
    attrs.def.strategy.prune?.(patched);
    attrs.def.strategy.applyDefaults?.(patched, attrs.operation === 'CREATE' ? 'create' : 'update', old);
    return deepEqual(patched, obj) ? obj : patched;
  }

  private async callValidating(
    hook: Webhook,
    attrs: AdmissionAttributes,
    obj: JsonObject | undefined,
    old: JsonObject | undefined,
  ): Promise<void> {
    await this.call(hook, attrs, obj, old);
  }

  /**
   * One webhook call: undefined when a failure was ignored; throws the denial, or the failure
   * under failurePolicy Fail.
   */
  private async call(
    hook: Webhook,
    attrs: AdmissionAttributes,
    obj: JsonObject | undefined,
    old: JsonObject | undefined,
  ): Promise<ReviewResponse | undefined> {
    if (attrs.ctx.dryRun && hook.sideEffects !== 'None' && hook.sideEffects !== 'NoneOnDryRun') {
      throw dryRunUnsupported(hook.name);
    }
    let answer: ReviewResponse;
    try {
      answer = await this.exchange(hook, attrs, obj, old);
    } catch (e) {
      if (!(e instanceof CallError)) throw e;
      if (hook.failurePolicy === 'Ignore') {
        this.onIgnoredFailure(e);
        return undefined;
      }
      throw e.toStatusError();
    }
    for (const w of answer.warnings) if (!attrs.ctx.warnings.includes(w)) attrs.ctx.warnings.push(w);
    if (!answer.allowed) throw deniedError(hook.name, answer.status);
    return answer;
  }

  private async exchange(
    hook: Webhook,
    attrs: AdmissionAttributes,
    obj: JsonObject | undefined,
    old: JsonObject | undefined,
  ): Promise<ReviewResponse> {
    if (!hook.admissionReviewVersions.includes('v1')) {
      throw new CallError(hook.name, 'webhook does not accept v1 AdmissionReview');
    }
    const { uid, review } = buildReview(attrs, obj, old);
    let raw;
    try {
      raw = await this.client.post(hook, JSON.stringify(review));
    } catch (e) {
      if (e instanceof TransportError) throw new CallError(hook.name, `failed to call webhook: ${e.message}`);
      throw e;
    }
    try {
      return parseResponse(raw.status, raw.body, uid, hook.mutating);
    } catch (e) {
      throw new CallError(hook.name, (e as Error).message);
    }
  }
}

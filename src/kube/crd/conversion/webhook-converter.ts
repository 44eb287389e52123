// A CRD's conversion webhook (spec.conversion.strategy Webhook), as apiextensions-apiserver's
// webhookConverter calls it (staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/conversion/
// webhook_converter.go): objects already in the desired version are not sent, the answer must
// carry as many objects as were sent, each in the desired version with the same kind and
// identity, and only labels and annotations of the metadata may change. Every failure is kube's
// error text, a 500 without a reason (a plain error to kube's handlers, ErrorToAPIStatus).
// What comes back is pruned to the desired version's schema, as kube's schemaCoercingConverter does.
import { randomUUID } from 'node:crypto';
import { isObject } from '../../../apimachinery/json/index.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import {
  TransportError,
  unexpectedResponse,
  type WebhookClient,
  type WebhookEndpoint,
} from '../../admission/client.ts';
import { parseClientConfig } from '../../admission/config.ts';
import { WebhookStatusError } from '../../admission/errors.ts';
import type { CustomResourceConverter } from '../../registry/resource.ts';
import { compileCrdVersion } from '../compile.ts';
import { restoreObjectMeta, validateConvertedObject } from './converted-object.ts';
import { conversionReviewBody, convertedObjectsOf, reviewVersionOf, type ReviewVersion } from './review.ts';

/** kube's webhook client manager gives conversion calls its default request timeout. */
const CONVERSION_TIMEOUT_SECONDS = 30;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export class WebhookConverter implements CustomResourceConverter {
  private readonly endpoint: WebhookEndpoint;
  private readonly listKind: string;

  constructor(
    private readonly client: WebhookClient,
    private readonly crd: JsonObject,
    clientConfig: JsonObject,
    private readonly reviewVersion: ReviewVersion,
  ) {
    this.endpoint = { clientConfig: parseClientConfig(clientConfig), timeoutSeconds: CONVERSION_TIMEOUT_SECONDS };
    const names = isObject(crd.spec) && isObject(crd.spec.names) ? crd.spec.names : {};
    this.listKind = str(names.listKind) || `${str(names.kind)}List`;
  }

  async convert(objects: JsonObject[], apiVersion: string, asList: boolean): Promise<JsonObject[]> {
    const pending = objects.flatMap((o, i) => (o.apiVersion === apiVersion ? [] : [i]));
    if (pending.length === 0) return objects;
    const sent = pending.map((i) => objects[i]);
    // `in.GetObjectKind()` in kube's messages: the list (in the desired version) or the object sent.
    const gvk = asList
      ? `${apiVersion}, Kind=${this.listKind}`
      : `${str(sent[0].apiVersion)}, Kind=${str(sent[0].kind)}`;
    const fail = (why: string) => new WebhookStatusError(500, '', `conversion webhook for ${gvk} ${why}`);

    const uid = randomUUID();
    let answer;
    try {
      answer = await this.client.post(this.endpoint, conversionReviewBody(this.reviewVersion, uid, apiVersion, sent));
    } catch (e) {
      if (e instanceof TransportError) throw fail(`failed: ${e.message}`);
      throw e;
    }
    const unexpected = unexpectedResponse(answer.status, answer.body);
    if (unexpected !== undefined) throw fail(`failed: ${unexpected}`);
    let converted;
    try {
      converted = convertedObjectsOf(this.reviewVersion, answer.body, uid);
    } catch (e) {
      throw fail(`failed: ${(e as Error).message}`);
    }
    if (converted.length !== sent.length) {
      throw fail(`returned ${converted.length} objects, expected ${sent.length}`);
    }

    const out = [...objects];
    pending.forEach((at, k) => {
      const original = objects[at];
      const object: JsonObject = isObject(converted[k]) ? converted[k] : {};
      // kube counts list items from 1 past the first check (its index moves on before them).
      const where = asList ? `invalid converted object at index ${k + 1}` : 'invalid object at index 0';
      if (str(object.apiVersion) !== apiVersion) {
        throw fail(
          `returned ${where}: invalid groupVersion (expected ${apiVersion}, received ${str(object.apiVersion)})`,
        );
      }
      if (str(object.kind) !== str(original.kind)) {
        throw fail(`returned ${where}: invalid kind (expected ${str(original.kind)}, received ${str(object.kind)})`);
      }
      const invalid = validateConvertedObject(original, object);
      if (invalid) throw fail(`returned ${asList ? where : 'invalid object'}: ${invalid}`);
      const badMeta = restoreObjectMeta(original, object);
      if (badMeta) {
        throw fail(
          `returned ${asList ? `invalid metadata in object at index ${k + 1}` : 'invalid metadata'}: ${badMeta}`,
        );
      }
      compileCrdVersion(this.crd, apiVersion.slice(apiVersion.indexOf('/') + 1)).prune(object);
      out[at] = object;
    });
    return out;
  }
}

/** The converter of a CRD whose spec.conversion asks for a webhook; undefined for strategy None. */
export function webhookConverterFor(client: WebhookClient, crd: JsonObject): CustomResourceConverter | undefined {
  const spec = isObject(crd.spec) ? crd.spec : {};
  const conversion = isObject(spec.conversion) ? spec.conversion : {};
  if (conversion.strategy !== 'Webhook') return undefined;
  const webhook = isObject(conversion.webhook) ? conversion.webhook : {};
  const reviewVersion = reviewVersionOf(
    Array.isArray(webhook.conversionReviewVersions) ? webhook.conversionReviewVersions : [],
  );
  if (!isObject(webhook.clientConfig) || !reviewVersion) return undefined;
  return new WebhookConverter(client, crd, webhook.clientConfig, reviewVersion);
}

// The ConversionReview exchange (apiextensions.k8s.io/v1 and v1beta1): the request kube-apiserver
// sends and the checks it runs on the answer, in the words of getConvertedObjectsFromResponse
// (staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/conversion/webhook_converter.go).
import { isObject } from '../../../apimachinery/json/index.ts';
import type { JsonObject, JsonValue } from '../../../apimachinery/meta/index.ts';

/** The review versions this server speaks, in the order it prefers them. */
export type ReviewVersion = 'v1' | 'v1beta1';

/** createConversionReviewObjects: the first of the CRD's conversionReviewVersions the server knows. */
export function reviewVersionOf(conversionReviewVersions: readonly unknown[]): ReviewVersion | undefined {
  return conversionReviewVersions.find((v): v is ReviewVersion => v === 'v1' || v === 'v1beta1');
}

/**
 * The request body. Go sends the review with an empty `response` struct beside the request, and
 * that struct's fields have no omitempty: `{"uid":"","convertedObjects":null,"result":{"metadata":{}}}`.
 */
export function conversionReviewBody(
  version: ReviewVersion,
  uid: string,
  desiredAPIVersion: string,
  objects: JsonObject[],
): string {
  return JSON.stringify({
    kind: 'ConversionReview',
    apiVersion: `apiextensions.k8s.io/${version}`,
    request: { uid, desiredAPIVersion, objects },
    response: { uid: '', convertedObjects: null, result: { metadata: {} } },
  });
}

/**
 * The converted objects of a 2xx answer; throws an Error whose message is kube's reason (the
 * converter prefixes `conversion webhook for … failed: `). A v1beta1 answer is checked as kube
 * checks it: neither its kind nor its uid.
 */
export function convertedObjectsOf(version: ReviewVersion, text: string, uid: string): JsonValue[] {
  let doc: JsonValue;
  try {
    doc = JSON.parse(text) as JsonValue;
  } catch (e) {
    throw new Error(`couldn't get version/kind; json parse error: ${(e as Error).message}`);
  }
  if (!isObject(doc)) throw new Error("couldn't get version/kind; json parse error: not an object");
  if (version === 'v1' && (doc.apiVersion !== 'apiextensions.k8s.io/v1' || doc.kind !== 'ConversionReview')) {
    throw new Error(
      `expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got ${String(doc.apiVersion ?? '')}, Kind=${String(doc.kind ?? '')}`,
    );
  }
  const response = doc.response;
  if (!isObject(response)) throw new Error('no response provided');
  if (version === 'v1' && response.uid !== uid) {
    const got = typeof response.uid === 'string' ? response.uid : '';
    throw new Error(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(got)}`);
  }
  const result = isObject(response.result) ? response.result : {};
  if (result.status !== 'Success') {
    if (typeof result.message === 'string' && result.message !== '') throw new Error(result.message);
    throw new Error(
      `response.result.status was '${typeof result.status === 'string' ? result.status : ''}', not 'Success'`,
    );
  }
  return Array.isArray(response.convertedObjects) ? response.convertedObjects : [];
}

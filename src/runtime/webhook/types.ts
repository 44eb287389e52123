// admission.k8s.io/v1 AdmissionReview, the body the API server POSTs to a webhook and expects back.
import type { KubeObject } from '../client/types.ts';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface AdmissionRequest<T extends KubeObject = KubeObject> {
  uid: string;
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subResource?: string;
  requestKind?: GroupVersionKind;
  requestResource?: GroupVersionResource;
  requestSubResource?: string;
  name?: string;
  namespace?: string;
  operation: Operation;
  userInfo: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  /** The new object (absent for DELETE). */
  object?: T | null;
  /** The existing object (UPDATE, DELETE). */
  oldObject?: T | null;
  dryRun?: boolean;
  options?: Record<string, unknown> | null;
}

export interface AdmissionStatus {
  code?: number;
  message?: string;
  reason?: string;
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: AdmissionStatus;
  /** Base64 of a JSON Patch (RFC 6902). */
  patch?: string;
  patchType?: 'JSONPatch';
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
}

export interface AdmissionReview<T extends KubeObject = KubeObject> {
  apiVersion: 'admission.k8s.io/v1';
  kind: 'AdmissionReview';
  request?: AdmissionRequest<T>;
  response?: AdmissionResponse;
}

/**
 * apiextensions.k8s.io/v1 (and v1beta1, the same shape) ConversionReview: the API server sends the
 * objects of a custom resource in the version they were stored or sent in, and wants them back in
 * `desiredAPIVersion` (staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1/types.go:
 * ConversionReview, ConversionRequest, ConversionResponse).
 */
export interface ConversionRequest {
  uid: string;
  desiredAPIVersion: string;
  objects: KubeObject[];
}

export interface ConversionResponse {
  uid: string;
  convertedObjects: KubeObject[];
  /** metav1.Status: `status` is "Success" or "Failure" (then `message` says why). */
  result: { status: 'Success' | 'Failure'; message?: string };
}

export interface ConversionReview {
  apiVersion: 'apiextensions.k8s.io/v1' | 'apiextensions.k8s.io/v1beta1';
  kind: 'ConversionReview';
  request?: ConversionRequest;
  response?: ConversionResponse;
}

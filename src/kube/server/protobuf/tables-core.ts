// Field tables for core/v1 objects that kubectl create builds, apart from pods and their volumes.
// Field numbers are from the upstream generated.proto; see schema.ts for the notation.
import type { TableSource } from './schema.ts';

export const CORE: TableSource = {
  Namespace: '1 metadata:ObjectMeta, 2 spec:NamespaceSpec, 3 status:NamespaceStatus',
  NamespaceSpec: '1 finalizers:[s]',
  NamespaceStatus: '1 phase:s, 2 conditions:[NamespaceCondition]',
  NamespaceCondition: '1 type:s!, 2 status:s!, 4 lastTransitionTime:Time, 5 reason:s, 6 message:s',
  ConfigMap: '1 metadata:ObjectMeta, 2 data:{s}, 3 binaryData:{y}, 4 immutable:b!',
  Secret: '1 metadata:ObjectMeta, 2 data:{y}, 3 type:s, 4 stringData:{s}, 5 immutable:b!',
  ServiceAccount: `
    1 metadata:ObjectMeta, 2 secrets:[ObjectReference], 3 imagePullSecrets:[LocalObjectReference],
    4 automountServiceAccountToken:b!`,
  ObjectReference: '1 kind:s, 2 namespace:s, 3 name:s, 4 uid:s, 5 apiVersion:s, 6 resourceVersion:s, 7 fieldPath:s',
  LocalObjectReference: '1 name:s',
  TypedLocalObjectReference: '1 apiGroup:s!, 2 kind:s!, 3 name:s!',
  TypedObjectReference: '1 apiGroup:s!, 2 kind:s!, 3 name:s!, 4 namespace:s!',
  Service: '1 metadata:ObjectMeta, 2 spec:ServiceSpec',
  ServiceSpec: `
    1 ports:[ServicePort], 2 selector:{s}, 3 clusterIP:s, 4 type:s, 5 externalIPs:[s], 7 sessionAffinity:s,
    8 loadBalancerIP:s, 9 loadBalancerSourceRanges:[s], 10 externalName:s, 11 externalTrafficPolicy:s,
    12 healthCheckNodePort:i, 13 publishNotReadyAddresses:b, 14 sessionAffinityConfig:SessionAffinityConfig,
    17 ipFamilyPolicy:s!, 18 clusterIPs:[s], 19 ipFamilies:[s], 20 allocateLoadBalancerNodePorts:b!,
    21 loadBalancerClass:s!, 22 internalTrafficPolicy:s!, 23 trafficDistribution:s!`,
  ServicePort: '1 name:s, 2 protocol:s, 3 port:i!, 4 targetPort:IntOrString, 5 nodePort:i, 6 appProtocol:s!',
  SessionAffinityConfig: '1 clientIP:ClientIPConfig',
  ClientIPConfig: '1 timeoutSeconds:i!',
  ResourceQuota: '1 metadata:ObjectMeta, 2 spec:ResourceQuotaSpec',
  ResourceQuotaSpec: '1 hard:{Quantity}, 2 scopes:[s], 3 scopeSelector:ScopeSelector',
  ScopeSelector: '1 matchExpressions:[ScopedResourceSelectorRequirement]',
  ScopedResourceSelectorRequirement: '1 scopeName:s!, 2 operator:s!, 3 values:[s]',
};

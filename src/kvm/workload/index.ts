export { SecretWorkloadClusters } from './clusters.ts';
export type { WorkloadClusters, SecretWorkloadClustersOptions } from './clusters.ts';
export { WorkloadCredentialsError, connectionFromSecret, pickSecret } from './credentials.ts';
export type { SecretObject } from './credentials.ts';
export { isWorkloadUnavailable } from './errors.ts';

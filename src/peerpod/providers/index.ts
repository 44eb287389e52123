// Public surface of the cloud providers layer. Cloud providers are reached through createProvider
// only (their classes are exported as types), so importing this module never loads a cloud SDK.
export type { CloudProvider, CreateInstanceRequest, Instance } from './types.ts';
export { CLUSTER_UID_TAG } from './types.ts';
export { DEFAULT_CPU_ALLOCATION_RATIO, hostCapacity, readHostResources, unknownCapacity } from './capacity.ts';
export type { CapacityReason, CapacityRequest, HostResources, ProviderCapacity } from './capacity.ts';
export {
  InstanceNotFoundError,
  InvalidInstanceIdError,
  InvalidRequestError,
  PartialCreateError,
  ProviderConfigError,
  ProviderError,
  QuotaExceededError,
  ThrottledError,
  UnknownProviderError,
} from './errors.ts';
export { createProvider, isKnownProvider, KNOWN_PROVIDERS } from './registry.ts';
export type { ProviderName, ProviderOptions } from './registry.ts';
export { LiveProviderCache, ProviderUnavailableError } from './live-cache.ts';
export type { LiveProviderCacheOptions, ProviderFactory, ProviderProblem } from './live-cache.ts';
export { InformerCredentials, credentialRules, flatSettings, nameScope, scopeToProvider } from './credentials.ts';
export type { CredentialInformers, CredentialSource, DataObject } from './credentials.ts';
export { generateInstanceName, isPodVmName, MAX_INSTANCE_NAME_LENGTH, POD_VM_NAME_PREFIX } from './naming.ts';
export { matchesTags } from './tags.ts';
export { SimulatedFailureError, SimulatedProvider } from './simulated.ts';
export type { CreateFault, SimulatedChange, SimulatedOp, SimulatedOptions, SimulatedStats } from './simulated.ts';
export { QemuProvider, defaultQemuStateDir } from './qemu/provider.ts';
export type { QemuProviderOptions } from './qemu/provider.ts';
export { FAKE_IP_RANGE } from './qemu/fake-ip.ts';
export { LibvirtProvider } from './libvirt/provider.ts';
export type { LibvirtProviderOptions } from './libvirt/provider.ts';
export { ensureLibvirtd, fixDevKvm } from './libvirt/daemon.ts';
export type { EnsureLibvirtdOptions, LibvirtdHandle } from './libvirt/daemon.ts';
export type { AwsProvider, AwsProviderOptions } from './aws/provider.ts';
export type { AzureProvider, AzureProviderOptions } from './azure/provider.ts';
export type { GcpProvider, GcpProviderOptions } from './gcp/provider.ts';

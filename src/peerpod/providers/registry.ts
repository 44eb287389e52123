// Provider lookup by the name a PeerPod carries in `spec.cloudProvider`. Each provider module is
// imported only when first asked for, so the cloud SDKs (large, slow to load) cost nothing for the
// local providers, and a missing SDK breaks only its own provider.
//
// | provider  | instance ID                                   | config keys (upstream names where upstream has them) |
// |-----------|-----------------------------------------------|------------------------------------------------------|
// | qemu      | VM UUID                                       | QEMU_STATE_DIR, QEMU_BINARY, QEMU_DEFAULT_VCPUS, QEMU_DEFAULT_MEMORY |
// | libvirt   | domain UUID                                   | LIBVIRT_URI, LIBVIRT_POOL, LIBVIRT_NET, LIBVIRT_VOL_NAME, LIBVIRT_CPU, LIBVIRT_MEMORY, ... |
// | simulated | sim-<n>                                       | SIMULATED_LATENCY_MS, SIMULATED_FAILURE_RATE, SIMULATED_SEED, SIMULATED_MAX_INSTANCES, SIMULATED_STATE_DIR |
// | aws       | i-… (EC2 instance ID)                         | AWS_REGION, PODVM_AMI_ID, PODVM_INSTANCE_TYPE(S), AWS_SUBNET_ID, AWS_SG_IDS, TAGS, ... |
// | azure     | /subscriptions/…/virtualMachines/<name>       | AZURE_SUBSCRIPTION_ID, AZURE_REGION, AZURE_RESOURCE_GROUP, AZURE_SUBNET_ID, AZURE_IMAGE_ID, ... |
// | gcp       | instance name                                 | GCP_PROJECT_ID, GCP_ZONE, GCP_NETWORK, PODVM_IMAGE_NAME, GCP_MACHINE_TYPE, ... |
import type { AwsProviderOptions } from './aws/provider.ts';
import type { AzureProviderOptions } from './azure/provider.ts';
import { UnknownProviderError } from './errors.ts';
import type { GcpProviderOptions } from './gcp/provider.ts';
import { latencyFromConfig, withLatency } from './latency.ts';
import type { LibvirtProviderOptions } from './libvirt/provider.ts';
import type { Logger } from './log.ts';
import type { QemuProviderOptions } from './qemu/provider.ts';
import type { SimulatedOptions } from './simulated.ts';
import type { CloudProvider } from './types.ts';

export const KNOWN_PROVIDERS = ['aws', 'azure', 'gcp', 'libvirt', 'qemu', 'simulated'] as const;
export type ProviderName = (typeof KNOWN_PROVIDERS)[number];

/** Per-provider knobs that do not belong in the cluster's config map (test transports, timeouts). */
export interface ProviderOptions {
  logger?: Logger;
  qemu?: QemuProviderOptions;
  libvirt?: LibvirtProviderOptions;
  simulated?: SimulatedOptions;
  aws?: AwsProviderOptions;
  azure?: AzureProviderOptions;
  gcp?: GcpProviderOptions;
}

type Factory = (config: Record<string, string>, opts: ProviderOptions) => Promise<CloudProvider>;

const factories: Record<ProviderName, Factory> = {
  async qemu(config, opts) {
    const { QemuProvider } = await import('./qemu/provider.ts');
    return new QemuProvider(config, { logger: opts.logger, ...opts.qemu });
  },
  async libvirt(config, opts) {
    const { LibvirtProvider } = await import('./libvirt/provider.ts');
    return new LibvirtProvider(config, { logger: opts.logger, ...opts.libvirt });
  },
  async simulated(config, opts) {
    const { SimulatedProvider, simulatedOptionsFromConfig } = await import('./simulated.ts');
    return new SimulatedProvider({ ...simulatedOptionsFromConfig(config), ...opts.simulated });
  },
  async aws(config, opts) {
    const { createAwsProvider } = await import('./aws/provider.ts');
    return createAwsProvider(config, { logger: opts.logger, ...opts.aws });
  },
  async azure(config, opts) {
    const { createAzureProvider } = await import('./azure/provider.ts');
    return createAzureProvider(config, { logger: opts.logger, ...opts.azure });
  },
  async gcp(config, opts) {
    const { createGcpProvider } = await import('./gcp/provider.ts');
    return createGcpProvider(config, { logger: opts.logger, ...opts.gcp });
  },
};

export function isKnownProvider(name: string): name is ProviderName {
  return (KNOWN_PROVIDERS as readonly string[]).includes(name);
}

/**
 * Builds a provider without contacting its cloud; call `verifyConfig()` to learn what is missing.
 * Unknown names fail with UnknownProviderError listing the known ones. PROVIDER_CREATE_LATENCY_MS /
 * PROVIDER_DELETE_LATENCY_MS in the config slow any provider down (latency.ts, for fault tests).
 */
export async function createProvider(
  name: string,
  config: Record<string, string>,
  opts: ProviderOptions = {},
): Promise<CloudProvider> {
  if (!isKnownProvider(name)) throw new UnknownProviderError(name, KNOWN_PROVIDERS);
  const latency = latencyFromConfig(name, config);
  return withLatency(await factories[name](config, opts), latency);
}

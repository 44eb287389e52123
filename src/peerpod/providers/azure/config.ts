// Azure settings under upstream's env names (cloud-api-adaptor src/cloud-providers/azure/manager.go).
import {
  ConfigCheck,
  get,
  isBool,
  isNonNegativeInt,
  isTags,
  parseBool,
  parseList,
  parseNonNegativeInt,
  parseTags,
  type ProviderConfig,
} from '../config.ts';

export interface AzureSettings {
  subscriptionId: string;
  region: string;
  resourceGroup: string;
  size: string;
  sizes: string[];
  subnetId: string;
  securityGroupId: string;
  imageId: string;
  sshUserName: string;
  disableCvm: boolean;
  enableSecureBoot: boolean;
  usePublicIp: boolean;
  rootVolumeSizeGiB: number;
  tags: Record<string, string>;
  tenantId: string;
  clientId: string;
  clientSecret: string;
}

export function readAzureSettings(config: ProviderConfig): AzureSettings {
  return {
    subscriptionId: get(config, 'AZURE_SUBSCRIPTION_ID'),
    region: get(config, 'AZURE_REGION'),
    resourceGroup: get(config, 'AZURE_RESOURCE_GROUP'),
    size: get(config, 'AZURE_INSTANCE_SIZE', 'Standard_DC2as_v5'),
    sizes: parseList(get(config, 'AZURE_INSTANCE_SIZES')),
    subnetId: get(config, 'AZURE_SUBNET_ID'),
    securityGroupId: get(config, 'AZURE_NSG_ID'),
    imageId: get(config, 'AZURE_IMAGE_ID'),
    sshUserName: get(config, 'SSH_USERNAME', 'peerpod'),
    disableCvm: parseBool(get(config, 'DISABLECVM')) ?? false,
    enableSecureBoot: parseBool(get(config, 'ENABLE_SECURE_BOOT')) ?? false,
    usePublicIp: parseBool(get(config, 'USE_PUBLIC_IP')) ?? false,
    rootVolumeSizeGiB: parseNonNegativeInt(get(config, 'ROOT_VOLUME_SIZE')) ?? 0,
    tags: parseTags(get(config, 'TAGS')) ?? {},
    tenantId: get(config, 'AZURE_TENANT_ID'),
    clientId: get(config, 'AZURE_CLIENT_ID'),
    clientSecret: get(config, 'AZURE_CLIENT_SECRET'),
  };
}

export function checkAzureConfig(config: ProviderConfig): ConfigCheck {
  const check = new ConfigCheck('azure', config).require(
    'AZURE_SUBSCRIPTION_ID',
    'AZURE_REGION',
    'AZURE_RESOURCE_GROUP',
    'AZURE_SUBNET_ID',
    'AZURE_IMAGE_ID',
  );
  // A client secret needs its tenant and client; without a secret, workload identity is used.
  if (get(config, 'AZURE_CLIENT_SECRET')) check.require('AZURE_TENANT_ID', 'AZURE_CLIENT_ID');
  return check
    .check('DISABLECVM', isBool, 'boolean')
    .check('ENABLE_SECURE_BOOT', isBool, 'boolean')
    .check('USE_PUBLIC_IP', isBool, 'boolean')
    .check('ROOT_VOLUME_SIZE', isNonNegativeInt, 'GB')
    .check('TAGS', isTags, 'k1=v1,k2=v2');
}

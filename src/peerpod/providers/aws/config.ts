// AWS settings under upstream's env names (cloud-api-adaptor src/cloud-providers/aws/manager.go).
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

export interface AwsSettings {
  region: string;
  imageId: string;
  instanceType: string;
  instanceTypes: string[];
  subnetId: string;
  securityGroupIds: string[];
  keyName: string;
  useLaunchTemplate: boolean;
  launchTemplateName: string;
  usePublicIp: boolean;
  rootVolumeSizeGiB: number;
  disableCvm: boolean;
  tags: Record<string, string>;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

export function readAwsSettings(config: ProviderConfig): AwsSettings {
  const accessKeyId = get(config, 'AWS_ACCESS_KEY_ID');
  const secretAccessKey = get(config, 'AWS_SECRET_ACCESS_KEY');
  const sessionToken = get(config, 'AWS_SESSION_TOKEN');
  return {
    region: get(config, 'AWS_REGION'),
    imageId: get(config, 'PODVM_AMI_ID'),
    instanceType: get(config, 'PODVM_INSTANCE_TYPE', 'm6a.large'),
    instanceTypes: parseList(get(config, 'PODVM_INSTANCE_TYPES')),
    subnetId: get(config, 'AWS_SUBNET_ID'),
    securityGroupIds: parseList(get(config, 'AWS_SG_IDS')),
    keyName: get(config, 'SSH_KP_NAME'),
    useLaunchTemplate: parseBool(get(config, 'USE_PODVM_LAUNCHTEMPLATE')) ?? false,
    launchTemplateName: get(config, 'PODVM_LAUNCHTEMPLATE_NAME', 'kata'),
    usePublicIp: parseBool(get(config, 'USE_PUBLIC_IP')) ?? false,
    rootVolumeSizeGiB: parseNonNegativeInt(get(config, 'ROOT_VOLUME_SIZE', '30')) ?? 30,
    disableCvm: parseBool(get(config, 'DISABLECVM')) ?? false,
    tags: parseTags(get(config, 'TAGS')) ?? {},
    // Without static keys the SDK's default chain applies (IRSA, instance profile, env).
    credentials:
      accessKeyId && secretAccessKey
        ? { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) }
        : undefined,
  };
}

export function checkAwsConfig(config: ProviderConfig): ConfigCheck {
  const check = new ConfigCheck('aws', config).require('AWS_REGION');
  if (!(parseBool(get(config, 'USE_PODVM_LAUNCHTEMPLATE')) ?? false)) check.require('PODVM_AMI_ID');
  if (get(config, 'AWS_ACCESS_KEY_ID') !== '' && get(config, 'AWS_SECRET_ACCESS_KEY') === '') {
    check.require('AWS_SECRET_ACCESS_KEY');
  }
  return check
    .check('USE_PODVM_LAUNCHTEMPLATE', isBool, 'boolean')
    .check('USE_PUBLIC_IP', isBool, 'boolean')
    .check('DISABLECVM', isBool, 'boolean')
    .check('ROOT_VOLUME_SIZE', isNonNegativeInt, 'GiB')
    .check('TAGS', isTags, 'k1=v1,k2=v2');
}

// GCP settings under upstream's env names (cloud-api-adaptor src/cloud-providers/gcp/manager.go).
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

export interface GcpSettings {
  projectId: string;
  zone: string;
  imageName: string;
  machineType: string;
  machineTypes: string[];
  network: string;
  subnetwork: string;
  diskType: string;
  disableCvm: boolean;
  confidentialType: string;
  rootVolumeSizeGiB: number;
  usePublicIp: boolean;
  tags: Record<string, string>;
  /** Service account key JSON; application default credentials when empty. */
  credentials: string;
}

export function readGcpSettings(config: ProviderConfig): GcpSettings {
  return {
    projectId: get(config, 'GCP_PROJECT_ID'),
    zone: get(config, 'GCP_ZONE'),
    imageName: get(config, 'PODVM_IMAGE_NAME'),
    machineType: get(config, 'GCP_MACHINE_TYPE', 'e2-medium'),
    machineTypes: parseList(get(config, 'GCP_INSTANCE_TYPES')),
    network: get(config, 'GCP_NETWORK'),
    subnetwork: get(config, 'GCP_SUBNETWORK'),
    diskType: get(config, 'GCP_DISK_TYPE', 'pd-standard'),
    disableCvm: parseBool(get(config, 'DISABLECVM')) ?? false,
    confidentialType: get(config, 'GCP_CONFIDENTIAL_TYPE'),
    rootVolumeSizeGiB: parseNonNegativeInt(get(config, 'ROOT_VOLUME_SIZE', '10')) ?? 10,
    usePublicIp: parseBool(get(config, 'USE_PUBLIC_IP')) ?? false,
    tags: parseTags(get(config, 'TAGS')) ?? {},
    credentials: get(config, 'GCP_CREDENTIALS'),
  };
}

export function checkGcpConfig(config: ProviderConfig): ConfigCheck {
  const check = new ConfigCheck('gcp', config).require('GCP_PROJECT_ID', 'GCP_ZONE', 'GCP_NETWORK', 'PODVM_IMAGE_NAME');
  // Upstream fails every create in this case ("ConfidentialType must be set when using Confidential VM").
  if (!(parseBool(get(config, 'DISABLECVM')) ?? false)) check.require('GCP_CONFIDENTIAL_TYPE');
  const creds = get(config, 'GCP_CREDENTIALS');
  if (creds) {
    try {
      JSON.parse(creds);
    } catch {
      check.problem('GCP_CREDENTIALS (not JSON)');
    }
  }
  return check
    .check('DISABLECVM', isBool, 'boolean')
    .check('USE_PUBLIC_IP', isBool, 'boolean')
    .check('ROOT_VOLUME_SIZE', isNonNegativeInt, 'GiB')
    .check('GCP_CONFIDENTIAL_TYPE', (v) => ['SEV', 'SEV_SNP', 'TDX'].includes(v), 'SEV, SEV_SNP or TDX')
    .check('TAGS', isTags, 'k1=v1,k2=v2');
}

/** Upstream's image forms: a full or partial `projects/...` path or URL, else an image of the project. */
export function sourceImage(s: GcpSettings, requested?: string): string {
  if (requested) return requested;
  if (/^(projects\/|\/projects|https)/.test(s.imageName)) return s.imageName;
  return `projects/${s.projectId}/global/images/${s.imageName}`;
}

/** Upstream's subnetwork forms: a path or URL as is, a short name inside the zone's region. */
export function subnetworkPath(s: GcpSettings): string | undefined {
  if (!s.subnetwork) return undefined;
  if (/^(projects\/|\/projects|regions\/|https)/.test(s.subnetwork)) return s.subnetwork;
  const parts = s.zone.split('-');
  if (parts.length < 2) return s.subnetwork;
  return `projects/${s.projectId}/regions/${parts.slice(0, -1).join('-')}/subnetworks/${s.subnetwork}`;
}

// The pod webhook's defaults, apart from its code: `peerpods --help` shows them without loading it.
export const DEFAULT_RUNTIME_CLASS = 'kata-remote';
export const DEFAULT_EXTENDED_RESOURCE = 'kata.peerpods.io/vm';

export const DROP_MODES = ['upstream', 'preserve'] as const;
export type DropMode = (typeof DROP_MODES)[number];

/** More than the largest VM any cloud rents (GCP x4: 1,920 vCPUs; AWS u7in: 32 TiB), so only mistakes are refused. */
export const DEFAULT_MAX_VCPUS = 2048;
export const DEFAULT_MAX_MEMORY_MIB = 32 * 1024 * 1024;

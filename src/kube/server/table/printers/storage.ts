// PersistentVolumes and PersistentVolumeClaims.
import type { JsonObject, JsonValue } from '../../../../apimachinery/meta/index.ts';
import { AGE, col, NAME, wide } from '../columns.ts';
import { ageOf, asObj, asStr, at, meta, nameOf } from '../fields.ts';
import type { Printer } from '../types.ts';

const MODES: Array<[string, string]> = [
  ['ReadWriteOnce', 'RWO'],
  ['ReadOnlyMany', 'ROX'],
  ['ReadWriteMany', 'RWX'],
  ['ReadWriteOncePod', 'RWOP'],
];

function accessModes(v: JsonValue | undefined): string {
  const modes = new Set(Array.isArray(v) ? v.map((m) => asStr(m)) : []);
  return MODES.filter(([m]) => modes.has(m))
    .map(([, short]) => short)
    .join(',');
}

/** The beta storage-class annotation still wins over spec.storageClassName. */
function storageClass(obj: JsonObject): string {
  const annotated = asObj(meta(obj).annotations)['volume.beta.kubernetes.io/storage-class'];
  return typeof annotated === 'string' ? annotated : asStr(at(obj, 'spec', 'storageClassName'));
}

function phase(obj: JsonObject): string {
  return meta(obj).deletionTimestamp ? 'Terminating' : asStr(at(obj, 'status', 'phase'));
}

const optional = (v: JsonValue | undefined): string => (typeof v === 'string' ? v : '<unset>');

export const persistentVolumePrinter: Printer = {
  columns: [
    NAME,
    col('Capacity', 'string', "capacity is the description of the persistent volume's resources and capacity."),
    col('Access Modes', 'string', 'accessModes contains all ways the volume can be mounted.'),
    col(
      'Reclaim Policy',
      'string',
      'persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim.',
    ),
    col('Status', 'string', 'phase indicates if a volume is available, bound to a claim, or released by a claim.'),
    col(
      'Claim',
      'string',
      'claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim.',
    ),
    col('StorageClass', 'string', 'StorageClass of the pv'),
    col('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pv'),
    col(
      'Reason',
      'string',
      'reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.',
    ),
    AGE,
    wide(
      'VolumeMode',
      'string',
      'volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state.',
    ),
  ],
  cells(pv, now) {
    const spec = asObj(pv.spec);
    const claim =
      spec.claimRef === undefined ? '' : `${asStr(asObj(spec.claimRef).namespace)}/${asStr(asObj(spec.claimRef).name)}`;
    return [
      nameOf(pv),
      asStr(asObj(spec.capacity).storage) || '0',
      accessModes(spec.accessModes),
      asStr(spec.persistentVolumeReclaimPolicy),
      phase(pv),
      claim,
      storageClass(pv),
      optional(spec.volumeAttributesClassName),
      asStr(at(pv, 'status', 'reason')),
      ageOf(pv, now),
      optional(spec.volumeMode),
    ];
  },
};

export const persistentVolumeClaimPrinter: Printer = {
  columns: [
    NAME,
    col('Status', 'string', 'phase represents the current phase of PersistentVolumeClaim.'),
    col('Volume', 'string', 'volumeName is the binding reference to the PersistentVolume backing this claim.'),
    col('Capacity', 'string', 'capacity represents the actual resources of the underlying volume.'),
    col('Access Modes', 'string', 'accessModes contains the actual access modes the volume backing the PVC has.'),
    col('StorageClass', 'string', 'StorageClass of the pvc'),
    col('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pvc'),
    AGE,
    wide('VolumeMode', 'string', 'volumeMode defines what type of volume is required by the claim.'),
  ],
  cells(pvc, now) {
    const spec = asObj(pvc.spec);
    const bound = asStr(spec.volumeName) !== '';
    return [
      nameOf(pvc),
      phase(pvc),
      asStr(spec.volumeName),
      bound ? asStr(asObj(at(pvc, 'status', 'capacity')).storage) || '0' : '',
      bound ? accessModes(at(pvc, 'status', 'accessModes')) : '',
      storageClass(pvc),
      optional(spec.volumeAttributesClassName),
      ageOf(pvc, now),
      optional(spec.volumeMode),
    ];
  },
};

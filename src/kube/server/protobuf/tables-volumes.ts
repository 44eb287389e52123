// Field tables for core/v1 volume sources. The deprecated in-tree cloud and storage-vendor
// sources are left out and decode as unknown fields.
// Field numbers are from the upstream generated.proto; see schema.ts for the notation.
import type { TableSource } from './schema.ts';

export const VOLUMES: TableSource = {
  Volume: '1 name:s!, 2 volumeSource:VolumeSource~',
  VolumeSource: `
    1 hostPath:HostPathVolumeSource, 2 emptyDir:EmptyDirVolumeSource, 6 secret:SecretVolumeSource,
    7 nfs:NFSVolumeSource, 10 persistentVolumeClaim:PersistentVolumeClaimVolumeSource,
    16 downwardAPI:DownwardAPIVolumeSource, 19 configMap:ConfigMapVolumeSource,
    26 projected:ProjectedVolumeSource, 28 csi:CSIVolumeSource, 29 ephemeral:EphemeralVolumeSource,
    30 image:ImageVolumeSource`,
  HostPathVolumeSource: '1 path:s!, 2 type:s!',
  EmptyDirVolumeSource: '1 medium:s, 2 sizeLimit:Quantity, 3 mode:i!',
  SecretVolumeSource: '1 secretName:s, 2 items:[KeyToPath], 3 defaultMode:i!, 4 optional:b!, 5 defaultUser:i!',
  NFSVolumeSource: '1 server:s!, 2 path:s!, 3 readOnly:b',
  PersistentVolumeClaimVolumeSource: '1 claimName:s!, 2 readOnly:b',
  DownwardAPIVolumeSource: '1 items:[DownwardAPIVolumeFile], 2 defaultMode:i!, 3 defaultUser:i!',
  ConfigMapVolumeSource: `
    1 localObjectReference:LocalObjectReference~, 2 items:[KeyToPath], 3 defaultMode:i!, 4 optional:b!,
    5 defaultUser:i!`,
  ProjectedVolumeSource: '1 sources:[VolumeProjection], 2 defaultMode:i!, 3 defaultUser:i!',
  CSIVolumeSource: `
    1 driver:s!, 2 readOnly:b!, 3 fsType:s!, 4 volumeAttributes:{s},
    5 nodePublishSecretRef:LocalObjectReference`,
  EphemeralVolumeSource: '1 volumeClaimTemplate:PersistentVolumeClaimTemplate',
  ImageVolumeSource: '1 reference:s, 2 pullPolicy:s',
  KeyToPath: '1 key:s!, 2 path:s!, 3 mode:i!, 4 user:i!',
  DownwardAPIVolumeFile: `
    1 path:s!, 2 fieldRef:ObjectFieldSelector, 3 resourceFieldRef:ResourceFieldSelector, 4 mode:i!,
    5 user:i!`,
  VolumeProjection: `
    1 secret:SecretProjection, 2 downwardAPI:DownwardAPIProjection, 3 configMap:ConfigMapProjection,
    4 serviceAccountToken:ServiceAccountTokenProjection, 5 clusterTrustBundle:ClusterTrustBundleProjection,
    6 podCertificate:PodCertificateProjection`,
  SecretProjection: '1 localObjectReference:LocalObjectReference~, 2 items:[KeyToPath], 4 optional:b!',
  DownwardAPIProjection: '1 items:[DownwardAPIVolumeFile]',
  ConfigMapProjection: '1 localObjectReference:LocalObjectReference~, 2 items:[KeyToPath], 4 optional:b!',
  ServiceAccountTokenProjection: '1 audience:s, 2 expirationSeconds:i!, 3 path:s!, 4 user:i!',
  ClusterTrustBundleProjection: `
    1 name:s!, 2 signerName:s!, 3 labelSelector:LabelSelector, 4 path:s!, 5 optional:b!, 6 user:i!`,
  PodCertificateProjection: `
    1 signerName:s, 2 keyType:s, 3 maxExpirationSeconds:i!, 4 credentialBundlePath:s, 5 keyPath:s,
    6 certificateChainPath:s, 7 userAnnotations:{s}, 8 user:i!`,
  PersistentVolumeClaimTemplate: '1 metadata:ObjectMeta, 2 spec:PersistentVolumeClaimSpec',
  PersistentVolumeClaimSpec: `
    1 accessModes:[s], 2 resources:VolumeResourceRequirements, 3 volumeName:s, 4 selector:LabelSelector,
    5 storageClassName:s!, 6 volumeMode:s!, 7 dataSource:TypedLocalObjectReference,
    8 dataSourceRef:TypedObjectReference, 9 volumeAttributesClassName:s!`,
  VolumeResourceRequirements: '1 limits:{Quantity}, 2 requests:{Quantity}',
};

// The core types a custom resource commonly embeds, as kubebuilder types embed corev1.Container:
// `containers: s.array(coreSchemas.Container)`. The schemas come from the control plane's own
// built-in models (so a CR's containers validate as a Pod's do); the TypeScript types are those of
// @kubernetes/client-node, the client most TypeScript operators already use. Its types describe
// time fields as Date, which in a CR (as read from JSON) are RFC 3339 strings; none of the types
// below hold a time field except PodTemplateSpec's metadata.
import type {
  V1Affinity,
  V1Container,
  V1ContainerPort,
  V1EnvVar,
  V1LocalObjectReference,
  V1ObjectReference,
  V1PodSpec,
  V1PodTemplateSpec,
  V1Probe,
  V1ResourceRequirements,
  V1Toleration,
  V1Volume,
  V1VolumeMount,
} from '@kubernetes/client-node';
import { CORE } from './openapi/schema.ts';
import { builtinSchema } from './openapi/structural.ts';

export const coreSchemas = {
  Container: builtinSchema<V1Container>(`${CORE}.Container`),
  ContainerPort: builtinSchema<V1ContainerPort>(`${CORE}.ContainerPort`),
  EnvVar: builtinSchema<V1EnvVar>(`${CORE}.EnvVar`),
  Probe: builtinSchema<V1Probe>(`${CORE}.Probe`),
  ResourceRequirements: builtinSchema<V1ResourceRequirements>(`${CORE}.ResourceRequirements`),
  Volume: builtinSchema<V1Volume>(`${CORE}.Volume`),
  VolumeMount: builtinSchema<V1VolumeMount>(`${CORE}.VolumeMount`),
  PodSpec: builtinSchema<V1PodSpec>(`${CORE}.PodSpec`),
  PodTemplateSpec: builtinSchema<V1PodTemplateSpec>(`${CORE}.PodTemplateSpec`),
  LocalObjectReference: builtinSchema<V1LocalObjectReference>(`${CORE}.LocalObjectReference`),
  ObjectReference: builtinSchema<V1ObjectReference>(`${CORE}.ObjectReference`),
  Toleration: builtinSchema<V1Toleration>(`${CORE}.Toleration`),
  Affinity: builtinSchema<V1Affinity>(`${CORE}.Affinity`),
};

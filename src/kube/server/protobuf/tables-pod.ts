// Field tables for core/v1 pods: PodTemplateSpec, PodSpec, containers, probes and scheduling
// (volumes are in tables-volumes.ts).
// Field numbers are from the upstream generated.proto; see schema.ts for the notation.
import type { TableSource } from './schema.ts';

const CONTAINER = `
    1 name:s!, 2 image:s, 3 command:[s], 4 args:[s], 5 workingDir:s, 6 ports:[ContainerPort], 7 env:[EnvVar],
    8 resources:ResourceRequirements, 9 volumeMounts:[VolumeMount], 10 livenessProbe:Probe,
    11 readinessProbe:Probe, 12 lifecycle:Lifecycle, 13 terminationMessagePath:s, 14 imagePullPolicy:s,
    15 securityContext:SecurityContext, 16 stdin:b, 17 stdinOnce:b, 18 tty:b, 19 envFrom:[EnvFromSource],
    20 terminationMessagePolicy:s, 21 volumeDevices:[VolumeDevice], 22 startupProbe:Probe,
    23 resizePolicy:[ContainerResizePolicy], 24 restartPolicy:s!,
    25 restartPolicyRules:[ContainerRestartRule]`;

export const POD: TableSource = {
  Pod: '1 metadata:ObjectMeta, 2 spec:PodSpec',
  PodSpec: `
    1 volumes:[Volume], 2 containers:[Container], 3 restartPolicy:s, 4 terminationGracePeriodSeconds:i!,
    5 activeDeadlineSeconds:i!, 6 dnsPolicy:s, 7 nodeSelector:{s}, 8 serviceAccountName:s,
    9 serviceAccount:s, 10 nodeName:s, 11 hostNetwork:b, 12 hostPID:b, 13 hostIPC:b,
    14 securityContext:PodSecurityContext, 15 imagePullSecrets:[LocalObjectReference], 16 hostname:s,
    17 subdomain:s, 18 affinity:Affinity, 19 schedulerName:s, 20 initContainers:[Container],
    21 automountServiceAccountToken:b!, 22 tolerations:[Toleration], 23 hostAliases:[HostAlias],
    24 priorityClassName:s, 25 priority:i!, 26 dnsConfig:PodDNSConfig, 27 shareProcessNamespace:b!,
    28 readinessGates:[PodReadinessGate], 29 runtimeClassName:s!, 30 enableServiceLinks:b!,
    31 preemptionPolicy:s!, 32 overhead:{Quantity}, 33 topologySpreadConstraints:[TopologySpreadConstraint],
    34 ephemeralContainers:[EphemeralContainer], 35 setHostnameAsFQDN:b!, 36 os:PodOS, 37 hostUsers:b!,
    38 schedulingGates:[PodSchedulingGate], 39 resourceClaims:[PodResourceClaim],
    40 resources:ResourceRequirements, 41 hostnameOverride:s!, 43 schedulingGroup:PodSchedulingGroup,
    44 evictionResponders:[EvictionResponder]`,
  Container: CONTAINER,
  EphemeralContainer: '1 ephemeralContainerCommon:EphemeralContainerCommon~, 2 targetContainerName:s',
  PodSecurityContext: `
    1 seLinuxOptions:SELinuxOptions, 2 runAsUser:i!, 3 runAsNonRoot:b!, 4 supplementalGroups:[i],
    5 fsGroup:i!, 6 runAsGroup:i!, 7 sysctls:[Sysctl], 8 windowsOptions:WindowsSecurityContextOptions,
    9 fsGroupChangePolicy:s!, 10 seccompProfile:SeccompProfile, 11 appArmorProfile:AppArmorProfile,
    12 supplementalGroupsPolicy:s!, 13 seLinuxChangePolicy:s!`,
  Affinity: '1 nodeAffinity:NodeAffinity, 2 podAffinity:PodAffinity, 3 podAntiAffinity:PodAntiAffinity',
  Toleration: '1 key:s, 2 operator:s, 3 value:s, 4 effect:s, 5 tolerationSeconds:i!',
  HostAlias: '1 ip:s!, 2 hostnames:[s]',
  PodDNSConfig: '1 nameservers:[s], 2 searches:[s], 3 options:[PodDNSConfigOption]',
  PodReadinessGate: '1 conditionType:s!',
  TopologySpreadConstraint: `
    1 maxSkew:i!, 2 topologyKey:s!, 3 whenUnsatisfiable:s!, 4 labelSelector:LabelSelector, 5 minDomains:i!,
    6 nodeAffinityPolicy:s!, 7 nodeTaintsPolicy:s!, 8 matchLabelKeys:[s]`,
  PodOS: '1 name:s!',
  PodSchedulingGate: '1 name:s!',
  PodResourceClaim: '1 name:s!, 3 resourceClaimName:s!, 4 resourceClaimTemplateName:s!',
  ResourceRequirements: '1 limits:{Quantity}, 2 requests:{Quantity}, 3 claims:[ResourceClaim]',
  PodSchedulingGroup: '1 podGroupName:s!',
  EvictionResponder: '1 name:s!, 2 priority:i!',
  PodTemplateSpec: '1 metadata:ObjectMeta, 2 spec:PodSpec',
  ContainerPort: '1 name:s, 2 hostPort:i, 3 containerPort:i!, 4 protocol:s, 5 hostIP:s',
  EnvFromSource: '1 prefix:s, 2 configMapRef:ConfigMapEnvSource, 3 secretRef:SecretEnvSource',
  EnvVar: '1 name:s!, 2 value:s, 3 valueFrom:EnvVarSource',
  ContainerResizePolicy: '1 resourceName:s!, 2 restartPolicy:s!',
  ContainerRestartRule: '1 action:s, 2 exitCodes:ContainerRestartRuleOnExitCodes',
  VolumeMount: `
    1 name:s!, 2 readOnly:b, 3 mountPath:s!, 4 subPath:s, 5 mountPropagation:s!, 6 subPathExpr:s,
    7 recursiveReadOnly:s!, 8 bindMountOptions:[s]`,
  VolumeDevice: '1 name:s!, 2 devicePath:s!',
  Probe: `
    1 handler:ProbeHandler~, 2 initialDelaySeconds:i, 3 timeoutSeconds:i, 4 periodSeconds:i,
    5 successThreshold:i, 6 failureThreshold:i, 7 terminationGracePeriodSeconds:i!`,
  Lifecycle: '1 postStart:LifecycleHandler, 2 preStop:LifecycleHandler, 3 stopSignal:s!',
  SecurityContext: `
    1 capabilities:Capabilities, 2 privileged:b!, 3 seLinuxOptions:SELinuxOptions, 4 runAsUser:i!,
    5 runAsNonRoot:b!, 6 readOnlyRootFilesystem:b!, 7 allowPrivilegeEscalation:b!, 8 runAsGroup:i!,
    9 procMount:s!, 10 windowsOptions:WindowsSecurityContextOptions, 11 seccompProfile:SeccompProfile,
    12 appArmorProfile:AppArmorProfile`,
  // EphemeralContainer inlines a copy of Container's fields, same numbers.
  EphemeralContainerCommon: CONTAINER,
  SELinuxOptions: '1 user:s, 2 role:s, 3 type:s, 4 level:s',
  WindowsSecurityContextOptions: `
    1 gmsaCredentialSpecName:s!, 2 gmsaCredentialSpec:s!, 3 runAsUserName:s!, 4 hostProcess:b!`,
  Sysctl: '1 name:s!, 2 value:s!',
  SeccompProfile: '1 type:s!, 2 localhostProfile:s!',
  AppArmorProfile: '1 type:s!, 2 localhostProfile:s!',
  NodeAffinity: `
    1 requiredDuringSchedulingIgnoredDuringExecution:NodeSelector,
    2 preferredDuringSchedulingIgnoredDuringExecution:[PreferredSchedulingTerm]`,
  PodAffinity: `
    1 requiredDuringSchedulingIgnoredDuringExecution:[PodAffinityTerm],
    2 preferredDuringSchedulingIgnoredDuringExecution:[WeightedPodAffinityTerm]`,
  PodAntiAffinity: `
    1 requiredDuringSchedulingIgnoredDuringExecution:[PodAffinityTerm],
    2 preferredDuringSchedulingIgnoredDuringExecution:[WeightedPodAffinityTerm]`,
  PodDNSConfigOption: '1 name:s, 2 value:s!',
  ResourceClaim: '1 name:s!, 2 request:s',
  ConfigMapEnvSource: '1 localObjectReference:LocalObjectReference~, 2 optional:b!',
  SecretEnvSource: '1 localObjectReference:LocalObjectReference~, 2 optional:b!',
  EnvVarSource: `
    1 fieldRef:ObjectFieldSelector, 2 resourceFieldRef:ResourceFieldSelector,
    3 configMapKeyRef:ConfigMapKeySelector, 4 secretKeyRef:SecretKeySelector, 5 fileKeyRef:FileKeySelector`,
  ContainerRestartRuleOnExitCodes: '1 operator:s, 2 values:[i]',
  ProbeHandler: '1 exec:ExecAction, 2 httpGet:HTTPGetAction, 3 tcpSocket:TCPSocketAction, 4 grpc:GRPCAction',
  LifecycleHandler: '1 exec:ExecAction, 2 httpGet:HTTPGetAction, 3 tcpSocket:TCPSocketAction, 4 sleep:SleepAction',
  Capabilities: '1 add:[s], 2 drop:[s]',
  NodeSelector: '1 nodeSelectorTerms:[NodeSelectorTerm]',
  PreferredSchedulingTerm: '1 weight:i!, 2 preference:NodeSelectorTerm',
  PodAffinityTerm: `
    1 labelSelector:LabelSelector, 2 namespaces:[s], 3 topologyKey:s!, 4 namespaceSelector:LabelSelector,
    5 matchLabelKeys:[s], 6 mismatchLabelKeys:[s]`,
  WeightedPodAffinityTerm: '1 weight:i!, 2 podAffinityTerm:PodAffinityTerm',
  ObjectFieldSelector: '1 apiVersion:s, 2 fieldPath:s!',
  ResourceFieldSelector: '1 containerName:s, 2 resource:s!, 3 divisor:Quantity',
  ConfigMapKeySelector: '1 localObjectReference:LocalObjectReference~, 2 key:s!, 3 optional:b!',
  SecretKeySelector: '1 localObjectReference:LocalObjectReference~, 2 key:s!, 3 optional:b!',
  FileKeySelector: '1 volumeName:s!, 2 path:s!, 3 key:s!, 4 optional:b!',
  ExecAction: '1 command:[s]',
  HTTPGetAction: '1 path:s, 2 port:IntOrString, 3 host:s, 4 scheme:s, 5 httpHeaders:[HTTPHeader], 6 protocol:s!',
  TCPSocketAction: '1 port:IntOrString, 2 host:s',
  GRPCAction: '1 port:i!, 2 service:s!, 3 mode:s!',
  SleepAction: '1 seconds:i!',
  NodeSelectorTerm: '1 matchExpressions:[NodeSelectorRequirement], 2 matchFields:[NodeSelectorRequirement]',
  HTTPHeader: '1 name:s!, 2 value:s!',
  NodeSelectorRequirement: '1 key:s!, 2 operator:s!, 3 values:[s]',
};

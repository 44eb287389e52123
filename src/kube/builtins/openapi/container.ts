// core/v1 Container and what it is made of: ports, environment, resources, mounts, probes and
// lifecycle hooks. Closed models list every field of k8s.io/api core/v1 (checked against its
// types.go); security contexts stay open.
import {
  CORE,
  INT_OR_STRING,
  QUANTITY,
  bool,
  int32,
  int64,
  keyedList,
  list,
  mapOf,
  object,
  oneOf,
  openObject,
  ref,
  str,
  strings,
  type Schema,
} from './schema.ts';

const quantities = (description: string): Schema => mapOf(ref(QUANTITY), description);

const containerFields: Record<string, Schema> = {
  name: str('Name of the container, a DNS label unique within the pod. Cannot be updated.'),
  image: str('Container image name, as a registry reference (for example nginx:1.27).'),
  command: strings(
    "Entrypoint array, run without a shell. Replaces the image's ENTRYPOINT. $(VAR) references are expanded.",
  ),
  args: strings("Arguments to the entrypoint. Replace the image's CMD. $(VAR) references are expanded."),
  workingDir: str("Working directory; the image's default when empty."),
  ports: keyedList(
    ref(`${CORE}.ContainerPort`),
    'Ports the container exposes (informational).',
    'containerPort',
    'protocol',
  ),
  envFrom: list(ref(`${CORE}.EnvFromSource`), 'Sources whose keys all become environment variables.'),
  env: keyedList(ref(`${CORE}.EnvVar`), 'Environment variables to set in the container.', 'name'),
  resources: ref(`${CORE}.ResourceRequirements`, 'Compute resources the container requests and is limited to.'),
  resizePolicy: list(ref(`${CORE}.ContainerResizePolicy`), 'How each resource is resized in place.'),
  restartPolicy: str(
    'Per-container restart policy; only "Always" is allowed, for init containers that run as sidecars.',
  ),
  restartPolicyRules: list(ref(`${CORE}.ContainerRestartRule`), 'Exit-code rules that override restartPolicy.'),
  volumeMounts: keyedList(
    ref(`${CORE}.VolumeMount`),
    "Pod volumes to mount into the container's filesystem.",
    'mountPath',
  ),
  volumeDevices: keyedList(ref(`${CORE}.VolumeDevice`), 'Block devices the container uses.', 'devicePath'),
  livenessProbe: ref(
    `${CORE}.Probe`,
    'Periodic probe of container liveness; the container is restarted when it fails.',
  ),
  readinessProbe: ref(`${CORE}.Probe`, 'Periodic probe of readiness; the pod leaves service endpoints while it fails.'),
  startupProbe: ref(`${CORE}.Probe`, 'Probe that must succeed before the other probes start.'),
  lifecycle: ref(`${CORE}.Lifecycle`, 'Actions the system takes on container lifecycle events.'),
  terminationMessagePath: str('File whose contents become the termination message. Default /dev/termination-log.'),
  terminationMessagePolicy: oneOf('How the termination message is populated.', ['File', 'FallbackToLogsOnError']),
  imagePullPolicy: oneOf('When to pull the image. Default Always for :latest, IfNotPresent otherwise.', [
    'Always',
    'Never',
    'IfNotPresent',
  ]),
  securityContext: ref(`${CORE}.SecurityContext`, 'Security options the container runs with.'),
  stdin: bool('Allocate a buffer for stdin.'),
  stdinOnce: bool('Close stdin after the first attach session.'),
  tty: bool('Allocate a TTY (requires stdin).'),
};

const keySelector = (what: string): Schema => ({
  ...object(
    `Selects a key of a ${what}.`,
    {
      name: str(`Name of the ${what}.`),
      key: str('The key to select.'),
      optional: bool(`Whether the ${what} or its key may be missing.`),
    },
    ['key'],
  ),
  'x-kubernetes-map-type': 'atomic',
});

const handler = (description: string, extra: Record<string, Schema>): Schema =>
  object(description, {
    exec: ref(`${CORE}.ExecAction`, 'Runs a command in the container.'),
    httpGet: ref(`${CORE}.HTTPGetAction`, 'Performs an HTTP GET.'),
    tcpSocket: ref(`${CORE}.TCPSocketAction`, 'Opens a TCP connection.'),
    ...extra,
  });

export const containerModels: Record<string, Schema> = {
  [`${CORE}.Container`]: object('A single application container to run within a pod.', containerFields, ['name']),
  [`${CORE}.EphemeralContainer`]: object(
    'A temporary container added to a running pod for troubleshooting. It has no ports, probes or resources.',
    {
      ...containerFields,
      targetContainerName: str('Name of the container whose namespaces (IPC, PID) this container joins.'),
    },
    ['name'],
  ),
  [`${CORE}.ContainerPort`]: object(
    'A network port of a container.',
    {
      name: str('An IANA_SVC_NAME, unique within the pod, that services can refer to.'),
      hostPort: int32('Port to expose on the host.'),
      containerPort: int32("Port on the pod's IP address."),
      // Defaulted in the model as upstream (+default="TCP"): a list-map key must be required or defaulted.
      protocol: { ...oneOf('Protocol of the port. Default TCP.', ['TCP', 'UDP', 'SCTP']), default: 'TCP' },
      hostIP: str('Host IP to bind the external port to.'),
    },
    ['containerPort'],
  ),
  [`${CORE}.EnvVar`]: object(
    'An environment variable of a container.',
    {
      name: str('Name of the variable.'),
      value: str('Value, with $(VAR) references expanded. Defaults to "".'),
      valueFrom: ref(`${CORE}.EnvVarSource`, 'Source of the value; not allowed with value.'),
    },
    ['name'],
  ),
  [`${CORE}.EnvVarSource`]: object('Where an environment variable takes its value from.', {
    fieldRef: ref(
      `${CORE}.ObjectFieldSelector`,
      'A field of the pod: metadata.name, metadata.namespace, spec.nodeName, status.podIP, ...',
    ),
    resourceFieldRef: ref(
      `${CORE}.ResourceFieldSelector`,
      'A resource of a container: limits.cpu, requests.memory, ...',
    ),
    configMapKeyRef: ref(`${CORE}.ConfigMapKeySelector`, 'A key of a ConfigMap in the namespace.'),
    secretKeyRef: ref(`${CORE}.SecretKeySelector`, 'A key of a Secret in the namespace.'),
    fileKeyRef: ref(`${CORE}.FileKeySelector`, 'A key of an env file in a volume.'),
  }),
  [`${CORE}.ObjectFieldSelector`]: {
    ...object(
      'Selects a field of the object.',
      {
        apiVersion: str('Version of the schema fieldPath is written in. Default v1.'),
        fieldPath: str('Path of the field to select.'),
      },
      ['fieldPath'],
    ),
    'x-kubernetes-map-type': 'atomic',
  },
  [`${CORE}.ResourceFieldSelector`]: {
    ...object(
      'Selects a resource of a container.',
      {
        containerName: str('The container, required for volumes.'),
        resource: str('The resource: limits.cpu, requests.memory, ...'),
        divisor: ref(QUANTITY, 'Output format of the value. Default 1.'),
      },
      ['resource'],
    ),
    'x-kubernetes-map-type': 'atomic',
  },
  [`${CORE}.ConfigMapKeySelector`]: keySelector('ConfigMap'),
  [`${CORE}.SecretKeySelector`]: keySelector('Secret'),
  [`${CORE}.FileKeySelector`]: {
    ...object(
      'Selects a key of an env file in a volume.',
      {
        volumeName: str('Name of the volume holding the file.'),
        path: str('Path of the file within the volume.'),
        key: str('The key to select.'),
        optional: bool('Whether the file or key may be missing.'),
      },
      ['volumeName', 'path', 'key'],
    ),
    'x-kubernetes-map-type': 'atomic',
  },
  [`${CORE}.EnvFromSource`]: object('A source of a set of environment variables.', {
    prefix: str('Prefix to put in front of every key.'),
    configMapRef: ref(`${CORE}.ConfigMapEnvSource`, 'The ConfigMap to take variables from.'),
    secretRef: ref(`${CORE}.SecretEnvSource`, 'The Secret to take variables from.'),
  }),
  [`${CORE}.ConfigMapEnvSource`]: object('A ConfigMap whose keys become environment variables.', {
    name: str('Name of the ConfigMap.'),
    optional: bool('Whether the ConfigMap may be missing.'),
  }),
  [`${CORE}.SecretEnvSource`]: object('A Secret whose keys become environment variables.', {
    name: str('Name of the Secret.'),
    optional: bool('Whether the Secret may be missing.'),
  }),
  [`${CORE}.ResourceRequirements`]: object('Compute resource requirements.', {
    limits: quantities('Maximum amount of each resource allowed (cpu, memory, ephemeral-storage, ...).'),
    requests: quantities('Minimum amount of each resource required; defaults to the limits when omitted.'),
    claims: keyedList(ref(`${CORE}.ResourceClaim`), "Names of the pod's resource claims this container uses.", 'name'),
  }),
  [`${CORE}.ResourceClaim`]: object(
    'A reference to one of the pod resource claims.',
    {
      name: str('Name of an entry of pod.spec.resourceClaims.'),
      request: str('Name of a request within the claim, when only that request is used.'),
    },
    ['name'],
  ),
  [`${CORE}.ContainerResizePolicy`]: object(
    'How a container resource is resized.',
    {
      resourceName: str('cpu or memory.'),
      restartPolicy: oneOf('Whether a resize restarts the container.', ['NotRequired', 'RestartContainer']),
    },
    ['resourceName', 'restartPolicy'],
  ),
  [`${CORE}.ContainerRestartRule`]: object('A rule deciding whether an exited container restarts.', {
    action: str('Action to take when the rule matches: Restart.'),
    exitCodes: openObject('Exit codes the rule matches.', {
      operator: oneOf('How the codes are matched.', ['In', 'NotIn']),
      values: list({ type: 'integer', format: 'int32' }, 'The exit codes.', 'set'),
    }),
  }),
  [`${CORE}.VolumeMount`]: object(
    'Mounts a volume into a container.',
    {
      name: str('Name of a volume of the pod.'),
      readOnly: bool('Mount read-only. Default false.'),
      recursiveReadOnly: oneOf('Whether a read-only mount is read-only recursively.', [
        'Disabled',
        'IfPossible',
        'Enabled',
      ]),
      mountPath: str('Path in the container where the volume is mounted. Must not contain ":".'),
      subPath: str('Path within the volume to mount instead of its root.'),
      mountPropagation: oneOf('How mounts propagate between host and container.', [
        'None',
        'HostToContainer',
        'Bidirectional',
      ]),
      subPathExpr: str('Like subPath, with $(VAR) references expanded from the environment.'),
      bindMountOptions: openObject('Options of the bind mount.'),
    },
    ['name', 'mountPath'],
  ),
  [`${CORE}.VolumeDevice`]: object(
    'Maps a raw block device into a container.',
    {
      name: str('Name of a persistentVolumeClaim volume of the pod.'),
      devicePath: str('Path in the container the device is mapped to.'),
    },
    ['name', 'devicePath'],
  ),
  [`${CORE}.Probe`]: handler('A health check performed against a container.', {
    grpc: ref(`${CORE}.GRPCAction`, 'Performs a gRPC health check.'),
    initialDelaySeconds: int32('Seconds after the container starts before probes begin.'),
    timeoutSeconds: int32('Seconds after which a probe times out. Default 1.'),
    periodSeconds: int32('How often, in seconds, to probe. Default 10.'),
    successThreshold: int32('Consecutive successes after a failure to count as success. Default 1.'),
    failureThreshold: int32('Consecutive failures to count as failure. Default 3.'),
    terminationGracePeriodSeconds: int64('Grace period for termination after a failed liveness or startup probe.'),
  }),
  [`${CORE}.Lifecycle`]: object('Actions on container lifecycle events.', {
    postStart: ref(`${CORE}.LifecycleHandler`, 'Called right after the container is created.'),
    preStop: ref(`${CORE}.LifecycleHandler`, 'Called before the container is terminated.'),
    stopSignal: str('Signal sent to stop the container.'),
  }),
  [`${CORE}.LifecycleHandler`]: handler('An action run on a lifecycle event.', {
    sleep: ref(`${CORE}.SleepAction`, 'Sleeps for a while.'),
  }),
  [`${CORE}.ExecAction`]: object('Runs a command; exit status 0 is success.', {
    command: strings('Command line, run without a shell.'),
  }),
  [`${CORE}.HTTPGetAction`]: object(
    'An HTTP GET; a 2xx or 3xx answer is success.',
    {
      path: str('Path to request.'),
      port: ref(INT_OR_STRING, 'Port number or name.'),
      host: str('Host to connect to; the pod IP by default.'),
      scheme: oneOf('Scheme. Default HTTP.', ['HTTP', 'HTTPS']),
      httpHeaders: list(ref(`${CORE}.HTTPHeader`), 'Extra request headers.'),
      protocol: str('Application protocol spoken on the port.'),
    },
    ['port'],
  ),
  [`${CORE}.HTTPHeader`]: object('An HTTP header.', { name: str('Header name.'), value: str('Header value.') }, [
    'name',
    'value',
  ]),
  [`${CORE}.TCPSocketAction`]: object(
    'Opens a TCP connection.',
    { port: ref(INT_OR_STRING, 'Port number or name.'), host: str('Host to connect to; the pod IP by default.') },
    ['port'],
  ),
  [`${CORE}.GRPCAction`]: object(
    'A gRPC health check.',
    {
      port: int32('Port of the gRPC service.'),
      service: str('Service name sent in the HealthCheckRequest.'),
      mode: str('How the health check is performed.'),
    },
    ['port'],
  ),
  [`${CORE}.SleepAction`]: object('Sleeps.', { seconds: int64('Seconds to sleep.') }, ['seconds']),
  [`${CORE}.SecurityContext`]: openObject('Security options of a container; overrides the pod security context.', {
    capabilities: openObject('Capabilities to add and drop.', {
      add: strings('Capabilities to add.'),
      drop: strings('Capabilities to drop.'),
    }),
    privileged: bool('Run as privileged, like root on the host. Default false.'),
    runAsUser: int64('UID to run the entrypoint as.'),
    runAsGroup: int64('GID to run the entrypoint as.'),
    runAsNonRoot: bool('Refuse to start a container whose user is root.'),
    readOnlyRootFilesystem: bool('Mount the root filesystem read-only.'),
    allowPrivilegeEscalation: bool('Whether a process may gain more privileges than its parent.'),
    seccompProfile: openObject('Seccomp profile.', { type: str('RuntimeDefault, Unconfined or Localhost.') }),
  }),
};

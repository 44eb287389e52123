// What the error channel carries at the end of an exec: a metav1.Status in JSON for the v4 and v5
// protocols (kubelet remotecommand/exec.go, apiserver proxy/streamtranslator.go), the bare
// failure message for older ones (nothing on success). Key order is metav1.Status's field order;
// kind, apiVersion and code are empty and omitted.

export type ExecOutcome = { exitCode: number } | { error: string };

/**
 * `translated`: the v5 WebSocket path, where the API server runs the command through its own SPDY
 * client and reports client-go's exit error; otherwise the runtime's own wording is passed on.
 */
export function execStatus(outcome: ExecOutcome, command: string[], translated: boolean): object {
  if ('error' in outcome) return internalErrorStatus(`error executing command in container: ${outcome.error}`);
  if (outcome.exitCode === 0) return { metadata: {}, status: 'Success' };
  const detail = translated
    ? `command terminated with exit code ${outcome.exitCode}`
    : `error executing command [${command.join(' ')}], exit code ${outcome.exitCode}`;
  return {
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: ${detail}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(outcome.exitCode) }] },
  };
}

/** The error channel's bytes for a protocol: JSON from v4 on, the plain message before. */
export function errorChannelPayload(status: object, jsonStatus: boolean): string {
  if (jsonStatus) return JSON.stringify(status);
  const s = status as { status: string; message?: string };
  return s.status === 'Success' ? '' : (s.message ?? '');
}

/** An error raised before the command could start, as the v5 path reports it on the error channel. */
export function upgradeFailureStatus(text: string): object {
  return internalErrorStatus(`unable to upgrade connection: ${text}`);
}

/** apierrors.NewInternalError's Status, the cause's message repeated in details. */
function internalErrorStatus(message: string): object {
  return {
    metadata: {},
    status: 'Failure',
    message: `Internal error occurred: ${message}`,
    reason: 'InternalError',
    details: { causes: [{ message }] },
    code: 500,
  };
}

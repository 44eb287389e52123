// One forwarded connection: bytes both ways between the client's stream and the pod's port.
// As the container runtime's port-forward (containerd's sandbox PortForward), once either
// direction ends the other gets one second to finish, then both are torn down; an end is passed
// on as a half-close.
import type { Duplex } from 'node:stream';

export const HALF_CLOSE_GRACE_MS = 1000;

export function forward(client: Duplex, pod: Duplex): Promise<void> {
  return new Promise((resolve) => {
    let grace: NodeJS.Timeout | undefined;
    let ended = 0;
    let settled = false;
    const finish = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(grace);
      client.unpipe(pod);
      pod.unpipe(client);
      pod.destroy();
      if (!client.destroyed && !client.writableEnded) client.end();
      resolve();
    };
    const directionEnded = (): void => {
      ended++;
      if (ended >= 2) finish();
      else grace ??= setTimeout(finish, HALF_CLOSE_GRACE_MS);
    };
    pod.on('error', finish);
    client.on('error', finish);
    pod.on('close', finish);
    client.on('close', finish);
    client.on('end', directionEnded);
    pod.on('end', directionEnded);
    client.pipe(pod);
    pod.pipe(client);
  });
}

// exec over WebSocket channels: 0 stdin, 1 stdout, 2 stderr, 3 error, 4 resize
// (kubelet remotecommand/websocket.go; apiserver proxy/websocket.go for v5).
import type { ExecSession } from '../../kubelet/streams.ts';
import type { ExecOptions } from './exec-options.ts';
import { runExec } from './exec-run.ts';
import { errorChannelPayload, execStatus, upgradeFailureStatus } from './exec-status.ts';
import type { ExecWebSocketProtocol } from './negotiate.ts';
import type { ChannelConnection } from './ws-channels.ts';

const STDIN = 0;
const STDOUT = 1;
const STDERR = 2;
const ERROR = 3;
const RESIZE = 4;

/**
 * `start` runs the command: for v5 only now, after the upgrade, so that a kubelet refusal reaches
 * the client as an InternalError on the error channel, as the API server's translator reports it.
 */
export async function serveExecOverWebSocket(
  conn: ChannelConnection,
  protocol: ExecWebSocketProtocol,
  options: ExecOptions,
  start: () => Promise<ExecSession>,
): Promise<void> {
  // The first message tells the client the connection is established.
  await conn.send(options.stdout ? STDOUT : options.stderr ? STDERR : ERROR, Buffer.alloc(0));
  let session: ExecSession;
  try {
    session = await start();
  } catch (e) {
    await finish(conn, protocol, upgradeFailureStatus(e instanceof Error ? e.message : String(e)));
    return;
  }
  let done = false;
  conn.onClose(() => {
    if (!done) session.kill();
  });
  const outcome = await runExec(session, {
    stdin: options.stdin ? conn.input(STDIN) : undefined,
    stdout: options.stdout ? conn.output(STDOUT) : undefined,
    stderr: options.stderr ? conn.output(STDERR) : undefined,
    resize: options.tty ? conn.input(RESIZE) : undefined,
  });
  done = true;
  await finish(conn, protocol, execStatus(outcome, options.command, protocol.translated));
}

async function finish(conn: ChannelConnection, protocol: ExecWebSocketProtocol, status: object): Promise<void> {
  const payload = errorChannelPayload(status, protocol.jsonStatus);
  if (payload) await conn.send(ERROR, payload);
  conn.close();
}

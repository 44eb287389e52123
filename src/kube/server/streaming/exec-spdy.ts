// exec over SPDY (kubelet remotecommand/httpstream.go): the client opens an error stream, then
// one stream per requested stdin/stdout/stderr, plus resize for a tty from v3 on; the command's
// pipes are joined once all have arrived (30 s at most). At the end the Status goes on the error
// stream, every stream is finished and the connection says GOAWAY.
import type { ExecSession } from '../../kubelet/streams.ts';
import type { ExecOptions } from './exec-options.ts';
import { runExec } from './exec-run.ts';
import { errorChannelPayload, execStatus } from './exec-status.ts';
import { headerValue } from './spdy/header-block.ts';
import type { SpdySession } from './spdy/session.ts';
import { endStream, type SpdyStream } from './spdy/stream.ts';

export const STREAM_CREATION_TIMEOUT_MS = 30_000;

export function serveExecOverSpdy(
  session: SpdySession,
  protocol: string,
  options: ExecOptions,
  exec: ExecSession,
): void {
  const resizable = protocol !== 'channel.k8s.io' && protocol !== 'v2.channel.k8s.io';
  const expected =
    1 + Number(options.stdin) + Number(options.stdout) + Number(options.stderr) + Number(options.tty && resizable);
  const byType = new Map<string, SpdyStream>();
  let started = false;
  let done = false;
  const timer = setTimeout(() => {
    if (!started) session.close();
  }, STREAM_CREATION_TIMEOUT_MS);
  session.on('close', () => {
    clearTimeout(timer);
    if (!done) exec.kill();
  });

  const add = (stream: SpdyStream): void => {
    byType.set(headerValue(stream.headers, 'streamType'), stream);
    if (!started && byType.size >= expected && byType.has('error')) {
      started = true;
      clearTimeout(timer);
      void run();
    }
  };

  const run = async (): Promise<void> => {
    const outcome = await runExec(exec, {
      stdin: options.stdin ? byType.get('stdin') : undefined,
      stdout: options.stdout ? byType.get('stdout') : undefined,
      stderr: options.stderr ? byType.get('stderr') : undefined,
      resize: options.tty ? byType.get('resize') : undefined,
    });
    done = true;
    const payload = errorChannelPayload(
      execStatus(outcome, options.command, false),
      protocol === 'v4.channel.k8s.io' || protocol === 'v5.channel.k8s.io',
    );
    const errorStream = byType.get('error');
    if (errorStream) await endStream(errorStream, payload);
    session.close();
  };

  session.on('stream', add);
}

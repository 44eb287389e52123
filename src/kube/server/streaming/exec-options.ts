// PodExecOptions from the query (`command` repeated, `container`, `stdin`, `stdout`, `stderr`,
// `tty`), with the kubelet's own rules (kubelet remotecommand/httpstream.go NewOptions): a tty
// has no separate stderr, and at least one stream is required.
import type { ExecRequest } from '../../kubelet/streams.ts';
import { queryBool } from '../request.ts';

export interface ExecOptions {
  container: string | null;
  command: string[];
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

export function parseExecOptions(query: URLSearchParams): ExecOptions {
  const tty = queryBool(query, 'tty') ?? false;
  return {
    container: query.get('container') || null,
    command: query.getAll('command'),
    stdin: queryBool(query, 'stdin') ?? false,
    stdout: queryBool(query, 'stdout') ?? false,
    stderr: !tty && (queryBool(query, 'stderr') ?? false),
    tty,
  };
}

/** The kubelet's 400 text when the request asks for no stream at all. */
export function missingStreams(o: ExecOptions): string | undefined {
  return !o.stdin && !o.stdout && !o.stderr ? 'you must specify at least 1 of stdin, stdout, stderr' : undefined;
}

export function execRequest(o: ExecOptions, container: string): ExecRequest {
  return { container, command: o.command, stdin: o.stdin, stdout: o.stdout, stderr: o.stderr, tty: o.tty };
}

// Named health checks behind /healthz and /readyz, answered like Kubernetes components do:
// 200 "ok" or 500 with one "[+]name ok" / "[-]name failed: reason" line per check (always with
// `?verbose`, or when something fails).

/** Resolves (or returns) when healthy; throws (or returns an Error/false) when not. */
export type Checker = () => void | boolean | Error | Promise<void | boolean | Error>;

export interface CheckResult {
  ok: boolean;
  body: string;
}

export class HealthChecks {
  private readonly checks = new Map<string, Checker>();

  add(name: string, check: Checker): void {
    if (!/^[a-z0-9][-a-z0-9.]*$/i.test(name)) throw new Error(`invalid health check name ${JSON.stringify(name)}`);
    if (this.checks.has(name)) throw new Error(`health check ${name} already exists`);
    this.checks.set(name, check);
  }

  has(name: string): boolean {
    return this.checks.has(name);
  }

  /** Runs every check (or only `only`); `exclude` names are skipped, as `?exclude=` in Kubernetes. */
  async run(
    opts: { only?: string; exclude?: string[]; verbose?: boolean; timeoutMs?: number } = {},
  ): Promise<CheckResult> {
    const entries = [...this.checks].filter(([n]) => (opts.only ? n === opts.only : !opts.exclude?.includes(n)));
    if (opts.only && entries.length === 0) return { ok: false, body: `no such health check: ${opts.only}\n` };
    const results = await Promise.all(
      entries.map(async ([name, check]) => {
        const failure = await evaluate(check, opts.timeoutMs ?? 5_000);
        return { name, failure };
      }),
    );
    const ok = results.every((r) => r.failure === undefined);
    if (opts.only) return { ok, body: ok ? 'ok' : `${results[0].failure}\n` };
    if (ok && !opts.verbose) return { ok, body: 'ok' };
    const lines = results.map((r) =>
      r.failure === undefined ? `[+]${r.name} ok` : `[-]${r.name} failed: ${r.failure}`,
    );
    lines.push(ok ? 'check passed' : 'check failed');
    return { ok, body: `${lines.join('\n')}\n` };
  }
}

async function evaluate(check: Checker, timeoutMs: number): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<Error>((resolve) => {
      timer = setTimeout(() => resolve(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
      timer.unref();
    });
    const r = await Promise.race([Promise.resolve().then(check), timeout]);
    if (r instanceof Error) return r.message;
    if (r === false) return 'not ready';
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    clearTimeout(timer);
  }
}

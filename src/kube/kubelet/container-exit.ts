// When a simulated container exits, read from its command line. Nothing runs, so only commands
// whose outcome is obvious from their text are understood:
//
//   true, false                          exit 0 / exit 1 at once
//   sleep N                              exit 0 after N seconds (decimals allowed)
//   sh -c 'SCRIPT' (/bin/sh, bash, /bin/bash, also with -ec / -xc style flags)
//     where SCRIPT is statements joined by `;`, `&&` or newlines, each one of `exit [N]`,
//     `sleep N`, `true`, `false` or `:` — e.g. `exit 3`, `sleep 1; exit 2`, `sleep 5 && true`
//
// `command` and `args` are joined as the runtime does (args follow command). Anything else —
// no command at all (the image's entrypoint), `sleep infinity`, a script with any other
// statement — runs forever, as every simulated container did before.

export interface ExitPlan {
  /** Run time before the exit, in ms. */
  afterMs: number;
  exitCode: number;
}

const SHELLS = new Set(['sh', '/bin/sh', 'bash', '/bin/bash', '/usr/bin/sh', '/usr/bin/bash']);
const DURATION = /^\d+(\.\d+)?s?$/;

function strings(v: unknown): string[] | undefined {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) return undefined;
  return v as string[];
}

function base(cmd: string): string {
  return cmd.replace(/^\/(usr\/)?bin\//, '');
}

/** `sleep N`'s duration in ms, or undefined when it is not a finite number of seconds. */
function sleepMs(arg: string | undefined): number | undefined {
  if (arg === undefined || !DURATION.test(arg)) return undefined;
  return Math.round(Number.parseFloat(arg) * 1000);
}

/** One shell statement: its run time and exit code, or `exit` ending the script. */
function statement(words: string[]): { ms: number; code: number; exits: boolean } | undefined {
  const [cmd, ...rest] = words;
  if (cmd === 'exit' && rest.length <= 1) {
    const code = rest.length === 0 ? undefined : Number(rest[0]);
    if (code !== undefined && !Number.isInteger(code)) return undefined;
    return { ms: 0, code: code === undefined ? -1 : ((code % 256) + 256) % 256, exits: true };
  }
  if ((cmd === 'true' || cmd === ':') && rest.length === 0) return { ms: 0, code: 0, exits: false };
  if (cmd === 'false' && rest.length === 0) return { ms: 0, code: 1, exits: false };
  if (cmd === 'sleep' && rest.length === 1) {
    const ms = sleepMs(rest[0]);
    return ms === undefined ? undefined : { ms, code: 0, exits: false };
  }
  return undefined;
}

/** A `-c` script: statements separated by `;`, `&&` or newlines (quotes are not understood). */
function script(text: string): ExitPlan | undefined {
  if (/['"`$|<>(){}\\]/.test(text)) return undefined;
  let afterMs = 0;
  let code = 0;
  const parts = text.split(/(;|&&|\n)/);
  let skipping = false;
  for (let i = 0; i < parts.length; i += 2) {
    const words = parts[i].trim().split(/\s+/).filter(Boolean);
    const sep = parts[i - 1];
    if (words.length === 0) {
      if (sep === '&&') return undefined;
      continue;
    }
    const st = statement(words);
    if (!st) return undefined;
    if (sep === '&&' && code !== 0) skipping = true;
    else if (sep !== '&&') skipping = false;
    if (skipping) continue;
    afterMs += st.ms;
    if (st.exits) return { afterMs, exitCode: st.code === -1 ? code : st.code };
    code = st.code;
  }
  return { afterMs, exitCode: code };
}

/** How the container exits, or undefined when it runs until it is killed. */
export function exitPlan(container: { command?: unknown; args?: unknown }): ExitPlan | undefined {
  const command = strings(container.command);
  const args = strings(container.args);
  if (!command || !args) return undefined;
  const argv = [...command, ...args];
  if (argv.length === 0) return undefined;
  const [cmd, ...rest] = argv;
  if (SHELLS.has(cmd)) {
    const flag = rest[0];
    if (rest.length !== 2 || !/^-[a-z]*c[a-z]*$/.test(flag ?? '')) return undefined;
    return script(rest[1]);
  }
  const st = statement([base(cmd), ...rest]);
  if (!st || st.exits) return undefined;
  return { afterMs: st.ms, exitCode: st.code };
}

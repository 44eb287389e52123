// What `peerpods … --help` shows a new user (issue #16): each default once, as it would be typed
// (durations as 10m0s, not 600000; no JSON), and a health-probe port per `run` command, so any two
// of them run side by side on one host.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/program.ts';
import { HEALTH_PROBE_PORTS } from '../../src/cli/options.ts';
import { runCli } from '../helpers/cli.ts';

function commands(cmd: Command, path: string[] = []): Array<{ path: string; cmd: Command }> {
  const here = [...path, cmd.name()];
  return [{ path: here.join(' '), cmd }, ...cmd.commands.flatMap((c) => commands(c, here))];
}

const program = buildProgram();
const all = commands(program);

/** `[flags, description as --help prints it]` for each option of each command. */
function optionLines(): Array<{ where: string; flags: string; text: string }> {
  return all.flatMap(({ path, cmd }) => {
    const help = cmd.createHelp();
    return help.visibleOptions(cmd).map((o) => ({ where: path, flags: o.flags, text: help.optionDescription(o) }));
  });
}

describe('--help', () => {
  it('names each default once', () => {
    for (const { where, flags, text } of optionLines()) {
      assert.ok((text.match(/default: /g) ?? []).length <= 1, `${where} ${flags}: ${text}`);
    }
  });

  it('shows no JSON and no empty defaults', () => {
    for (const { where, flags, text } of optionLines()) {
      assert.doesNotMatch(text, /default: [[{"]/, `${where} ${flags}: ${text}`);
      assert.doesNotMatch(text, /default: \)/, `${where} ${flags}: ${text}`);
    }
  });

  it('shows durations as durations', () => {
    const durations = optionLines().filter((o) => o.flags.includes('<duration>'));
    assert.ok(durations.length >= 8, 'the commands have duration flags');
    for (const { where, flags, text } of durations) {
      const shown = /default: ([^)]*)\)/.exec(text)?.[1];
      assert.ok(shown, `${where} ${flags} shows its default: ${text}`);
      assert.match(shown, /^(\d+h)?(\d+m)?(\d+s)?(\d+ms)?$/, `${where} ${flags}: ${text}`);
    }
    const grace = optionLines().find(
      (o) => o.where === 'peerpods run peerpod-controller' && o.flags.startsWith('--orphan-grace'),
    );
    assert.match(grace?.text ?? '', /\(default: 10m0s\)/);
  });

  it('shows the bind address as one types it', () => {
    const probes = optionLines().filter((o) => o.flags.startsWith('--health-probe-bind-address'));
    assert.equal(probes.length, Object.keys(HEALTH_PROBE_PORTS).length);
    for (const { where, text } of probes) assert.match(text, /\(default: 127\.0\.0\.1:\d+\)$/, `${where}: ${text}`);
  });

  it('gives every run command its own health-probe port', () => {
    const ports = all
      .filter(({ path }) => path.startsWith('peerpods run '))
      .flatMap(({ path, cmd }) => {
        const opt = cmd.options.find((o) => o.long === '--health-probe-bind-address');
        return opt ? [{ path, port: (opt.defaultValue as { port: number }).port }] : [];
      });
    assert.equal(ports.length, 5, JSON.stringify(ports));
    assert.equal(new Set(ports.map((p) => p.port)).size, ports.length, JSON.stringify(ports));
  });
});

describe('run adaptor --provider', () => {
  it('refuses an unknown provider at start, naming the known ones', async () => {
    const run = runCli(['run', 'adaptor', '--provider', 'nosuch', '--node', 'node-1']);
    const { code } = await run.exited;
    assert.notEqual(code, 0);
    assert.match(
      run.output(),
      /unknown cloud provider "nosuch"; known providers: aws, azure, gcp, libvirt, qemu, simulated/,
    );
  });
});

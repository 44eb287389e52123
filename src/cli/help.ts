// How `--help` shows an option's default: once, and as a user would type it. Commander prints any
// default as JSON after the description, so a repeatable flag read `(default: [])`, a list
// `(default: ["1.1.1.1","8.8.8.8"])`, and a description that already named its default (an
// environment variable, a fallback) got a second `(default: …)`.
import type { Command, Option } from 'commander';

/** The text after `default:` for `option`, or undefined when nothing is worth showing. */
export function shownDefault(option: Option): string | undefined {
  if (option.defaultValueDescription) return option.defaultValueDescription;
  const value: unknown = option.defaultValue;
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return value.length > 0 ? value.map(String).join(',') : undefined;
  // An object (e.g. a bind address) means nothing as JSON: it is shown only through its description.
  if (value !== null && typeof value === 'object') return undefined;
  if (typeof value === 'string') return value === '' ? undefined : value;
  return String(value);
}

function optionDescription(option: Option): string {
  const extra: string[] = [];
  if (option.argChoices) extra.push(`choices: ${option.argChoices.join(', ')}`);
  const takesValue = option.required || option.optional;
  // A description that names its own default (e.g. "(default: $NODE_NAME)") keeps that one.
  const ownDefault = /\(default: /.test(option.description);
  const shown = takesValue && !ownDefault ? shownDefault(option) : undefined;
  if (shown !== undefined) extra.push(`default: ${shown}`);
  return extra.length > 0 ? `${option.description} (${extra.join(', ')})` : option.description;
}

/** Installs the formatter on `program`; subcommands created after this inherit it. */
export function configureHelp(program: Command): Command {
  return program.configureHelp({ optionDescription });
}

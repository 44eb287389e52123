// ObjectMeta validation on create and update, in the order and wording of apimachinery's
// ValidateObjectMetaAccessor(+Update) plus core validation's extra finalizer rule, so the
// causes of a 422 line up with a real cluster's.

import type { ObjectMeta, OwnerReference } from '../../apimachinery/meta/index.ts';
import { goTimeString } from '../../apimachinery/time/index.ts';
import { goQuote, goStringSlice } from '../../apimachinery/strings/goquote.ts';
import {
  fieldForbidden,
  fieldInvalid,
  fieldRequired,
  GoValue,
  renderBadValue,
  type FieldError,
} from '../../apimachinery/validation/field-errors.ts';
import { validateAnnotations, validateLabels } from '../../apimachinery/validation/labels.ts';
import {
  byteLength,
  isDNS1123Label,
  isQualifiedName,
  validateName,
  type NameRule,
} from '../../apimachinery/validation/names.ts';
import { validateOwnerReferences } from './owner-references.ts';
import { child, index } from '../../apimachinery/validation/field-path.ts';

export interface ObjectMetaOptions {
  namespaced: boolean;
  nameRule: NameRule;
  /**
   * Built-in kinds validated by core's ValidateObjectMeta also reject a finalizer without a
   * '/' unless it is one of the standard ones (see name-rules.ts for which kinds).
   */
  strictFinalizers?: boolean;
  /** Extra name length cap some kinds add (CronJob: 52), reported after the other errors. */
  maxNameLength?: number;
  /** Field path of the metadata; "metadata" unless validating an embedded template. */
  path?: string;
}

const STANDARD_FINALIZERS = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

function record(value: unknown): Record<string, string> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, string>) : {};
}

function list<T>(value: unknown): T[] {
  return Array.isArray(value) ? (value as T[]) : [];
}

export function validateFinalizers(finalizers: readonly string[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of finalizers) for (const msg of isQualifiedName(f)) errs.push(fieldInvalid(path, f, msg));
  if (finalizers.includes('orphan') && finalizers.includes('foregroundDeletion')) {
    errs.push(
      fieldInvalid(
        path,
        new GoValue(goStringSlice(finalizers)),
        'finalizer orphan and foregroundDeletion cannot be both set',
      ),
    );
  }
  return errs;
}

function strictFinalizerErrors(finalizers: readonly string[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  finalizers.forEach((f, i) => {
    if (!f.includes('/') && !STANDARD_FINALIZERS.has(f)) {
      errs.push(fieldInvalid(index(path, i), f, 'name is neither a standard finalizer name nor is it fully qualified'));
    }
  });
  return errs;
}

/** Shared tail of create and update validation: maps, owners, finalizers. */
function validateMetaContents(meta: ObjectMeta, path: string): FieldError[] {
  return [
    ...validateLabels(record(meta.labels), child(path, 'labels')),
    ...validateAnnotations(record(meta.annotations), child(path, 'annotations')),
    ...validateOwnerReferences(list<OwnerReference>(meta.ownerReferences), child(path, 'ownerReferences')),
  ];
}

function validateGeneration(meta: ObjectMeta, path: string): FieldError[] {
  const generation = meta.generation;
  if (typeof generation === 'number' && generation < 0) {
    return [fieldInvalid(child(path, 'generation'), generation, 'must be greater than or equal to 0')];
  }
  return [];
}

/**
 * Create-time validation. Run it after generateName has been expanded into `name`, as
 * kube-apiserver does; a missing name then means neither was given.
 */
export function validateObjectMeta(meta: ObjectMeta, opts: ObjectMetaOptions): FieldError[] {
  const path = opts.path ?? 'metadata';
  const errs: FieldError[] = [];
  const name = meta.name ?? '';
  const generateName = meta.generateName ?? '';
  if (generateName) {
    for (const msg of validateName(opts.nameRule, generateName, true)) {
      errs.push(fieldInvalid(child(path, 'generateName'), generateName, msg));
    }
  }
  if (!name) errs.push(fieldRequired(child(path, 'name'), 'name or generateName is required'));
  else
    for (const msg of validateName(opts.nameRule, name, false)) errs.push(fieldInvalid(child(path, 'name'), name, msg));

  const namespace = meta.namespace ?? '';
  if (opts.namespaced) {
    if (!namespace) errs.push(fieldRequired(child(path, 'namespace')));
    else for (const msg of isDNS1123Label(namespace)) errs.push(fieldInvalid(child(path, 'namespace'), namespace, msg));
  } else if (namespace) {
    errs.push(fieldForbidden(child(path, 'namespace'), 'not allowed on this type'));
  }

  errs.push(...validateGeneration(meta, path));
  errs.push(...validateMetaContents(meta, path));
  const finalizers = list<string>(meta.finalizers);
  errs.push(...validateFinalizers(finalizers, child(path, 'finalizers')));
  if (opts.strictFinalizers) errs.push(...strictFinalizerErrors(finalizers, child(path, 'finalizers')));
  if (opts.maxNameLength !== undefined && byteLength(name) > opts.maxNameLength) {
    errs.push(fieldInvalid(child(path, 'name'), name, `must be no more than ${opts.maxNameLength} characters`));
  }
  return errs;
}

export interface ObjectMetaUpdateOptions {
  strictFinalizers?: boolean;
  path?: string;
}

function timeValue(value: string | undefined): string | GoValue | null {
  if (!value) return null;
  const parsed = new Date(value);
  // metav1.Time is a fmt.Stringer, so Go prints it with time.Time.String().
  return Number.isNaN(parsed.getTime()) ? value : new GoValue(goTimeString(parsed));
}

function immutable(errs: FieldError[], path: string, next: unknown, prev: unknown): void {
  if (renderBadValue(next) !== renderBadValue(prev)) errs.push(fieldInvalid(path, next, 'field is immutable'));
}

/** Update-time validation of the new metadata against the stored one. */
export function validateObjectMetaUpdate(
  next: ObjectMeta,
  prev: ObjectMeta,
  opts: ObjectMetaUpdateOptions = {},
): FieldError[] {
  const path = opts.path ?? 'metadata';
  const errs: FieldError[] = [];
  const nextFinalizers = list<string>(next.finalizers);
  if (prev.deletionTimestamp) {
    const before = new Set(list<string>(prev.finalizers));
    const added = [...new Set(nextFinalizers.filter((f) => !before.has(f)))].sort();
    if (added.length) {
      errs.push(
        fieldForbidden(
          child(path, 'finalizers'),
          `no new finalizers can be added if the object is being deleted, found new finalizers ${goStringSlice(added)}`,
        ),
      );
    }
  }
  if (!next.resourceVersion) {
    errs.push(
      fieldInvalid(child(path, 'resourceVersion'), next.resourceVersion ?? '', 'must be specified for an update'),
    );
  }
  if ((next.generation ?? 0) < (prev.generation ?? 0)) {
    errs.push(fieldInvalid(child(path, 'generation'), next.generation ?? 0, 'must not be decremented'));
  }
  immutable(errs, child(path, 'name'), next.name ?? '', prev.name ?? '');
  immutable(errs, child(path, 'namespace'), next.namespace ?? '', prev.namespace ?? '');
  immutable(errs, child(path, 'uid'), next.uid ?? '', prev.uid ?? '');
  immutable(
    errs,
    child(path, 'creationTimestamp'),
    timeValue(next.creationTimestamp),
    timeValue(prev.creationTimestamp),
  );
  immutable(
    errs,
    child(path, 'deletionTimestamp'),
    timeValue(next.deletionTimestamp),
    timeValue(prev.deletionTimestamp),
  );
  immutable(
    errs,
    child(path, 'deletionGracePeriodSeconds'),
    next.deletionGracePeriodSeconds ?? null,
    prev.deletionGracePeriodSeconds ?? null,
  );
  errs.push(...validateMetaContents(next, path));
  if (opts.strictFinalizers) errs.push(...strictFinalizerErrors(nextFinalizers, child(path, 'finalizers')));
  return errs;
}

/**
 * Custom resources accept any qualified finalizer but warn (HTTP `Warning: 299`) about newly
 * added ones that are not domain-qualified; returns those warning texts.
 */
export function customResourceFinalizerWarnings(
  finalizers: readonly string[],
  previous: readonly string[] = [],
  path = 'metadata.finalizers',
): string[] {
  const before = new Set(previous);
  const added = [...new Set(finalizers.filter((f) => !before.has(f)))].sort();
  const warnings: string[] = [];
  for (const f of added) {
    const quoted = goQuote(f);
    for (const msg of isQualifiedName(f)) warnings.push(`${path}: ${quoted}: ${msg}`);
    if (!f.includes('/') && !STANDARD_FINALIZERS.has(f)) {
      warnings.push(
        `${path}: ${quoted}: prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers`,
      );
    }
  }
  return warnings;
}

// Name formats, label and annotation maps, label selector objects, and the field errors they produce.
export {
  toCauses,
  GoValue,
  renderBadValue,
  OMIT,
  fieldRequired,
  fieldForbidden,
  fieldInvalid,
  fieldTypeInvalid,
  fieldDuplicate,
  fieldNotFound,
  fieldNotSupported,
  fieldTooLong,
  fieldTooMany,
  fieldImmutable,
  type FieldError,
} from './field-errors.ts';
export { child, index, key, render, type Path } from './field-path.ts';
export {
  QUALIFIED_NAME_MAX_LENGTH,
  LABEL_VALUE_MAX_LENGTH,
  DNS1123_LABEL_MAX_LENGTH,
  DNS1123_SUBDOMAIN_MAX_LENGTH,
  DNS1035_LABEL_MAX_LENGTH,
  byteLength,
  maxLenError,
  emptyError,
  regexError,
  isDNS1123Label,
  isDNS1123Subdomain,
  isDNS1035Label,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
  isValidPathSegmentPrefix,
  validateName,
  validateQualifiedName,
  validateDNS1123Label,
  type NameRule,
} from './names.ts';
export { TOTAL_ANNOTATION_SIZE_LIMIT_BYTES, validateLabels, validateAnnotations } from './labels.ts';
export { validateLabelSelector, type LabelSelectorValidationOptions } from './label-selector.ts';

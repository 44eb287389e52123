// Label and field selectors: parsing with kube-apiserver's grammar and messages, and matching.
export {
  everything,
  nothing,
  parseLabelSelector,
  labelSelectorFromObject,
  type LabelMatcher,
  type LabelSelector,
  type LabelSelectorRequirement,
  type LabelOperator,
  type LabelRequirement,
} from './label.ts';
export {
  fieldSet,
  supportedFieldLabels,
  parseFieldSelector,
  convertFieldSelector,
  parseFieldSelectorFor,
  type CustomResourceFields,
  type FieldLabelOptions,
  type FieldMatcher,
  type FieldOperator,
  type FieldRequirement,
} from './field.ts';

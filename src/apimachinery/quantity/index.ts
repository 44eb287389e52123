// resource.Quantity with apimachinery's parsing, arithmetic and canonical text.
export {
  Quantity,
  QuantityError,
  QUANTITY_REGEX,
  parseQuantity,
  quantityFromJSON,
  tryQuantityFromJSON,
  canonicalQuantity,
  isValidQuantity,
  type QuantityFormat,
} from './quantity.ts';

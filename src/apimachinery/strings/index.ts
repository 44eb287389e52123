// Go's renderings of values (strconv.Quote, fmt's %v, encoding/json) and Go's string order.
export { goQuote, goStringSlice } from './goquote.ts';
export { goFloat, goNumber, goJson, goValue, type OrderedFields } from './go-format.ts';
export { compareStrings } from './compare.ts';
export { goBase64Error } from './go-base64.ts';

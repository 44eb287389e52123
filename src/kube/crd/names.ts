// CRD-specific name checks; the generic name formats are in apimachinery/validation/names.ts.

/** apimachinery's ParseGroupVersion, returning its error text or undefined. */
export function groupVersionError(gv: string): string | undefined {
  if (gv === '' || gv === '/') return undefined;
  return gv.split('/').length - 1 > 1 ? `unexpected GroupVersion string: ${gv}` : undefined;
}

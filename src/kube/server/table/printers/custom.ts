// Custom resources: Name, then the version's additionalPrinterColumns (or the default Age),
// cells found by JSONPath; `date` cells become ages like every other age in a Table.
import { NAME_COLUMN, printerCell } from '../../../crd/index.ts';
import type { PrinterColumn } from '../../../registry/resource.ts';
import { nameOf, since } from '../fields.ts';
import type { Cell, Printer } from '../types.ts';

export function customResourcePrinter(columns: PrinterColumn[]): Printer {
  return {
    columns: [
      { ...NAME_COLUMN },
      ...columns.map((c) => ({
        name: c.name,
        type: c.type,
        format: c.format ?? '',
        description: c.description ?? '',
        priority: c.priority ?? 0,
      })),
    ],
    cells(obj, now): Cell[] {
      return [
        nameOf(obj),
        ...columns.map((c) => {
          const cell = printerCell(obj, c);
          if (c.type !== 'date' || typeof cell !== 'string' || cell === '<invalid>' || cell === '<unknown>')
            return cell;
          return since(cell, now);
        }),
      ];
    },
  };
}

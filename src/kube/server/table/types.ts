// The shapes of a meta.k8s.io Table and of one printer: the columns a kind shows and how one
// object turns into a row of cells.
import type { JsonObject } from '../../../apimachinery/meta/index.ts';

/** What a Table cell may hold; kubectl prints null as `<none>`. */
export type Cell = string | number | boolean | null;

export interface ColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface RowCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface Printer {
  /** Every column, wide ones (priority > 0) included: kubectl drops those unless `-o wide`. */
  columns: ColumnDefinition[];
  /** One cell per column, in column order; `now` is the instant ages are measured from. */
  cells(obj: JsonObject, now: number): Cell[];
  conditions?(obj: JsonObject): RowCondition[] | undefined;
}

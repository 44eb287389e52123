// Table output for the embedded apiserver: what `kubectl get` asks for with
// `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`. Cells are computed server-side, ages
// included, because kubectl prints them verbatim.
import type { IncomingMessage } from 'node:http';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import type { ListResult } from '../../registry/list.ts';
import type { ResourceDef } from '../../registry/resource.ts';
import type { TableRenderer } from '../extensions.ts';
import { includeObjectOf, type IncludeObject, type TableVersion } from './negotiate.ts';
import { printerFor } from './printers/index.ts';
import type { Printer } from './types.ts';

export type { Cell, ColumnDefinition, Printer, RowCondition } from './types.ts';
export { printerFor } from './printers/index.ts';

export interface TableRendererOptions {
  /** The clock ages are measured against (tests). */
  now?: () => number;
}

function rowJson(
  printer: Printer,
  obj: JsonObject,
  text: string,
  include: IncludeObject,
  version: TableVersion,
  now: number,
): string {
  const cells = JSON.stringify(printer.cells(obj, now));
  const conditions = printer.conditions?.(obj);
  let object: string;
  if (include === 'None') object = 'null';
  else if (include === 'Object') object = text;
  else
    object = JSON.stringify({
      kind: 'PartialObjectMetadata',
      apiVersion: `meta.k8s.io/${version}`,
      metadata: obj.metadata ?? {},
    });
  return `{"cells":${cells}${conditions ? `,"conditions":${JSON.stringify(conditions)}` : ''},"object":${object}}`;
}

function tableJson(
  version: TableVersion,
  metadata: JsonObject,
  printer: Printer,
  withColumns: boolean,
  rows: string[],
): string {
  const columns = withColumns ? JSON.stringify(printer.columns) : 'null';
  return `{"kind":"Table","apiVersion":"meta.k8s.io/${version}","metadata":${JSON.stringify(metadata)},"columnDefinitions":${columns},"rows":[${rows.join(',')}]}`;
}

function resourceVersionOf(obj: JsonObject): JsonObject {
  const rv = (obj.metadata as JsonObject | undefined)?.resourceVersion;
  return typeof rv === 'string' && rv !== '' ? { resourceVersion: rv } : {};
}

export function createTableRenderer(options: TableRendererOptions = {}): TableRenderer {
  const clock = options.now ?? Date.now;
  return {
    list(def: ResourceDef, itemsJson: string[], req: IncomingMessage, result: ListResult, version: TableVersion) {
      const include = includeObjectOf(req);
      const printer = printerFor(def);
      const now = clock();
      const rows = itemsJson.map((text) =>
        rowJson(printer, JSON.parse(text) as JsonObject, text, include, version, now),
      );
      const metadata: JsonObject = { resourceVersion: String(result.revision) };
      if (result.continueToken) metadata.continue = result.continueToken;
      if (result.remainingItemCount !== undefined) metadata.remainingItemCount = result.remainingItemCount;
      return tableJson(version, metadata, printer, true, rows);
    },
    object(def: ResourceDef, json: string, req: IncomingMessage, version: TableVersion) {
      const include = includeObjectOf(req);
      const printer = printerFor(def);
      const obj = JSON.parse(json) as JsonObject;
      const row = rowJson(printer, obj, json, include, version, clock());
      return tableJson(version, resourceVersionOf(obj), printer, true, [row]);
    },
    watch(def: ResourceDef, req: IncomingMessage, version: TableVersion) {
      const include = includeObjectOf(req);
      const printer = printerFor(def);
      // kube-apiserver sends the column definitions with the first event only.
      let first = true;
      return (json: string) => {
        const obj = JSON.parse(json) as JsonObject;
        const table = tableJson(version, resourceVersionOf(obj), printer, first, [
          rowJson(printer, obj, json, include, version, clock()),
        ]);
        first = false;
        return table;
      };
    },
  };
}

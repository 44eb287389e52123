// The served OpenAPI documents of the current catalog, built on first request and kept until the
// catalog changes (CRDs come, go or are updated). Each carries a content hash for ETags and the
// `?hash=` of /openapi/v3 discovery.
import { createHash } from 'node:crypto';
import type { ResourceCatalog } from '../../registry/catalog.ts';
import type { Storage } from '../../storage/storage.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { CRD_PREFIX, indexCrds } from './crd-models.ts';
import { buildModels, type ModelSet } from './models.ts';
import { groupVersionDocument, groupVersionPath } from './v3.ts';
import { swaggerDocument } from './v2.ts';
import { encodeSwaggerProto } from './v2-proto.ts';

export interface Served {
  body: Buffer;
  /** Uppercase hex SHA-512 of the body, as kube computes its OpenAPI hashes. */
  hash: string;
}

function served(body: Buffer): Served {
  return { body, hash: createHash('sha512').update(body).digest('hex').toUpperCase() };
}

export class OpenApiDocuments {
  private models?: ModelSet;
  private readonly v3 = new Map<string, Served | null>();
  private v3Discovery?: Served;
  private v2Json?: Served;
  private v2Proto?: Served;
  private swaggerDoc?: JsonObject;

  constructor(
    private readonly catalog: ResourceCatalog,
    private readonly storage: Storage,
  ) {
    catalog.onChange(() => this.invalidate());
  }

  invalidate(): void {
    this.models = undefined;
    this.v3.clear();
    this.v3Discovery = undefined;
    this.v2Json = undefined;
    this.v2Proto = undefined;
    this.swaggerDoc = undefined;
  }

  /** The v3 document of `api/v1` or `apis/<g>/<v>`; undefined when that group/version is not served. */
  groupVersion(gvPath: string): Served | undefined {
    if (!this.v3.has(gvPath)) {
      const gv = this.catalog.groupVersions().flatMap((g) => g.versions.map((v) => ({ group: g.group, version: v })));
      const match = gv.find((x) => groupVersionPath(x.group, x.version) === gvPath);
      const doc =
        match && groupVersionDocument(this.catalog.inGroupVersion(match.group, match.version), this.modelSet());
      this.v3.set(gvPath, doc ? served(Buffer.from(JSON.stringify(doc))) : null);
    }
    return this.v3.get(gvPath) ?? undefined;
  }

  /** `{"paths": {"api/v1": {"serverRelativeURL": "/openapi/v3/api/v1?hash=…"}, …}}`. */
  discovery(): Served {
    if (!this.v3Discovery) {
      const paths: JsonObject = {};
      for (const { group, versions } of this.catalog.groupVersions()) {
        for (const version of versions) {
          const p = groupVersionPath(group, version);
          const doc = this.groupVersion(p);
          if (doc) paths[p] = { serverRelativeURL: `/openapi/v3/${p}?hash=${doc.hash}` };
        }
      }
      this.v3Discovery = served(Buffer.from(JSON.stringify({ paths })));
    }
    return this.v3Discovery;
  }

  swaggerJson(): Served {
    this.v2Json ??= served(Buffer.from(JSON.stringify(this.swagger())));
    return this.v2Json;
  }

  swaggerProto(): Served {
    this.v2Proto ??= served(Buffer.from(encodeSwaggerProto(this.swagger())));
    return this.v2Proto;
  }

  private swagger(): JsonObject {
    this.swaggerDoc ??= swaggerDocument(this.catalog.all(), this.modelSet());
    return this.swaggerDoc;
  }

  private modelSet(): ModelSet {
    if (!this.models) {
      const crds = this.storage.list(CRD_PREFIX).map((o) => JSON.parse(o.json) as JsonObject);
      this.models = buildModels(this.catalog, indexCrds(crds));
    }
    return this.models;
  }
}

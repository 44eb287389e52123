// Reflector and informer metrics. Labels: `kind` and `group` of the resource, `scope` as
// describeScope() prints it ("" = cluster-wide). One series set per informer.
//
// - peerpods_reflector_lists_total                 full lists completed (initial and relists)
// - peerpods_reflector_list_errors_total           list attempts that failed
// - peerpods_reflector_relists_total{reason}       lists after the first: reason = gone | error
// - peerpods_reflector_watches_total               watch requests the server accepted
// - peerpods_reflector_watch_restarts_total{reason} watches that ended and were reopened:
//       reason = closed (server ended it, e.g. timeoutSeconds) | watchdog (silent too long)
//              | stream_error (connection broke) | gone (410) | error (ERROR event / failed open)
// - peerpods_reflector_watch_errors_total          watches that failed to open, broke, or sent an ERROR event
// - peerpods_reflector_watch_events_total{type}    events received (ADDED, MODIFIED, DELETED, BOOKMARK, ERROR)
// - peerpods_reflector_malformed_events_total      watch lines or objects that were skipped as malformed
// - peerpods_informer_handler_errors_total         exceptions thrown by event handlers or transforms
// - peerpods_informer_objects                      objects in the store (gauge)
// - peerpods_informer_synced                       1 once the first list was stored (gauge)
// - peerpods_informer_healthy                      1 while list/watch works, 0 while failing (gauge)
import type { Counter, Gauge, Registry } from 'prom-client';
import { counterIn, gaugeIn } from '../client/metrics.ts';

type Base = 'kind' | 'group' | 'scope';

export interface CacheMetrics {
  lists: Counter<Base>;
  listErrors: Counter<Base>;
  relists: Counter<Base | 'reason'>;
  watches: Counter<Base>;
  watchRestarts: Counter<Base | 'reason'>;
  watchErrors: Counter<Base>;
  watchEvents: Counter<Base | 'type'>;
  malformed: Counter<Base>;
  handlerErrors: Counter<Base>;
  objects: Gauge<Base>;
  synced: Gauge<Base>;
  healthy: Gauge<Base>;
}

const cache = new WeakMap<Registry, CacheMetrics>();
const base = ['kind', 'group', 'scope'] as const;

export function cacheMetrics(registry: Registry): CacheMetrics {
  const hit = cache.get(registry);
  if (hit) return hit;
  const m: CacheMetrics = {
    lists: counterIn(registry, {
      name: 'peerpods_reflector_lists_total',
      help: 'Full lists completed',
      labelNames: base,
    }),
    listErrors: counterIn(registry, {
      name: 'peerpods_reflector_list_errors_total',
      help: 'List attempts that failed',
      labelNames: base,
    }),
    relists: counterIn(registry, {
      name: 'peerpods_reflector_relists_total',
      help: 'Lists after the initial one, by reason (gone, error)',
      labelNames: [...base, 'reason'],
    }),
    watches: counterIn(registry, {
      name: 'peerpods_reflector_watches_total',
      help: 'Watch requests accepted by the server',
      labelNames: base,
    }),
    watchRestarts: counterIn(registry, {
      name: 'peerpods_reflector_watch_restarts_total',
      help: 'Watches that ended and were reopened, by reason',
      labelNames: [...base, 'reason'],
    }),
    watchErrors: counterIn(registry, {
      name: 'peerpods_reflector_watch_errors_total',
      help: 'Watches that failed to open, broke, or sent an ERROR event',
      labelNames: base,
    }),
    watchEvents: counterIn(registry, {
      name: 'peerpods_reflector_watch_events_total',
      help: 'Watch events received, by type',
      labelNames: [...base, 'type'],
    }),
    malformed: counterIn(registry, {
      name: 'peerpods_reflector_malformed_events_total',
      help: 'Watch lines or objects skipped as malformed',
      labelNames: base,
    }),
    handlerErrors: counterIn(registry, {
      name: 'peerpods_informer_handler_errors_total',
      help: 'Exceptions thrown by event handlers or transforms',
      labelNames: base,
    }),
    objects: gaugeIn(registry, { name: 'peerpods_informer_objects', help: 'Objects in the store', labelNames: base }),
    synced: gaugeIn(registry, {
      name: 'peerpods_informer_synced',
      help: '1 once the initial list has been stored',
      labelNames: base,
    }),
    healthy: gaugeIn(registry, {
      name: 'peerpods_informer_healthy',
      help: '1 while listing and watching succeed, 0 while failing',
      labelNames: base,
    }),
  };
  cache.set(registry, m);
  return m;
}

import { randomUUID } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import type { CatalogEvent } from '../catalog/catalog-events.js';
import type { CatalogService } from '../catalog/catalog-service.js';
import { decodeWire, encodeWire } from './wire-codec.js';

type CatalogMessage = { from: string; event: CatalogEvent };

/**
 * Every node of a cluster hears the catalog changes the others make (ADR 0018): the catalog is PostgreSQL's,
 * but each node keeps the trading states of markets in memory, and the leader publishes catalog changes
 * on the realtime channels. A change made here is sent on `subject` (core NATS: a node down meanwhile
 * reads the catalog afresh when it starts); one heard from another node is emitted here as `elsewhere`
 * (`CatalogService.changedElsewhere`): caches are dropped and listeners told, while what the change sets in
 * motion (closing markets in the engine) stays with the node that made it. Resolves once subscribed.
 */
export async function shareCatalogChanges(o: {
  nc: NatsConnection;
  subject: string;
  catalog: CatalogService;
  onError?: (error: unknown) => void;
}): Promise<() => void> {
  const from = randomUUID();
  const subscription = o.nc.subscribe(o.subject, {
    callback: (error, msg) => {
      if (error) return;
      try {
        const message = decodeWire<CatalogMessage>(msg.data);
        if (message.from !== from) o.catalog.changedElsewhere(message.event);
      } catch (failure) {
        o.onError?.(failure);
      }
    },
  });
  const stopSending = o.catalog.onChange((event, origin) => {
    if (origin === 'here' && !o.nc.isClosed()) o.nc.publish(o.subject, encodeWire({ from, event }));
  });
  await o.nc.flush();
  return () => {
    stopSending();
    subscription.unsubscribe();
  };
}

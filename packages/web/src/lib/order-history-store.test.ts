import type { OrderRow, OrdersPage } from '@oddsbook/protocol';
import { describe, expect, it } from 'vitest';
import { endedOrders } from './order-history.js';
import { ENDED_ORDERS_READ, historyOf, loadEndedOrders, recordOrders } from './order-history-store.js';
import { H, orderRow as order } from './rows.test-support.js';

/** A client whose ended listing answers `pages` in turn (an Error fails the read) once `gate` opens. */
function fakeClient(pages: (OrderRow[] | Error)[], gate: Promise<void> = Promise.resolve()) {
  const queries: unknown[] = [];
  return {
    queries,
    listEndedOrders: async (query: unknown): Promise<OrdersPage> => {
      queries.push(query);
      const next = pages.shift() ?? [];
      await gate;
      if (next instanceof Error) throw next;
      return { orders: next, nextKey: null };
    },
  };
}

describe('the order history read from the exchange', () => {
  it('adds the ended orders this browser never saw and ends the ones it held open', async () => {
    const account = `0x${'a1'.repeat(20)}`;
    recordOrders(account, [order({ id: H(1) })]);
    const client = fakeClient([
      [
        order({
          id: H(2),
          status: 'INACTIVE',
          inactiveReason: 'USER_REQUESTED',
          updatedAt: '2026-01-01T00:00:09.000Z',
        }),
        order({
          id: H(1),
          status: 'INACTIVE',
          inactiveReason: 'FILLED',
          updatedAt: '2026-01-01T00:00:05.000Z',
        }),
      ],
    ]);
    await loadEndedOrders(account, client);
    expect(client.queries).toEqual([{ perPage: ENDED_ORDERS_READ, sortAsc: false }]);
    expect(endedOrders(historyOf(account)).map((o) => [o.id, o.inactiveReason])).toEqual([
      [H(2), 'USER_REQUESTED'],
      [H(1), 'FILLED'],
    ]);
  });

  it('keeps a row it holds newer than the listed one', async () => {
    const account = `0x${'b2'.repeat(20)}`;
    const newer = order({
      id: H(3),
      status: 'INACTIVE',
      inactiveReason: 'FILLED',
      fillAmount: '10000000',
      updatedAt: '2026-01-01T00:01:00.000Z',
    });
    recordOrders(account, [newer]);
    const older = { ...newer, inactiveReason: 'NO_LIQUIDITY', updatedAt: '2026-01-01T00:00:30.000Z' };
    await loadEndedOrders(account, fakeClient([[older]]));
    expect(historyOf(account)[H(3)]).toEqual(newer);
  });

  it('reads once for two asks at once, again once that read is over, and survives a failed read', async () => {
    const account = `0x${'c3'.repeat(20)}`;
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const client = fakeClient(
      [new Error('network'), [order({ id: H(4), status: 'INACTIVE', inactiveReason: 'EXPIRED' })]],
      gate,
    );
    const first = loadEndedOrders(account, client);
    const second = loadEndedOrders(account, client);
    expect(second).toBe(first);
    open();
    await first;
    expect(client.queries).toHaveLength(1);
    expect(endedOrders(historyOf(account))).toEqual([]);

    await loadEndedOrders(account, client);
    expect(client.queries).toHaveLength(2);
    expect(endedOrders(historyOf(account)).map((o) => o.inactiveReason)).toEqual(['EXPIRED']);
  });
});

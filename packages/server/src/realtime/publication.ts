import {
  accountOrdersChannel,
  accountTradesChannel,
  activeOrdersChannel,
  ceRefundsChannel,
  orderBookEventChannel,
} from '@oddsbook/protocol';
import { getAddress } from 'viem';

/** What a publisher hands the hub (`hub.publishMany`). */
export type Publication = {
  channel: string;
  data: unknown;
  /** The user of a per-user channel (`account:fills_v3`). */
  user?: string;
  /** Deterministic where the source has an identity (journal seq); otherwise the hub draws one. */
  messageId?: string;
  /** The state it replaces on a channel recovered in cache mode (a book: its market). */
  key?: string;
};

type AccountNames = { user: string; orders: string; trades: string; active: string; refunds: string };

const ACCOUNT_CACHE_LIMIT = 50_000;

/** Channel names of accounts, memoized: checksumming an address hashes it, and busy accounts repeat. */
export class AccountChannels {
  readonly #cache = new Map<string, AccountNames>();

  of(account: string): AccountNames {
    let names = this.#cache.get(account);
    if (names === undefined) {
      if (this.#cache.size >= ACCOUNT_CACHE_LIMIT) this.#cache.clear();
      const user = getAddress(account);
      names = {
        user,
        orders: accountOrdersChannel(user),
        trades: accountTradesChannel(user),
        active: activeOrdersChannel(user),
        refunds: ceRefundsChannel(user),
      };
      this.#cache.set(account, names);
    }
    return names;
  }
}

const EVENT_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The event's book channel, or undefined for an event id that cannot name a channel. */
export function eventBookChannel(eventId: string): string | undefined {
  return EVENT_ID.test(eventId) ? orderBookEventChannel(eventId) : undefined;
}

import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { unavailable } from '../errors/app-error.js';
import type { ApiKeyRecord } from '../store/repositories.js';
import { localRevocations, type RevocationBroadcast } from '../store/revocation-broadcast.js';
import type { Store } from '../store/store.js';

export const API_KEY_HEADER = 'x-svc-api-key';

const sha256 = (value: string): Buffer => createHash('sha256').update(value).digest();

/** Keys are bucketed by a short prefix of their hash, then compared whole in constant time. */
const BUCKET_CHARS = 8;

export type IssuedApiKey = { apiKey: string; record: ApiKeyRecord };

/**
 * Told of each key revoked, here or on another node sharing the store, after the revocation is stored
 * (e.g. to end the key's realtime sessions).
 */
export type RevocationListener = (revoked: { id: string }) => void;

/**
 * API keys: 32 random bytes shown once, stored only as sha-256. Active keys are held in memory so that
 * authenticating a request costs one hash and one constant-time comparison, no database read.
 */
export class ApiKeys {
  private readonly buckets = new Map<string, { hash: Buffer; record: ApiKeyRecord }[]>();
  /** Active keys by id. */
  private readonly active = new Map<string, ApiKeyRecord>();
  private readonly revocationListeners = new Set<RevocationListener>();

  private constructor(
    private readonly store: Store,
    private readonly broadcast: RevocationBroadcast,
  ) {}

  /** `broadcast`: how the other nodes sharing the store hear of a revocation (none: one process). */
  static async load(store: Store, broadcast: RevocationBroadcast = localRevocations): Promise<ApiKeys> {
    const keys = new ApiKeys(store, broadcast);
    for (const record of await store.apiKeys.listActive()) keys.index(record);
    return keys;
  }

  async create(address: `0x${string}`, options: { label?: string; now: number }): Promise<IssuedApiKey> {
    await this.store.accounts.ensure(address, options.now);
    const apiKey = randomBytes(32).toString('hex');
    const record: ApiKeyRecord = {
      id: randomUUID(),
      address,
      keyHash: sha256(apiKey).toString('hex'),
      label: options.label ?? null,
      createdAt: options.now,
      revokedAt: null,
    };
    await this.store.apiKeys.insert(record);
    this.index(record);
    // The other nodes authenticate it once they have heard; one that missed it catches up at its resync.
    await this.broadcast.publish({ kind: 'api-key-issued', id: record.id }).catch(() => {});
    return { apiKey, record };
  }

  /**
   * Revokes a key: it authenticates no request from now on, and every listener is told (whoever revokes:
   * the operator route, the account page), so what was granted with it ends too.
   */
  async revoke(id: string, now: number): Promise<ApiKeyRecord | null> {
    const record = await this.store.apiKeys.revoke(id, now);
    if (!record) return record;
    this.unindex(record);
    for (const listener of this.revocationListeners) listener(record);
    try {
      await this.broadcast.publish({ kind: 'api-key', id: record.id });
    } catch (error) {
      throw unavailable('the key is revoked, but not every node has heard yet: revoke it again', error);
    }
    return record;
  }

  /** A key another node revoked: it authenticates nothing here either, and the listeners are told. */
  revokedElsewhere(id: string): void {
    const record = this.active.get(id);
    if (record) this.unindex(record);
    for (const listener of this.revocationListeners) listener({ id });
  }

  /** A key another node issued: read from the store, it authenticates here too (unless revoked meanwhile). */
  async issuedElsewhere(id: string): Promise<void> {
    const record = await this.store.apiKeys.get(id);
    if (record && record.revokedAt === null && !this.active.has(id)) this.index(record);
  }

  /**
   * Catches up on what this node may have missed (its broadcast reconnected): reloads the active keys,
   * forgetting those revoked and learning those issued elsewhere.
   */
  async resync(): Promise<void> {
    const records = await this.store.apiKeys.listActive();
    const active = new Set(records.map((record) => record.id));
    for (const id of [...this.active.keys()]) if (!active.has(id)) this.revokedElsewhere(id);
    for (const record of records) if (!this.active.has(record.id)) this.index(record);
  }

  /** Calls `listener` for each key revoked from now on; returns the function that stops it. */
  onRevoke(listener: RevocationListener): () => void {
    this.revocationListeners.add(listener);
    return () => this.revocationListeners.delete(listener);
  }

  /** Whether the key `id` exists, is not revoked and belongs to `address`. */
  isActive(id: string, address: string): boolean {
    return this.active.get(id)?.address === address;
  }

  /** The account the key belongs to, or null for a missing, unknown or revoked key. */
  authenticate(apiKey: string | undefined): { address: `0x${string}`; keyId: string } | null {
    if (!apiKey || apiKey.length > 256) return null;
    const hash = sha256(apiKey);
    const bucket = this.buckets.get(hash.toString('hex', 0, BUCKET_CHARS / 2));
    if (!bucket) return null;
    for (const entry of bucket) {
      if (timingSafeEqual(entry.hash, hash)) return { address: entry.record.address, keyId: entry.record.id };
    }
    return null;
  }

  private index(record: ApiKeyRecord): void {
    const bucketKey = record.keyHash.slice(0, BUCKET_CHARS);
    const bucket = this.buckets.get(bucketKey) ?? [];
    bucket.push({ hash: Buffer.from(record.keyHash, 'hex'), record });
    this.buckets.set(bucketKey, bucket);
    this.active.set(record.id, record);
  }

  private unindex(record: ApiKeyRecord): void {
    const bucketKey = record.keyHash.slice(0, BUCKET_CHARS);
    const rest = (this.buckets.get(bucketKey) ?? []).filter((entry) => entry.record.id !== record.id);
    if (rest.length) this.buckets.set(bucketKey, rest);
    else this.buckets.delete(bucketKey);
    this.active.delete(record.id);
  }
}

/** Constant-time comparison of two secrets of any length. */
export function secretsEqual(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  return timingSafeEqual(sha256(given), sha256(expected));
}

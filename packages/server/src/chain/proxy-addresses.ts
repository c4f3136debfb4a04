import { predictSingleOwnerSafe, SAFE_DEPLOYMENTS, type SafeDeployment } from '@oddsbook/protocol';
import { address } from './chain-input.js';
import type { Address } from './chain-types.js';

/**
 * Each owner's proxy wallet address: its one-owner Safe's CREATE2 address, pure math on the Safe contracts
 * and `saltNonce` (the same on every node that has them: an API node needs no chain to know it). Cached.
 */
export class ProxyAddresses {
  readonly #deployment: SafeDeployment;
  readonly #saltNonce: bigint;
  readonly #cache = new Map<Address, Address>();

  /** Default: Safe v1.4.1 (SafeL2 singleton), saltNonce 0, as the embedded chain's. */
  constructor(o: { safeDeployment?: SafeDeployment; saltNonce?: bigint } = {}) {
    this.#deployment = o.safeDeployment ?? SAFE_DEPLOYMENTS['v1.4.1'];
    this.#saltNonce = o.saltNonce ?? 0n;
  }

  /** 400 INVALID_ADDRESS when `owner` is not an address. */
  of(owner: Address): Address {
    const eoa = address(owner, 'owner');
    let safe = this.#cache.get(eoa);
    if (!safe) {
      safe = predictSingleOwnerSafe({ owner: eoa, saltNonce: this.#saltNonce, deployment: this.#deployment });
      this.#cache.set(eoa, safe);
    }
    return safe;
  }
}

import type { Chain } from '../chain/chain.js';
import type { ProxyWallets } from '../orders/order-service.js';

/** Each account's capital sits in its proxy wallet: a Safe whose address is known before deployment. */
export class Wallets implements ProxyWallets {
  private readonly proxies = new Map<string, `0x${string}`>();
  /** Accounts whose proxy the chain reported deployed: a deployed Safe stays deployed. */
  private readonly deployed = new Set<string>();

  constructor(readonly chain: Chain) {}

  /** The account's proxy address (CREATE2-derived, cached: it never changes). */
  proxyAddress(account: `0x${string}`): `0x${string}` {
    let proxy = this.proxies.get(account);
    if (!proxy) {
      proxy = this.chain.proxyAddressFor(account);
      this.proxies.set(account, proxy);
    }
    return proxy;
  }

  /**
   * Whether the account's proxy is deployed. Once the chain has said yes, the answer is synchronous (the
   * order path asks on every request); until then it is the chain's.
   */
  isDeployed(account: `0x${string}`): boolean | Promise<boolean> {
    if (this.deployed.has(account)) return true;
    return this.chain.getProxy(account).then((proxy) => {
      if (proxy.deployed) this.deployed.add(account);
      return proxy.deployed;
    });
  }
}

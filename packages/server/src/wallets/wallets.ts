import type { Chain } from '../chain/chain.js';
import type { ProxyWallets } from '../orders/order-service.js';

/** Each account's capital sits in its proxy wallet: a Safe whose address is known before deployment. */
export class Wallets implements ProxyWallets {
  private readonly proxies = new Map<string, `0x${string}`>();

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

  async isDeployed(account: `0x${string}`): Promise<boolean> {
    return (await this.chain.getProxy(account)).deployed;
  }
}

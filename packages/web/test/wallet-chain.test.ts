import type { Browser } from 'playwright-core';
import { generatePrivateKey } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainName } from '../src/lib/wallet.js';
import {
  buildWeb,
  chromiumAvailable,
  launchChromium,
  type RunningExchange,
  startExchange,
} from './browser-harness.js';
import { WAIT } from './browser-steps.js';
import { type ChainWalletChoices, chainWalletContext } from './chain-wallet.js';

const available = chromiumAvailable();
const ETHEREUM_MAINNET = 1;

/*
 * Issue 41 point 6: a wallet on another chain is put on the exchange's chain before it signs in, by
 * wallet_switchEthereumChain, or wallet_addEthereumChain with the exchange's own JSON-RPC (`POST /rpc`)
 * when the wallet does not know the chain; a refusal is a plain sentence on the page and no sign-in.
 */
describe.skipIf(!available)("wallets on the exchange's chain, in Chromium", () => {
  let exchange: RunningExchange;
  let browser: Browser;
  /** The exchange's chain id, as GET /metadata/obv3 gives it. */
  let chainId: number;
  let hexId: string;
  beforeAll(async () => {
    buildWeb();
    exchange = await startExchange();
    browser = await launchChromium();
    const metadata = await (await fetch(`${exchange.url}/metadata/obv3`)).json();
    chainId = metadata.data.chainId;
    expect(Number.isSafeInteger(chainId) && chainId !== ETHEREUM_MAINNET).toBe(true);
    hexId = `0x${chainId.toString(16)}`;
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await exchange?.stop();
  });

  /** Opens the account page with a wallet on `startChainId` and presses sign-in. */
  async function signInWith(startChainId: number, choices: ChainWalletChoices) {
    const wallet = await chainWalletContext(browser, generatePrivateKey(), startChainId, choices);
    await wallet.page.goto(`${exchange.url}/#/account`);
    await wallet.page.getByRole('button', { name: 'Connect wallet and sign in' }).click();
    return wallet;
  }

  const methods = (calls: { method: string }[]) => calls.map((call) => call.method);

  it('signs in without asking to switch when the wallet is on the chain already', async () => {
    const wallet = await signInWith(chainId, { knownChains: [], acceptSwitch: false, acceptAdd: false });
    try {
      await expect
        .poll(() => wallet.page.getByTestId('session-address').textContent(), WAIT)
        .toBe(wallet.address);
      expect(methods(wallet.calls)).not.toContain('wallet_switchEthereumChain');
      expect(methods(wallet.calls)).not.toContain('wallet_addEthereumChain');
      expect(wallet.cspViolations).toEqual([]);
    } finally {
      await wallet.context.close();
    }
  });

  it('(a) asks a wallet on chain 1 that knows the chain to switch, then signs in', async () => {
    const wallet = await signInWith(ETHEREUM_MAINNET, {
      knownChains: [chainId],
      acceptSwitch: true,
      acceptAdd: false,
    });
    try {
      await expect
        .poll(() => wallet.page.getByTestId('session-address').textContent(), WAIT)
        .toBe(wallet.address);
      const switches = wallet.calls.filter((call) => call.method === 'wallet_switchEthereumChain');
      expect(switches.map((call) => call.params)).toEqual([[{ chainId: hexId }]]);
      expect(methods(wallet.calls)).not.toContain('wallet_addEthereumChain');
      // The switch came before the signature: the wallet signed on the exchange's chain.
      const order = methods(wallet.calls);
      expect(order.indexOf('wallet_switchEthereumChain')).toBeLessThan(order.indexOf('personal_sign'));
      expect(wallet.chainId()).toBe(chainId);
      expect(wallet.cspViolations).toEqual([]);
    } finally {
      await wallet.context.close();
    }
  });

  it("(b) asks a wallet that does not know the chain to add it, with the exchange's own RPC, then signs in", async () => {
    const wallet = await signInWith(ETHEREUM_MAINNET, {
      knownChains: [],
      acceptSwitch: true,
      acceptAdd: true,
    });
    try {
      await expect
        .poll(() => wallet.page.getByTestId('session-address').textContent(), WAIT)
        .toBe(wallet.address);
      const adds = wallet.calls.filter((call) => call.method === 'wallet_addEthereumChain');
      expect(adds).toHaveLength(1);
      const [added] = adds[0]!.params as [
        { chainId: string; chainName: string; nativeCurrency: unknown; rpcUrls: string[] },
      ];
      expect(added).toEqual({
        chainId: hexId,
        chainName: expect.stringMatching(/^oddsbook/),
        nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
        rpcUrls: [`${exchange.url}/rpc`],
      });
      // The wallet asked to switch first (and was told 4902), then added the chain, which switched it.
      expect(methods(wallet.calls).filter((m) => m.startsWith('wallet_'))).toEqual([
        'wallet_switchEthereumChain',
        'wallet_addEthereumChain',
      ]);
      expect(wallet.chainId()).toBe(chainId);
      // The RPC URL the wallet was given answers for the same chain.
      const rpc = await fetch(added.rpcUrls[0]!, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'eth_chainId', params: [] }),
      });
      expect(rpc.status).toBe(200);
      expect(await rpc.json()).toEqual({ jsonrpc: '2.0', id: 7, result: hexId });
      expect(wallet.cspViolations).toEqual([]);
    } finally {
      await wallet.context.close();
    }
  });

  it('(c) says in a plain sentence that the wallet must switch when the person refuses, and does not sign in', async () => {
    const wallet = await signInWith(ETHEREUM_MAINNET, {
      knownChains: [chainId],
      acceptSwitch: false,
      acceptAdd: false,
    });
    try {
      const alert = wallet.page.getByRole('alert');
      await expect.poll(() => alert.textContent(), WAIT).toContain('Your wallet is on another network.');
      const text = (await alert.textContent()) ?? '';
      expect(text).toBe(
        `Your wallet is on another network. Sign-in needs ${chainName(chainId)} (chain id ${chainId}): accept the switch in your wallet, or switch to it there, and try again.`,
      );
      expect(text).not.toMatch(/User rejected|4001|Details:|Version: viem/);
      // Refused, not unknown: the page does not go on to add the chain, nor ask for a signature.
      expect(methods(wallet.calls).filter((m) => m.startsWith('wallet_'))).toEqual([
        'wallet_switchEthereumChain',
      ]);
      expect(methods(wallet.calls)).not.toContain('personal_sign');
      expect(await wallet.page.getByTestId('session-address').count()).toBe(0);
      expect(await wallet.page.getByTestId('who').textContent()).toBe('Not signed in');
      expect(wallet.chainId()).toBe(ETHEREUM_MAINNET);
      // The person can still sign in afterwards (the button is back).
      expect(await wallet.page.getByRole('button', { name: 'Connect wallet and sign in' }).isEnabled()).toBe(
        true,
      );
    } finally {
      await wallet.context.close();
    }
  });

  it('says the same plain sentence when the person refuses to add the chain, and does not sign in', async () => {
    const wallet = await signInWith(ETHEREUM_MAINNET, {
      knownChains: [],
      acceptSwitch: true,
      acceptAdd: false,
    });
    try {
      await expect
        .poll(() => wallet.page.getByRole('alert').textContent(), WAIT)
        .toMatch(/^Your wallet is on another network\. Sign-in needs .+ \(chain id \d+\): accept the switch/);
      expect(await wallet.page.getByRole('alert').textContent()).not.toMatch(/User rejected|4001|4902/);
      expect(methods(wallet.calls).filter((m) => m.startsWith('wallet_'))).toEqual([
        'wallet_switchEthereumChain',
        'wallet_addEthereumChain',
      ]);
      expect(methods(wallet.calls)).not.toContain('personal_sign');
      expect(await wallet.page.getByTestId('who').textContent()).toBe('Not signed in');
    } finally {
      await wallet.context.close();
    }
  });
});

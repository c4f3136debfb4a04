import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { cspViolations } from './browser-harness.js';

/** What the simulated person does when the wallet asks to switch or add a network. */
export type ChainWalletChoices = {
  /** Chain ids the wallet already knows (its starting chain always is). */
  knownChains: number[];
  /** Whether the person accepts a switch to a known chain; refusing answers EIP-1193 error 4001. */
  acceptSwitch: boolean;
  /** Whether the person accepts adding a chain (the wallet then switches to it, as MetaMask does). */
  acceptAdd: boolean;
};

/** A wallet request the page made, with its parameters. */
export type WalletCall = { method: string; params: unknown[] };

/** The wallet's answer over the binding: a result, or an EIP-1193 error (code and message kept). */
type Answer = { result: unknown } | { error: { code: number; message: string } };

declare global {
  interface Window {
    __chainWalletRequest(method: string, params: unknown): Promise<Answer>;
  }
}

/**
 * A browser context whose page has an EIP-1193 wallet at `window.ethereum` that starts on `startChainId` and
 * changes chain as EIP-3326 (wallet_switchEthereumChain) and EIP-3085 (wallet_addEthereumChain) say; its
 * refusals reach the page as errors with their `code`, as a real wallet's do. It signs with a viem local account.
 */
export async function chainWalletContext(
  browser: Browser,
  privateKey: Hex,
  startChainId: number,
  choices: ChainWalletChoices,
): Promise<{
  context: BrowserContext;
  page: Page;
  address: `0x${string}`;
  calls: WalletCall[];
  chainId(): number;
  cspViolations: string[];
}> {
  const account = privateKeyToAccount(privateKey);
  const calls: WalletCall[] = [];
  const known = new Set([startChainId, ...choices.knownChains]);
  let chainId = startChainId;
  const fail = (code: number, message: string): Answer => ({ error: { code, message } });
  const answer = async (method: string, params: unknown[]): Promise<Answer> => {
    switch (method) {
      case 'eth_requestAccounts':
      case 'eth_accounts':
        return { result: [account.address] };
      case 'eth_chainId':
        return { result: `0x${chainId.toString(16)}` };
      case 'wallet_switchEthereumChain': {
        const wanted = Number((params[0] as { chainId: string }).chainId);
        if (!known.has(wanted)) return fail(4902, `Unrecognized chain ID "${wanted}".`);
        if (!choices.acceptSwitch) return fail(4001, 'User rejected the request.');
        chainId = wanted;
        return { result: null };
      }
      case 'wallet_addEthereumChain': {
        if (!choices.acceptAdd) return fail(4001, 'User rejected the request.');
        const wanted = Number((params[0] as { chainId: string }).chainId);
        known.add(wanted);
        chainId = wanted;
        return { result: null };
      }
      case 'personal_sign':
        return { result: await account.signMessage({ message: { raw: params[0] as Hex } }) };
      case 'eth_signTypedData_v4':
        return { result: await account.signTypedData(JSON.parse(params[1] as string)) };
      default:
        return fail(4200, `wallet: ${method} is not supported`);
    }
  };
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.exposeBinding('__chainWalletRequest', (_source, method: string, params: unknown[]) => {
    calls.push({ method, params });
    return answer(method, params);
  });
  await context.addInitScript(() => {
    window.ethereum = {
      request: async ({ method, params }: { method: string; params?: unknown }) => {
        const answer = await window.__chainWalletRequest(method, params ?? []);
        if ('result' in answer) return answer.result;
        // An EIP-1193 provider error: an Error with the code (a binding's thrown error would lose it).
        throw Object.assign(new Error(answer.error.message), { code: answer.error.code });
      },
    };
  });
  const page = await context.newPage();
  return {
    context,
    page,
    address: account.address,
    calls,
    chainId: () => chainId,
    cspViolations: cspViolations(page),
  };
}

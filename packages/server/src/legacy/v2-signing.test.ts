import { encodePacked, keccak256, recoverMessageAddress, recoverTypedDataAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import {
  legacyAddresses,
  recoverV2CancelSigner,
  recoverV2FillSigner,
  recoverV2OrderSigner,
  V2_SIGNED_EXPIRY,
  v2CancelTypedData,
  v2FillHash,
  v2FillTypedData,
  v2OrderHash,
} from './v2-signing.js';

const account = privateKeyToAccount(`0x${'5'.repeat(64)}`);
const other = privateKeyToAccount(`0x${'6'.repeat(64)}`);
const { executorAddress, fillHasher } = legacyAddresses('0xa70B8BddF7B752f3756BecCB7710584d47597fC3');
const marketHash = `0x${'ab'.repeat(32)}` as const;
const baseToken = '0xd1f05A1F2d3F5ef80e000ABD9c6Da3a9495Da054' as const;

describe('v2 maker orders: personal_sign over the packed nine-field hash', () => {
  it('matches a published v2 order: its orderHash and the maker its signature recovers to', () => {
    // The example order of the v2 API documentation ("Get active orders"), signed when expiry was still real.
    const order = {
      marketHash: '0x0eeace4a9bbf6235bc59695258a419ed3a05a2c8e3b6a58fb71a0d9e6b031c2b',
      baseToken: '0x8f3Cf7ad23Cd3CaDbD9735AFf958023239c6A063',
      totalBetSize: '10000000000000000000',
      percentageOdds: '70455284072443640000',
      expiry: 1631233201,
      salt: '69415402816762328320330277846098411244657139277332120954321492419616371539163',
      maker: '0x63a4491dC73245E181c47BAe0ae9d6627E56dE55',
      executor: '0x3E91041b9e60C7275f8296b8B0a97141e6442d49',
      isMakerBettingOutcomeOne: true,
    } as const;
    const hash = v2OrderHash(order);
    expect(hash).toBe('0xb46e5fff6498f061e93c4f5ed501ee72d924180d6aa78cdfd4d188d3383c91d4');
    const signature =
      '0x2aaea5b7c86166c0fbf2745c66aff794a23d21ac71ee143d08706700adbb59aa4c9b862286cf736acae5a74b10847ced73b628f4396eaab0af13b0c637fe4d021b';
    expect(recoverV2OrderSigner(hash, signature)).toEqual({ ok: true, signer: order.maker });
  });

  it('agrees with viem: the packed hash, and a signMessage({raw}) signature recovers to its signer', async () => {
    const order = {
      marketHash,
      baseToken,
      totalBetSize: '25000000',
      percentageOdds: '52500000000000000000',
      expiry: V2_SIGNED_EXPIRY,
      salt: '123456789012345678901234567890',
      maker: account.address,
      executor: executorAddress,
      isMakerBettingOutcomeOne: false,
    } as const;
    const hash = v2OrderHash(order);
    expect(hash).toBe(
      keccak256(
        encodePacked(
          ['bytes32', 'address', 'uint256', 'uint256', 'uint256', 'uint256', 'address', 'address', 'bool'],
          [
            marketHash,
            baseToken,
            25000000n,
            52500000000000000000n,
            2209006800n,
            123456789012345678901234567890n,
            account.address,
            executorAddress,
            false,
          ],
        ),
      ),
    );
    const signature = await account.signMessage({ message: { raw: hash } });
    expect(await recoverMessageAddress({ message: { raw: hash }, signature })).toBe(account.address);
    expect(recoverV2OrderSigner(hash, signature)).toEqual({ ok: true, signer: account.address });
    // Another field, another hash: the signature no longer recovers to the maker.
    const changed = v2OrderHash({ ...order, totalBetSize: '25000001' });
    expect(recoverV2OrderSigner(changed, signature)).not.toEqual({ ok: true, signer: account.address });
    expect(recoverV2OrderSigner(hash, '0x1234')).toEqual({ ok: false });
  });
});

describe('v2 fills: EIP-712 Details/FillObject', () => {
  const fill = {
    marketHash,
    baseToken,
    stakeWei: '10000000',
    desiredOdds: '48000000000000000000',
    oddsSlippage: 2,
    isTakerBettingOutcomeOne: true,
    fillSalt: '987654321',
  };
  const domain = { chainId: 4162, fillHasher };

  it('recovers the taker of viem’s signTypedData, with the market signed as its hash or as N/A', async () => {
    for (const market of [marketHash, 'N/A']) {
      const typed = v2FillTypedData({ ...fill, market }, domain);
      const signature = await account.signTypedData(typed);
      expect(await recoverTypedDataAddress({ ...typed, signature })).toBe(account.address);
      const result = recoverV2FillSigner(fill, domain, account.address, signature);
      expect(result).toEqual({ ok: true, fillHash: v2FillHash({ ...fill, market }, domain) });
      expect(recoverV2FillSigner(fill, domain, other.address, signature).ok).toBe(false);
      // The domain binds the chain: a signature for another chain does not recover to the taker here.
      expect(recoverV2FillSigner(fill, { ...domain, chainId: 79479957 }, account.address, signature).ok).toBe(
        false,
      );
    }
  });
});

describe('v2 cancels: EIP-712 with the salt in the domain', () => {
  const salt = `0x${'12'.repeat(32)}` as const;
  const cancels = [
    {
      kind: 'orders',
      orderHashes: [`0x${'01'.repeat(32)}`, `0x${'02'.repeat(32)}`],
      timestamp: 1_700_000_000,
    },
    { kind: 'event', sportXeventId: 'L1234', timestamp: 1_700_000_000 },
    { kind: 'all', timestamp: 1_700_000_000 },
  ] as const;

  it.each(cancels)(
    '$kind: recovers the maker of viem’s signTypedData, and nobody else under another salt',
    async (cancel) => {
      const typed = v2CancelTypedData(cancel, { chainId: 4162, salt });
      const signature = await account.signTypedData(typed as Parameters<typeof account.signTypedData>[0]);
      expect(recoverV2CancelSigner(cancel, { chainId: 4162, salt }, signature)).toEqual({
        ok: true,
        signer: account.address,
      });
      const otherSalt = recoverV2CancelSigner(
        cancel,
        { chainId: 4162, salt: `0x${'13'.repeat(32)}` },
        signature,
      );
      expect(otherSalt).not.toEqual({ ok: true, signer: account.address });
    },
  );
});

import { BalanceRow, Envelope } from '@oddsbook/protocol';
import { Type } from 'typebox';
import type { Exchange } from '../../exchange/exchange.js';
import { errorResponses } from '../error-responses.js';
import type { ExchangeApp } from '../exchange-app.js';

/**
 * `GET /user/balance-v3`: the account's capital as the matching engine counts it. `availableAmount` can
 * be matched; `escrowedAmount` is locked in matched, unsettled bets. Both live in the proxy wallet and
 * the escrow on the chain. `exposureAmount` is the part of `availableAmount` the account's resting orders
 * promise (honest liquidity: never more than it).
 */
export async function balanceRoutes(app: ExchangeApp, exchange: Exchange): Promise<void> {
  app.get(
    '/user/balance-v3',
    {
      schema: {
        summary: 'Balances of the account’s proxy wallet',
        description:
          'Available and escrowed amounts in base units, the exposure (what the resting orders promise of the ' +
          'available amount) and what the account owes (after a failed settlement: see docs/wallets.md).',
        tags: ['wallets'],
        security: [{ apiKey: [] }],
        response: {
          200: Envelope(Type.Object({ balances: Type.Array(BalanceRow) })),
          ...errorResponses(401, 429),
        },
      },
    },
    async (request) => {
      const { available, escrowed, exposure, owed } = exchange.trading.sequencer.money(request.account);
      return {
        status: 'success' as const,
        data: {
          balances: [
            {
              userAddress: request.account,
              wallet: exchange.wallets.proxyAddress(request.account),
              tokenAddress: exchange.config.baseToken,
              escrowAddress: exchange.config.verifyingContract,
              availableAmount: available.toString(),
              escrowedAmount: escrowed.toString(),
              exposureAmount: exposure.toString(),
              owedAmount: owed.toString(),
            },
          ],
        },
      };
    },
  );
}

import { Envelope } from '@oddsbook/protocol';
import { Type } from 'typebox';
import { type ChainFaults, supportsFaults } from '../../chain/chain.js';
import { SETTLEMENT_FAULT_CLASSES } from '../../chain/settlement-types.js';
import { badRequest, conflict, unavailable } from '../../errors/app-error.js';
import type { Exchange } from '../../exchange/exchange.js';
import { reconcileReportToWire } from '../../settlement/reconcile.js';
import { success } from '../envelope.js';
import { errorResponses } from '../error-responses.js';
import type { ExchangeApp } from '../exchange-app.js';

const tags = ['admin'];
const security = [{ adminToken: [] }];
const Units = Type.String({
  pattern: '^-?[0-9]+$',
  description: 'base units (negative: the chain holds less)',
});

const Difference = Type.Object(
  {
    kind: Type.Union([Type.Literal('wallet'), Type.Literal('pool'), Type.Literal('unknownWallet')]),
    account: Type.Optional(Type.String()),
    wallet: Type.Optional(Type.String()),
    engine: Type.Optional(Units),
    chain: Units,
    pending: Type.Optional(Units),
    difference: Units,
    items: Type.Optional(Type.Array(Type.String(), { description: 'pending items touching the wallet' })),
  },
  {
    description: 'chain + pending - engine, per wallet, for the escrow pool, or for a wallet no account has',
  },
);

const Report = Type.Object({
  at: Type.String({ format: 'date-time' }),
  accounts: Type.Integer(),
  differences: Type.Array(Difference),
  totals: Type.Object({ engine: Units, chain: Units }),
  differenceUnits: Units,
});

const FaultState = Type.Object({
  failNextDeployment: Type.Boolean(),
  failSettlementItems: Type.Object({
    escrow: Type.Integer(),
    release: Type.Integer(),
    payout: Type.Integer(),
    deposit: Type.Integer(),
  }),
  blocksPaused: Type.Boolean(),
  dropNextBlockAnnouncement: Type.Boolean(),
});

const Count = Type.Integer({ minimum: 0, maximum: 10_000 });

/**
 * Operator routes of the chain side (issue 33): reconciliation of the engine with the chain, and fault
 * injection for tests and drills (docs/operations.md, "Settlement and reconciliation").
 */
export async function adminChainRoutes(app: ExchangeApp, exchange: Exchange): Promise<void> {
  const faultsOf = (): ChainFaults => {
    const chain = exchange.chain;
    if (!supportsFaults(chain)) throw conflict('FAULTS_UNSUPPORTED', 'this chain has no fault injection');
    return chain;
  };

  app.get(
    '/admin/reconcile',
    {
      schema: {
        summary: 'Compare every account’s money in the engine with the chain, to the base unit',
        description:
          'Runs a reconciliation now: each account’s available balance against its proxy wallet, the escrowed ' +
          'amounts (less what accounts owe) against the escrow pool, both with the settlement items not on the ' +
          'chain yet. An empty `differences` means the chain holds exactly what the engine says. 503 when the ' +
          'chain gave no moment to compare exactly (blocks stalled with a transaction mined but not journaled).',
        security,
        tags,
        response: { 200: Envelope(Report), ...errorResponses(401, 429, 503) },
      },
    },
    async () => {
      const report = await exchange.reconciliation.run();
      if (report === null) throw unavailable('the chain is between a block and its receipt; retry shortly');
      const at = exchange.reconciliation.last!.at;
      return success({ at: new Date(at).toISOString(), ...reconcileReportToWire(report) });
    },
  );

  app.get(
    '/admin/faults',
    {
      schema: {
        summary: 'The chain faults armed now',
        security,
        tags,
        response: { 200: Envelope(FaultState), ...errorResponses(401, 409, 429) },
      },
    },
    async () => success(await faultsOf().faults()),
  );

  app.post(
    '/admin/faults',
    {
      schema: {
        summary: 'Inject chain faults (testing and drills)',
        description:
          '`deployProxy: "fail-next"`: the next proxy deployment fails. `failNext`: the next N settlement items ' +
          'of a class fail (`escrow`: fills, reversed by the engine; `release`: adjustments, `payout`, ' +
          '`deposit`: submitted again until they land). `blocks`: `pause` stalls block production, `resume` ' +
          'restarts it. `dropNextReceipt`: the next block’s receipts are not announced (the exchange reads them ' +
          'back as soon as its own transaction’s receipt is there). Answers the faults armed. 409 on a chain without ' +
          'fault injection.',
        security,
        tags,
        body: Type.Object(
          {
            deployProxy: Type.Optional(Type.Literal('fail-next')),
            failNext: Type.Optional(
              Type.Object(
                {
                  escrow: Type.Optional(Count),
                  release: Type.Optional(Count),
                  payout: Type.Optional(Count),
                  deposit: Type.Optional(Count),
                },
                { additionalProperties: false },
              ),
            ),
            blocks: Type.Optional(Type.Union([Type.Literal('pause'), Type.Literal('resume')])),
            dropNextReceipt: Type.Optional(Type.Literal(true)),
          },
          { additionalProperties: false },
        ),
        response: { 200: Envelope(FaultState), ...errorResponses(400, 401, 409, 429) },
      },
    },
    async (request) => {
      const body = request.body;
      if (Object.keys(body).length === 0) throw badRequest('NO_FAULT', 'name at least one fault to inject');
      const chain = faultsOf();
      if (body.deployProxy) await chain.failNextDeployment();
      for (const faultClass of SETTLEMENT_FAULT_CLASSES) {
        const count = body.failNext?.[faultClass];
        if (count !== undefined) await chain.failNextSettlementItems(faultClass, count);
      }
      if (body.blocks === 'pause') await chain.pauseBlocks();
      if (body.blocks === 'resume') await chain.resumeBlocks();
      if (body.dropNextReceipt) await chain.dropNextBlockAnnouncement();
      request.log.warn({ faults: body }, 'chain faults injected');
      return success(await chain.faults());
    },
  );
}

import { type Static, Type } from 'typebox';
import { Address, UintString } from './common.js';

export const Eip712Domain = Type.Object({
  name: Type.String(),
  version: Type.Literal('1'),
  chainId: Type.Integer(),
  verifyingContract: Address,
});

export const Metadata = Type.Object({
  chainId: Type.Integer(),
  domain: Eip712Domain,
  activeAsset: Type.Object({
    symbol: Type.String(),
    baseToken: Address,
    escrowAddress: Address,
    decimals: Type.Integer(),
  }),
  oddsLadderStepSize: Type.Integer({ description: 'in units of 0.001 %: 125 = 0.125 %' }),
  bettingDelay: Type.Object({
    pregameMsDefault: Type.Integer(),
    liveMsDefault: Type.Integer(),
    leagueIdToMs: Type.Record(Type.String(), Type.Integer()),
    sportIdToMs: Type.Record(Type.String(), Type.Integer()),
    /**
     * The in-play delays of the active markets that have one of their own: it wins over the league's and
     * the sport's. A market's live delay is marketHashToMs, else leagueIdToMs, else sportIdToMs, else
     * liveMsDefault; pregame it is pregameMsDefault.
     */
    marketHashToMs: Type.Record(Type.String(), Type.Integer()),
  }),
  limits: Type.Object({
    orderSizeMinimumBaseUnits: UintString,
    maxCreateOrders: Type.Integer(),
    maxCancelOrders: Type.Integer(),
  }),
  /**
   * The address of the demo market maker this server runs on its demo data (a bot quoting every market with
   * faucet money); null when it runs none.
   */
  demoMarketMaker: Type.Optional(Type.Union([Address, Type.Null()])),
});
export type Metadata = Static<typeof Metadata>;

/** The exchange's published limits (`GET /metadata/obv3` `limits`) and the spec's fixed bounds. */
export const EXCHANGE_LIMITS = {
  /** Default minimum stake, 1 USDC; a market may set its own. */
  orderSizeMinimumBaseUnits: 1_000_000n,
  maxCreateOrders: 10,
  maxCancelOrders: 100,
  searchResults: 8,
  findMarketHashes: 30,
} as const;

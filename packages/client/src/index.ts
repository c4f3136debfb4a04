export {
  type AccountApiKey,
  createExchangeClient,
  type ExchangeClient,
  type ExchangeClientOptions,
  type PreparedSafeTx,
  type SafeTxProgress,
} from './client.js';
export { ExchangeApiError } from './errors.js';
export { type OrderParameters, type SignedOrder, signOrder, type TimeInForce } from './sign-order.js';

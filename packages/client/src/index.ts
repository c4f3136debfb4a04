export { createExchangeClient, type ExchangeClient, type ExchangeClientOptions } from './client.js';
export { ExchangeApiError } from './errors.js';
export { type OrderParameters, type SignedOrder, signOrder, type TimeInForce } from './sign-order.js';

import { type AccountApiKey, ExchangeApiError } from '@oddsbook/client';
import { useState } from 'preact/hooks';
import { FillsTable, OpenOrders, OrderHistoryTable, TradesTable } from '../components/account-tables.js';
import { MultisigCard } from '../components/multisig-card.js';
import { ParlayBets } from '../components/parlay-bets.js';
import { MoneyFigures, PositionsCard, RefundsCard } from '../components/positions-card.js';
import { ErrorLine, Section } from '../components/section.js';
import { useAccountData } from '../lib/account-data.js';
import { plainError } from '../lib/errors.js';
import { useAuth, usePolled } from '../lib/hooks.js';
import { useRealtime } from '../lib/realtime.js';
import {
  authState,
  createPageKey,
  sessionClient,
  setAuth,
  signIn,
  signOut,
  tradingClient,
} from '../lib/session.js';
import { injectedProvider } from '../lib/wallet.js';

/**
 * The account page: wallet and sign-in, API keys, proxy wallet, money (balances, positions, refunds), bets,
 * orders and their history, fills, multisig, heartbeat.
 */
export function AccountPage() {
  const auth = useAuth();
  const signedIn = Boolean(auth.sessionToken);
  return (
    <div class="page account">
      <SignInCard />
      {signedIn && <ApiKeysCard />}
      {auth.apiKey ? (
        <>
          <ProxyCard />
          <MoneyCards />
          <MultisigCard />
          <HeartbeatCard />
        </>
      ) : (
        signedIn && (
          <p class="hint" data-testid="need-key">
            Create an API key above: this page keeps it for this tab and uses it for your wallet, balances and
            bets.
          </p>
        )
      )}
    </div>
  );
}

function SignInCard() {
  const auth = useAuth();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const provider = injectedProvider();
  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Section title="Wallet" testId="wallet-card">
      {!provider && (
        <p class="error">No wallet found in this browser (an EIP-1193 wallet such as MetaMask).</p>
      )}
      {auth.sessionToken ? (
        <>
          <p>
            Signed in as <code data-testid="session-address">{auth.address}</code>
          </p>
          <p class="muted">Session ends {new Date(auth.sessionExpiresAt ?? 0).toLocaleString()}.</p>
          <button type="button" disabled={busy} onClick={() => run(signOut)}>
            Sign out
          </button>
        </>
      ) : (
        <>
          <p class="muted">
            Sign in with your wallet: it signs a one-time message for this site (Sign-In with Ethereum); no
            transaction, no fee.
          </p>
          <button
            type="button"
            class="primary"
            disabled={busy || !provider}
            onClick={() => run(() => signIn(provider!))}
          >
            Connect wallet and sign in
          </button>
        </>
      )}
      <ErrorLine error={error} text={plainError} />
    </Section>
  );
}

function ApiKeysCard() {
  const auth = useAuth();
  const keys = usePolled(() => sessionClient().listApiKeys(), 0, [auth.sessionToken]);
  const [label, setLabel] = useState('browser');
  const [shown, setShown] = useState<string>();
  const [error, setError] = useState<unknown>();
  const create = async () => {
    setError(undefined);
    try {
      const created = await createPageKey(label);
      setShown(created.apiKey);
      keys.reload();
    } catch (e) {
      setError(e);
    }
  };
  const revoke = async (key: AccountApiKey) => {
    setError(undefined);
    try {
      await sessionClient().revokeApiKey(key.keyId);
      if (authState().apiKeyId === key.keyId) {
        const { apiKey: _k, apiKeyId: _i, ...rest } = authState();
        setAuth(rest);
      }
      keys.reload();
    } catch (e) {
      setError(e);
    }
  };
  const active = keys.value?.keys.filter((k) => k.revokedAt === null) ?? [];
  return (
    <Section title="API keys" testId="keys-card">
      <p class="muted">
        A key lets a program (or this page) trade for your account. It is shown once. An account holds at most{' '}
        {keys.value?.maxActiveKeys ?? 10} active keys.
      </p>
      <div class="row">
        <input
          aria-label="Key label"
          value={label}
          maxLength={100}
          onInput={(e) => setLabel((e.target as HTMLInputElement).value)}
        />
        <button type="button" class="primary" onClick={create}>
          Create API key
        </button>
      </div>
      {shown && (
        <div class="shown-once" data-testid="new-key">
          <strong>Your new key (shown once):</strong> <code>{shown}</code>
        </div>
      )}
      <ErrorLine error={error ?? keys.error} text={plainError} />
      <table>
        <thead>
          <tr>
            <th>Label</th>
            <th>Created</th>
            <th>State</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {active.map((k) => (
            <tr key={k.keyId} data-testid="key-row">
              <td>
                {k.label ?? '-'} {auth.apiKeyId === k.keyId && <span class="tag">this page</span>}
              </td>
              <td>{new Date(k.createdAt).toLocaleString()}</td>
              <td>active</td>
              <td>
                <button type="button" onClick={() => revoke(k)}>
                  Revoke
                </button>
              </td>
            </tr>
          ))}
          {keys.value && active.length === 0 && (
            <tr>
              <td colSpan={4} class="muted">
                No active keys.
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </Section>
  );
}

function ProxyCard() {
  const auth = useAuth();
  const proxy = usePolled(() => tradingClient().getProxy(), 1000, [auth.apiKey]);
  const [error, setError] = useState<unknown>();
  const deploy = async () => {
    setError(undefined);
    try {
      await tradingClient().deployProxy();
      proxy.reload();
    } catch (e) {
      setError(e);
    }
  };
  const p = proxy.value;
  return (
    <Section title="Proxy wallet" testId="proxy-card">
      <p class="muted">Your funds sit in a wallet (a Safe) that your address owns.</p>
      {p && (
        <>
          <p>
            Address <code>{p.proxy}</code>
          </p>
          <p>
            State:{' '}
            <span class={`state state-${p.state}`} data-testid="proxy-state">
              {PROXY_STATES[p.state] ?? p.state}
            </span>
          </p>
          {(p.state === 'none' || p.state === 'failed') && (
            <button type="button" class="primary" onClick={deploy}>
              {p.state === 'failed' ? 'Retry deployment' : 'Deploy proxy wallet'}
            </button>
          )}
        </>
      )}
      <ErrorLine error={error ?? proxy.error} text={plainError} />
    </Section>
  );
}

const PROXY_STATES: Record<string, string> = {
  none: 'not deployed',
  pending: 'pending (waiting for a block)',
  deployed: 'deployed',
  failed: 'deployment failed: retry',
};

/** Balances beside positions and refunds, then the bets, orders and fills, all named by their markets. */
function MoneyCards() {
  const auth = useAuth();
  const data = useAccountData(auth.apiKey, auth.address, useRealtime(auth.apiKey));
  return (
    <>
      <Section title="Balances" testId="balance-card">
        {data.balance && (
          <MoneyFigures balance={data.balance} positions={data.positions} refunds={data.refunds} />
        )}
        <ErrorLine error={data.error} text={plainError} />
      </Section>
      <PositionsCard positions={data.positions} trades={data.trades} refunds={data.refunds} />
      <RefundsCard refunds={data.refunds} />
      <OpenOrders orders={data.orders} trades={data.trades} onChange={data.reload} />
      <ParlayBets trades={data.trades} />
      <TradesTable trades={data.trades} fills={data.fills} refunds={data.refunds} />
      <OrderHistoryTable />
      <FillsTable fills={data.fills} />
    </>
  );
}

const MAX_HEARTBEAT_SECONDS = 3600;
const HEARTBEAT_RANGE = `Give the timeout in whole seconds, from 1 to ${MAX_HEARTBEAT_SECONDS} (Disarm turns it off).`;

function HeartbeatCard() {
  const [seconds, setSeconds] = useState('60');
  const [armed, setArmed] = useState<{ timeoutSeconds: number; expiresAt: string | null }>();
  const [error, setError] = useState<unknown>();
  const send = async (timeoutSeconds: number) => {
    setError(undefined);
    try {
      setArmed(await tradingClient().heartbeat(timeoutSeconds));
    } catch (e) {
      // The exchange's schema message ("body/timeoutSeconds must be <= 3600") is not for a bettor.
      setError(e instanceof ExchangeApiError && e.status === 400 ? HEARTBEAT_RANGE : e);
    }
  };
  const arm = () => {
    const timeoutSeconds = Number(seconds);
    if (!/^[0-9]{1,4}$/.test(seconds.trim()) || timeoutSeconds < 1 || timeoutSeconds > MAX_HEARTBEAT_SECONDS)
      setError(HEARTBEAT_RANGE);
    else void send(timeoutSeconds);
  };
  return (
    <Section title="Heartbeat" testId="heartbeat-card">
      <p class="muted">
        A dead-man switch: armed, it cancels all your open orders unless refreshed within the timeout.
      </p>
      <p data-testid="heartbeat-state">
        {armed === undefined
          ? 'Not set from this page.'
          : armed.expiresAt
            ? `Armed (${armed.timeoutSeconds} s): orders are cancelled at ${new Date(armed.expiresAt).toLocaleTimeString()} unless refreshed.`
            : 'Disarmed.'}
      </p>
      <div class="row">
        <input
          aria-label="Heartbeat timeout (seconds)"
          value={seconds}
          inputMode="numeric"
          onInput={(e) => setSeconds((e.target as HTMLInputElement).value)}
        />
        <button type="button" onClick={arm}>
          Arm / refresh
        </button>
        <button type="button" onClick={() => send(0)}>
          Disarm
        </button>
      </div>
      <ErrorLine error={error} text={plainError} />
    </Section>
  );
}

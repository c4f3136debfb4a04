import { useEffect, useState } from 'preact/hooks';
import { shortHex } from './lib/display.js';
import { useAuth } from './lib/hooks.js';
import { AccountPage } from './pages/account-page.js';
import { TradingPage } from './pages/trading-page.js';

type Route = 'trade' | 'account';

const routeOf = (hash: string): Route => (hash.startsWith('#/account') ? 'account' : 'trade');

/** The two pages behind hash routes (`#/trade`, `#/account`), so the server serves one index.html. */
export function App() {
  const [route, setRoute] = useState<Route>(routeOf(location.hash));
  const auth = useAuth();
  useEffect(() => {
    const onHash = () => setRoute(routeOf(location.hash));
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  return (
    <div class="shell">
      <header class="topbar">
        <span class="brand">oddsbook</span>
        <nav>
          <a href="#/trade" class={route === 'trade' ? 'active' : ''}>
            Trade
          </a>
          <a href="#/account" class={route === 'account' ? 'active' : ''}>
            Account
          </a>
        </nav>
        <span class="who" data-testid="who">
          {auth.sessionToken && auth.address ? `Signed in as ${shortHex(auth.address)}` : 'Not signed in'}
        </span>
      </header>
      <main>{route === 'account' ? <AccountPage /> : <TradingPage />}</main>
    </div>
  );
}

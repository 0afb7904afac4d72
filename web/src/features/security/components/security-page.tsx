/**
 * Security (spec §2): password, two-factor authentication, devices and sessions, sign-in
 * history, and security events (two-factor actions paused after wrong codes).
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import { ChangePassword } from './change-password';
import { SecurityEvents } from './security-events';
import { LoginHistory, Sessions } from './sessions';
import { TwoFactor } from './two-factor';

export function Security() {
  const { t } = useTranslation();
  // A password change ends the other sessions: read the list again.
  const [generation, setGeneration] = useState(0);
  return (
    <section className="security" aria-labelledby="security-title">
      <h1 id="security-title" className="page-title">
        {t('security.title')}
      </h1>
      <ChangePassword onChanged={() => setGeneration((g) => g + 1)} />
      <TwoFactor />
      <Sessions key={`s${generation}`} />
      <LoginHistory key={`h${generation}`} />
      <SecurityEvents />
    </section>
  );
}

/** The trader's API client: the user token, and a 401 ends the session. */
import { currentToken, useSession } from '@/stores/session';

import { createApiClient } from './api-client';

export const api = createApiClient({
  getToken: currentToken,
  onUnauthorized: () => useSession.getState().expire(),
});

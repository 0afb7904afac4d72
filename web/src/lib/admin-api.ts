/** The back-office's API client: the admin token; a 401 or 403 ends the admin session (§6). */
import { useAdminSession } from '@/stores/admin-session';

import { createApiClient } from './api-client';

export const adminApi = createApiClient({
  getToken: () => useAdminSession.getState().token,
  onUnauthorized: () => useAdminSession.getState().expire(),
  endsSession: [401, 403],
});

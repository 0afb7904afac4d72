import { afterEach } from 'vitest';

import { mockApi } from '@/testing/api';
import { siteInfo } from '@/testing/fixtures';

import { useSite } from './site';

afterEach(() => useSite.setState({ info: null }));

test('loads the public settings; a config saved while the load is on its way is not undone by it', async () => {
  // The server answers the load only when the test says so.
  let answer: (value: { data: unknown }) => void = () => {};
  mockApi({ 'GET /api/admin/system/basic-info': () => new Promise<{ data: unknown }>((resolve) => (answer = resolve)) as unknown as Promise<never> });
  const loading = useSite.getState().load();
  useSite.getState().show(siteInfo({ siteName: 'Saved Name' }));
  answer({ data: siteInfo({ siteName: 'Old Name' }) });
  await loading;
  expect(useSite.getState().info?.siteName).toBe('Saved Name');

  mockApi({ 'GET /api/admin/system/basic-info': () => ({ data: siteInfo({ siteName: 'Later Name' }) }) });
  await useSite.getState().load();
  expect(useSite.getState().info?.siteName).toBe('Later Name');
});

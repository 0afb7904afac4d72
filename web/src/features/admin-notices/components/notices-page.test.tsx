import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';

import { useAdminSession } from '@/stores/admin-session';
import { mockApi } from '@/testing/api';
import { renderAt } from '@/testing/render';

import { checkNotice } from '../api';
import { NoticesPage } from './notices-page';

describe('notices', () => {
  beforeEach(() => useAdminSession.getState().signIn('t', { id: 1, username: 'root', role: 'super', permissions: ['notices:write'] }));

  it('checks a notice before anything is sent', () => {
    expect(checkNotice('Maintenance', 'Sunday 02:00 UTC')).toEqual({});
    expect(checkNotice(' ', 'x').title).toBe('admin.notices.titleRequired');
    expect(checkNotice('x'.repeat(101), 'x').title).toBe('admin.notices.titleLong');
    expect(checkNotice('x', 'y'.repeat(2001)).body).toBe('admin.notices.bodyLong');
  });

  it('broadcasts after a confirmation that shows the notice, then lists it', async () => {
    let items: Array<{ id: number; title: string; body: string; time: number }> = [];
    const api = mockApi({
      'GET /api/notices': () => ({ data: { items, total: items.length } }),
      'POST /api/admin/notices': (body) => {
        items = [{ id: 1, ...(body as { title: string; body: string }), time: 1_700_000_000_000 }];
        return { data: {} };
      },
    });
    const { user } = renderAt(<NoticesPage />);
    expect(await screen.findByText('No notices sent yet')).toBeInTheDocument();
    const form = screen.getByRole('form', { name: 'New notice' });
    await user.click(within(form).getByRole('button', { name: 'Review and send' }));
    expect(within(form).getByText('Please enter a title')).toBeInTheDocument();
    await user.type(within(form).getByLabelText('Title'), 'Maintenance');
    await user.type(within(form).getByLabelText('Text'), 'Sunday 02:00 UTC');
    await user.click(within(form).getByRole('button', { name: 'Review and send' }));
    const dialog = screen.getByRole('dialog', { name: 'Send this notice to every user?' });
    expect(dialog).toHaveTextContent('Sunday 02:00 UTC');
    expect(api.count('POST /api/admin/notices')).toBe(0);
    await user.click(within(dialog).getByRole('button', { name: 'Send to every user' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(api.calls.find((c) => c.key === 'POST /api/admin/notices')?.body).toEqual({ title: 'Maintenance', body: 'Sunday 02:00 UTC' });
    expect(await screen.findByRole('listitem')).toHaveTextContent('Maintenance');
  });
});

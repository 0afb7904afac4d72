import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';

import { useAdminSession } from '@/stores/admin-session';
import { mockApi } from '@/testing/api';
import { renderAt } from '@/testing/render';

import { type Notice, checkNotice } from '../api';
import { NoticesPage } from './notices-page';

const TIME = 1_700_000_000_000;

function notice(patch: Partial<Notice> = {}): Notice {
  return { id: 1, title: 'Maintenance', body: 'Sunday 02:00 UTC', time: TIME, lang: '', withdrawnAt: null, ...patch };
}

describe('notices', () => {
  beforeEach(() => useAdminSession.getState().signIn('t', { id: 1, username: 'root', role: 'super', permissions: ['notices:write'] }));

  it('checks a notice before anything is sent', () => {
    expect(checkNotice('Maintenance', 'Sunday 02:00 UTC')).toEqual({});
    expect(checkNotice(' ', 'x').title).toBe('admin.notices.titleRequired');
    expect(checkNotice('x'.repeat(101), 'x').title).toBe('admin.notices.titleLong');
    expect(checkNotice('x', 'y'.repeat(2001)).body).toBe('admin.notices.bodyLong');
  });

  it('broadcasts to every language by default, after a confirmation that shows the notice and who sees it', async () => {
    let items: Notice[] = [];
    const api = mockApi({
      'GET /api/admin/notices': () => ({ data: { items, total: items.length } }),
      'POST /api/admin/notices': (body) => {
        items = [notice(body as Partial<Notice>)];
        return { data: {} };
      },
    });
    const { user } = renderAt(<NoticesPage />);
    expect(await screen.findByText('No notices sent yet')).toBeInTheDocument();
    expect(api.count('GET /api/notices')).toBe(0); // the admins' list, not the users' one
    const form = screen.getByRole('form', { name: 'New notice' });
    expect(within(form).getByLabelText('Shown to')).toHaveValue('');
    await user.click(within(form).getByRole('button', { name: 'Review and send' }));
    expect(within(form).getByText('Please enter a title')).toBeInTheDocument();
    await user.type(within(form).getByLabelText('Title'), 'Maintenance');
    await user.type(within(form).getByLabelText('Text'), 'Sunday 02:00 UTC');
    await user.click(within(form).getByRole('button', { name: 'Review and send' }));
    const dialog = screen.getByRole('dialog', { name: 'Send this notice?' });
    expect(dialog).toHaveTextContent('Sunday 02:00 UTC');
    expect(dialog).toHaveTextContent('Shown to: Every language (all users)');
    expect(api.count('POST /api/admin/notices')).toBe(0);
    await user.click(within(dialog).getByRole('button', { name: 'Send notice' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(api.calls.find((c) => c.key === 'POST /api/admin/notices')?.body).toEqual({ title: 'Maintenance', body: 'Sunday 02:00 UTC', lang: '' });
    const list = await screen.findByRole('list', { name: 'Sent notices' });
    expect(within(list).getByRole('listitem')).toHaveTextContent('Maintenance');
    expect(within(list).getByRole('listitem')).toHaveTextContent('Every language (all users)');
  });

  it('sends a notice to one language only, written and shown in that language', async () => {
    const api = mockApi({
      'GET /api/admin/notices': () => ({ data: { items: [], total: 0 } }),
      'POST /api/admin/notices': () => ({ data: {} }),
    });
    const { user } = renderAt(<NoticesPage />);
    const form = await screen.findByRole('form', { name: 'New notice' });
    await user.selectOptions(within(form).getByLabelText('Shown to'), 'ar-AR');
    await user.type(within(form).getByLabelText('Title'), 'صيانة');
    await user.type(within(form).getByLabelText('Text'), 'الأحد 02:00');
    expect(within(form).getByLabelText('Title')).toHaveAttribute('lang', 'ar-AR');
    await user.click(within(form).getByRole('button', { name: 'Review and send' }));
    const dialog = screen.getByRole('dialog', { name: 'Send this notice?' });
    expect(dialog).toHaveTextContent('Shown to: Users of the app in العربية');
    const title = within(dialog).getByText('صيانة');
    expect(title).toHaveAttribute('dir', 'auto');
    expect(title).toHaveAttribute('lang', 'ar-AR');
    await user.click(within(dialog).getByRole('button', { name: 'Send notice' }));
    await waitFor(() => expect(api.count('POST /api/admin/notices')).toBe(1));
    expect(api.calls.find((c) => c.key === 'POST /api/admin/notices')?.body).toEqual({ title: 'صيانة', body: 'الأحد 02:00', lang: 'ar-AR' });
  });

  it('lists each notice with its language and state, and withdraws one after a confirmation', async () => {
    let items = [notice({ id: 2, title: 'Wartung', body: 'Sonntag', lang: 'de-DE' }), notice({ id: 1, title: 'Old news', withdrawnAt: TIME + 60_000 })];
    const api = mockApi({
      'GET /api/admin/notices': () => ({ data: { items, total: items.length } }),
      'DELETE /api/admin/notices/2': () => {
        items = items.map((n) => (n.id === 2 ? { ...n, withdrawnAt: TIME + 120_000 } : n));
        return { data: {} };
      },
    });
    const { user } = renderAt(<NoticesPage />);
    const list = await screen.findByRole('list', { name: 'Sent notices' });
    const [wartung, old] = within(list).getAllByRole('listitem');
    expect(wartung).toHaveTextContent('Users of the app in Deutsch');
    expect(wartung).toHaveTextContent('Shown to users');
    expect(within(wartung!).getByText('Wartung')).toHaveAttribute('lang', 'de-DE');
    expect(old).toHaveTextContent(/Withdrawn/);
    expect(within(old!).queryByRole('button', { name: /Withdraw/ })).toBeNull();

    await user.click(within(wartung!).getByRole('button', { name: 'Withdraw the notice “Wartung”' }));
    const dialog = screen.getByRole('dialog', { name: 'Withdraw this notice?' });
    expect(dialog).toHaveTextContent('Wartung');
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(api.count('DELETE /api/admin/notices/2')).toBe(0);

    await user.click(within(wartung!).getByRole('button', { name: 'Withdraw the notice “Wartung”' }));
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Withdraw notice' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(api.count('DELETE /api/admin/notices/2')).toBe(1);
    await waitFor(() => expect(within(screen.getByRole('list', { name: 'Sent notices' })).queryByRole('button', { name: /Withdraw/ })).toBeNull());
  });

  it('says when someone else withdrew the notice meanwhile, and shows the list as it is now', async () => {
    let withdrawnAt: number | null = null;
    mockApi({
      'GET /api/admin/notices': () => ({ data: { items: [notice({ id: 3, withdrawnAt })], total: 1 } }),
      'DELETE /api/admin/notices/3': () => {
        withdrawnAt = TIME;
        return { status: 409, code: 'NOTICE_WITHDRAWN', message: 'This notice has already been withdrawn' };
      },
    });
    const { user } = renderAt(<NoticesPage />);
    await user.click(await screen.findByRole('button', { name: 'Withdraw the notice “Maintenance”' }));
    const dialog = screen.getByRole('dialog', { name: 'Withdraw this notice?' });
    await user.click(within(dialog).getByRole('button', { name: 'Withdraw notice' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('This notice has already been withdrawn');
    await waitFor(() => expect(screen.getByRole('list', { name: 'Sent notices' })).toHaveTextContent(/Withdrawn/));
  });
});

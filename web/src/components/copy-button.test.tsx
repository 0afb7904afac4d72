import { screen } from '@testing-library/react';
import { beforeEach, vi } from 'vitest';

import { renderAt } from '@/testing/render';
import { useToasts } from '@/stores/toast';

import { CopyButton } from './copy-button';

beforeEach(() => useToasts.setState({ toasts: [] }));

test('copies the text and says so', async () => {
  const { user } = renderAt(<CopyButton text="ABCD2345" label="Invitation code" />);
  const writeText = vi.spyOn(navigator.clipboard, 'writeText').mockResolvedValue(undefined);
  await user.click(screen.getByRole('button', { name: 'Copy Invitation code' }));
  expect(writeText).toHaveBeenCalledWith('ABCD2345');
  expect(useToasts.getState().toasts.map((t) => t.text)).toEqual(['Copied']);
});

test('says "Failed to copy" when the browser refuses', async () => {
  const { user } = renderAt(<CopyButton text="x" label="Address" />);
  vi.spyOn(navigator.clipboard, 'writeText').mockRejectedValue(new Error('denied'));
  await user.click(screen.getByRole('button', { name: 'Copy Address' }));
  expect(useToasts.getState().toasts.map((t) => [t.kind, t.text])).toEqual([['error', 'Failed to copy']]);
});

/** Renders a component inside a memory router, as the app would, with a user-event driver. */
import { render } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactElement } from 'react';
import { I18nextProvider } from 'react-i18next';
import { Route, RouterProvider, createMemoryRouter, createRoutesFromElements } from 'react-router';

import { i18n } from '@/lib/i18n';

interface Options {
  path?: string;
  route?: string;
  /** Fake timers need user-event to advance them. */
  advanceTimers?: (ms: number) => void;
}

export function renderAt(ui: ReactElement, { path = '/', route = '/', advanceTimers }: Options = {}) {
  const router = createMemoryRouter(
    createRoutesFromElements(
      <>
        <Route path={path} element={ui} />
        <Route path="*" element={<p data-testid="elsewhere" />} />
      </>,
    ),
    { initialEntries: [route] },
  );
  const user = userEvent.setup(advanceTimers ? { advanceTimers } : {});
  const result = render(
    <I18nextProvider i18n={i18n}>
      <RouterProvider router={router} />
    </I18nextProvider>,
  );
  return { ...result, router, user };
}
